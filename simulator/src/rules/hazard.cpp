// The hazard detector (hazard.h): vector clocks, per-allocation access lists,
// pinned-host checksums, one log line per hazard kind.
#include "rules/hazard.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

#include "core/device.h"
#include "core/memory.h"
#include "report/log.h"
#include "rules/guard.h"

namespace sim {
namespace hazard {

std::atomic<bool> g_enabled{false};

namespace {

using Clock = std::vector<uint32_t>;

constexpr int kHost = 0;

struct Agent {
  uint64_t stream_id = 0;  // 0: the host
  std::string name;
  Clock clock;
};

struct Access {
  int agent;
  uint32_t epoch;
  uintptr_t lo, hi;  // [lo, hi)
  bool write;
  const char* api;
  uint64_t task_id;
};

struct Shadow {
  MemKind kind = MemKind::kUnknown;
  uint64_t device_writes = 0;  // tasks that wrote this block (pinned host checks)
  std::vector<Access> accesses;
};

// A pinned host range an async task reads, and its checksum at submission.
struct Watch {
  int agent;
  uint32_t epoch;
  uintptr_t base;
  const void* addr;
  size_t size;
  uint64_t sum;
  uint64_t device_writes;
  const char* api;
  uint64_t task_id;
};

using PairKey = std::tuple<std::string, std::string, uintptr_t>;

struct State {
  std::mutex mu;
  std::vector<Agent> agents;  // [0] = host
  std::unordered_map<uintptr_t, Shadow> shadows;
  std::vector<Watch> watches;
  std::set<PairKey> reported;
  uint64_t found = 0;
};

State& state() {
  static State s;
  return s;
}

std::atomic<uint64_t> g_unconsumed{0};  // what the exit hook looks at

uint32_t at(const Clock& c, int agent) {
  return static_cast<size_t>(agent) < c.size() ? c[agent] : 0;
}

void join(Clock* into, const Clock& from) {
  if (into->size() < from.size()) into->resize(from.size(), 0);
  for (size_t i = 0; i < from.size(); ++i) (*into)[i] = std::max((*into)[i], from[i]);
}

uint64_t checksum(const void* p, size_t n) {
  // Four independent 64-bit lanes: fast enough to run on every watched copy.
  const auto* b = static_cast<const unsigned char*>(p);
  uint64_t h[4] = {0x9e3779b97f4a7c15ULL, 0xc2b2ae3d27d4eb4fULL, 0x165667b19e3779f9ULL,
                   0x27d4eb2f165667c5ULL};
  constexpr uint64_t kMul = 0xff51afd7ed558ccdULL;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    uint64_t w[4];
    std::memcpy(w, b + i, 32);
    for (int k = 0; k < 4; ++k) h[k] = (h[k] ^ w[k]) * kMul;
  }
  uint64_t tail = 0;
  for (; i < n; ++i) tail = (tail << 8 | b[i]) * 31;
  return (h[0] ^ (h[1] >> 1) ^ (h[2] << 1) ^ (h[3] >> 3) ^ tail) + n;
}

std::string agent_label(const State& s, int agent) {
  if (agent == kHost) return "host (synchronous API)";
  const Agent& a = s.agents[agent];
  std::string out = "stream " + std::to_string(a.stream_id);
  if (!a.name.empty()) out += " '" + a.name + "'";
  return out;
}

const char* kind_label(MemKind k) {
  switch (k) {
    case MemKind::kDevice:
      return "device";
    case MemKind::kDvpp:
      return "DVPP";
    case MemKind::kHost:
      return "pinned host";
    default:
      return "unknown";
  }
}

void note(State& s) {
  ++s.found;
  g_unconsumed.fetch_add(1, std::memory_order_relaxed);
}

// Reports a race between `prev` (recorded) and the new access once per pair.
void report_pair(State& s, const Access& prev, const Access& cur, uint64_t cur_stream_tag,
                 uintptr_t base, MemKind kind, const std::string& cur_name) {
  std::string a = std::string(prev.api) + "@" + std::to_string(prev.agent);
  std::string b = std::string(cur.api) + "@" + std::to_string(cur.agent);
  (void)cur_stream_tag;
  if (!s.reported.emplace(a, b, base).second) return;
  note(s);
  const char* what =
      prev.write ? (cur.write ? "write-after-write" : "read-after-write") : "write-after-read";
  uintptr_t lo = std::max(prev.lo, cur.lo), hi = std::min(prev.hi, cur.hi);
  report("HAZARD",
         "%s on %s memory block %p, bytes [%zu, %zu): %s on %s (task %llu) and %s on %s "
         "(task %llu '%s') are not ordered: no event wait or host synchronisation between them",
         what, kind_label(kind), reinterpret_cast<void*>(base), static_cast<size_t>(lo - base),
         static_cast<size_t>(hi - base), prev.api, agent_label(s, prev.agent).c_str(),
         static_cast<unsigned long long>(prev.task_id), cur.api, agent_label(s, cur.agent).c_str(),
         static_cast<unsigned long long>(cur.task_id), cur_name.c_str());
}

bool ordered_before(const Access& p, const Clock& c) {
  return p.epoch <= at(c, p.agent);
}

// Checks one range of a new access against the block's list and records it.
void check_range(State& s, const ByteRange& r, bool write, int agent, uint32_t epoch,
                 const Clock& clock, const char* api, uint64_t task_id, const std::string& name,
                 bool record) {
  uintptr_t base = 0;
  MemKind kind = MemKind::kUnknown;
  if (r.size == 0 || !block_of(r.addr, r.size, &base, &kind)) return;
  Shadow& sh = s.shadows[base];
  sh.kind = kind;
  if (write) ++sh.device_writes;
  Access cur{agent,
             epoch,
             reinterpret_cast<uintptr_t>(r.addr),
             reinterpret_cast<uintptr_t>(r.addr) + r.size,
             write,
             api,
             task_id};
  const Clock& host = s.agents[kHost].clock;
  auto& list = sh.accesses;
  size_t keep = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const Access& p = list[i];
    bool dead = ordered_before(p, host);
    bool overlap = p.lo < cur.hi && cur.lo < p.hi;
    bool before = ordered_before(p, clock);
    if (!dead && overlap && (p.write || write) && !before && p.agent != agent)
      report_pair(s, p, cur, 0, base, kind, name);
    // Redundant: the new access covers it, follows it, and is at least as strong.
    bool covered = before && cur.lo <= p.lo && p.hi <= cur.hi && (write || !p.write);
    if (dead || (record && covered)) continue;
    if (keep != i) list[keep] = list[i];
    ++keep;
  }
  list.resize(keep);
  if (record) list.push_back(cur);
}

void check_task(State& s, int agent, uint32_t epoch, const Clock& clock, const TaskSpec& spec,
                const char* api, uint64_t task_id, bool record) {
  for (const ByteRange& r : spec.reads)
    check_range(s, r, false, agent, epoch, clock, api, task_id, spec.name, record);
  for (const ByteRange& r : spec.writes)
    check_range(s, r, true, agent, epoch, clock, api, task_id, spec.name, record);
}

void check_watches(State& s, bool all) {
  const Clock& host = s.agents[kHost].clock;
  size_t keep = 0;
  for (size_t i = 0; i < s.watches.size(); ++i) {
    const Watch& w = s.watches[i];
    if (!all && w.epoch > at(host, w.agent)) {
      if (keep != i) s.watches[keep] = s.watches[i];
      ++keep;
      continue;
    }
    auto it = s.shadows.find(w.base);
    bool device_wrote = it == s.shadows.end() || it->second.device_writes != w.device_writes;
    std::string key = std::string(w.api) + "@" + std::to_string(w.agent);
    if (!device_wrote && checksum(w.addr, w.size) != w.sum &&
        s.reported.emplace("host write", key, w.base).second) {
      note(s);
      report("HAZARD",
             "host write into pinned host memory block %p, bytes [%zu, %zu) while %s on %s "
             "(task %llu) still read it: synchronise the copy before reusing its source",
             reinterpret_cast<void*>(w.base),
             static_cast<size_t>(reinterpret_cast<uintptr_t>(w.addr) - w.base),
             static_cast<size_t>(reinterpret_cast<uintptr_t>(w.addr) + w.size - w.base), w.api,
             agent_label(s, w.agent).c_str(), static_cast<unsigned long long>(w.task_id));
    }
  }
  s.watches.resize(keep);
}

// Host accesses the page guards caught (guard.h): one line per (API, stream, block).
void drain_faults(State& s) {
  for (const guard::Fault& f : guard::take_faults()) {
    std::string key = std::string(f.owner.api) + "@" + std::to_string(f.owner.agent);
    if (!s.reported.emplace("host access", key, f.base).second) continue;
    note(s);
    const char* what = f.access == 2 ? "write into" : f.access == 1 ? "read of" : "access to";
    std::string agent = static_cast<size_t>(f.owner.agent) < s.agents.size()
                            ? agent_label(s, f.owner.agent)
                            : "stream ?";
    report("HAZARD",
           "host %s pinned host memory block %p (byte %zu) while %s on %s (task %llu) still "
           "writes it (bytes [%zu, %zu)): synchronise the stream or wait for the copy's event "
           "or callback first",
           what, reinterpret_cast<void*>(f.base), static_cast<size_t>(f.addr - f.base), f.owner.api,
           agent.c_str(), static_cast<unsigned long long>(f.owner.task_id),
           static_cast<size_t>(f.lo - f.base), static_cast<size_t>(f.hi - f.base));
  }
}

int agent_of(State& s, Stream* stream) {
  if (stream == nullptr) return kHost;
  if (stream->hz_agent < 0) {
    stream->hz_agent = static_cast<int>(s.agents.size());
    Agent a;
    a.stream_id = stream->id;
    a.name = stream->name;
    s.agents.push_back(std::move(a));
  }
  return stream->hz_agent;
}

void exit_hook() {
  guard::disarm_all();  // nothing may fault after main (LeakSanitizer reads the heap)
  {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    drain_faults(s);
  }
  uint64_t n = g_unconsumed.load();
  if (n == 0) return;
  std::fflush(nullptr);
  std::fprintf(stderr, "[acl_sim] HAZARD %llu hazard(s) detected: exit status %d\n",
               static_cast<unsigned long long>(n), kExitStatus);
  std::fflush(stderr);
  _exit(kExitStatus);
}

}  // namespace

void configure() {
  const char* env = std::getenv("ACL_SIM_HAZARD");
  bool on = env != nullptr && *env != '\0' && std::strcmp(env, "0") != 0;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.agents.assign(1, Agent{});
  s.shadows.clear();
  s.watches.clear();
  s.reported.clear();
  s.found = 0;
  g_enabled.store(on);
  if (on) guard::configure();
  static bool hooked = false;
  if (on && !hooked) {
    hooked = true;
    std::atexit(exit_hook);
  }
}

void on_enqueue(Task& t, const Task* awaited) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  drain_faults(s);
  int agent = agent_of(s, t.stream);
  Clock& mine = s.agents[agent].clock;
  Clock& host = s.agents[kHost].clock;
  if (agent != kHost) {
    join(&mine, host);
    if (awaited != nullptr && !awaited->hz_vc.empty()) join(&mine, awaited->hz_vc);
  }
  if (mine.size() <= static_cast<size_t>(agent)) mine.resize(agent + 1, 0);
  t.hz_epoch = ++mine[agent];
  t.hz_agent = agent;
  t.hz_vc = mine;
  const char* api = t.api != nullptr ? t.api : "?";
  // A synchronous API's task is complete before the host goes on: its accesses
  // cannot race with later tasks, only with those in flight now.
  check_task(s, agent, t.hz_epoch, t.hz_vc, t.spec, api, t.id, agent != kHost);
  // Page guards: an async task's pinned destination is inaccessible to the host
  // until the task completes; the work of any task touching pinned memory opens
  // the guarded pages it touches (hz_pinned, Device::complete).
  for (const ByteRange& r : t.spec.writes) {
    if (r.size == 0) continue;
    bool pinned = agent != kHost ? guard_host_write(r.addr, r.size, guard::Owner{api, agent, t.id})
                                 : classify(r.addr, r.size) == MemKind::kHost;
    t.hz_pinned = t.hz_pinned || pinned;
  }
  for (const ByteRange& r : t.spec.reads)
    t.hz_pinned = t.hz_pinned || (r.size > 0 && classify(r.addr, r.size) == MemKind::kHost);
  if (agent == kHost) return;
  for (const ByteRange& r : t.spec.reads) {
    uintptr_t base = 0;
    MemKind kind = MemKind::kUnknown;
    if (r.size == 0 || !block_of(r.addr, r.size, &base, &kind) || kind != MemKind::kHost) continue;
    // A range an in-flight copy still writes cannot be checksummed (and a
    // device write is coming anyway).
    if (guard::covers(r.addr, r.size)) continue;
    s.watches.push_back(Watch{agent, t.hz_epoch, base, r.addr, r.size, checksum(r.addr, r.size),
                              s.shadows[base].device_writes, api, t.id});
  }
}

void observe(const Task& t) {
  if (t.hz_vc.empty()) return;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  drain_faults(s);
  join(&s.agents[kHost].clock, t.hz_vc);
  if (!s.watches.empty()) check_watches(s, false);
}

void observe_all() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  drain_faults(s);
  for (size_t i = 1; i < s.agents.size(); ++i) join(&s.agents[kHost].clock, s.agents[i].clock);
  if (!s.watches.empty()) check_watches(s, false);
}

void host_access(const char* api, const TaskSpec& spec) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  drain_faults(s);
  Clock& host = s.agents[kHost].clock;
  if (host.empty()) host.resize(1, 0);
  uint32_t epoch = ++host[kHost];
  check_task(s, kHost, epoch, host, spec, api, 0, false);
}

void forget_block(uintptr_t base) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.shadows.erase(base);
  s.watches.erase(std::remove_if(s.watches.begin(), s.watches.end(),
                                 [base](const Watch& w) { return w.base == base; }),
                  s.watches.end());
}

void forget_all_blocks() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.shadows.clear();
  s.watches.clear();
}

void name_stream(Stream* stream, const char* name) {
  stream->name = name != nullptr ? name : "";
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (stream->hz_agent > 0 && static_cast<size_t>(stream->hz_agent) < s.agents.size())
    s.agents[stream->hz_agent].name = stream->name;
}

aclError finalize() {
  if (!enabled()) return ACL_SUCCESS;
  State& s = state();
  guard::disarm_all();  // the device has drained: nothing is in flight
  std::lock_guard<std::mutex> lock(s.mu);
  drain_faults(s);
  check_watches(s, true);
  s.shadows.clear();
  if (s.found == 0) return ACL_SUCCESS;
  report("HAZARD", "%llu hazard(s) since aclInit: aclFinalize returns %d",
         static_cast<unsigned long long>(s.found), ACL_ERROR_INTERNAL_ERROR);
  return ACL_ERROR_INTERNAL_ERROR;
}

uint64_t count() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  drain_faults(s);
  return s.found;
}

uint64_t take() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  drain_faults(s);
  uint64_t n = s.found;
  s.found = 0;
  s.reported.clear();
  g_unconsumed.store(0);
  return n;
}

}  // namespace hazard
}  // namespace sim
