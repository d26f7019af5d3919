// Profiling (acl/acl_prof.h): CANN's aclprof* API, as a generated program's --profile DIR
// calls it, on the simulator.
//
// aclprofInit(DIR) after aclInit; aclprofCreateConfig (devices, what to collect);
// aclprofStart .. aclprofStop capture the device timeline in between (report/trace.h: the
// stream and engine tracks of ACL_SIM_TRACE) and the ranges the program marked with the
// msproftx calls (aclprofPush / aclprofPop on one thread, aclprofRangeStart / aclprofRangeStop
// across threads, aclprofMark for an instant, each named by its stamp's message); aclprofStop
// writes DIR/trace.json and DIR/summary.json. aclprofDestroyConfig, then aclprofFinalize.
// Misuse returns what CANN's API returns and is reported as a rule (rule_table.yaml, prof.*):
// a call before aclprofInit or after aclprofFinalize (prof.init_required), aclprofInit twice,
// a path whose length is not its own (prof.path), a config that is not one (prof.config),
// aclprofStart twice, aclprofStop of nothing started, an unmatched pop or range stop, and,
// as a device rule that fails the run, aclprofFinalize while profiling runs.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl_prof.h"
#include "api/api.h"
#include "api/runtime.h"
#include "core/clock.h"
#include "core/profile.h"
#include "report/log.h"
#include "report/trace.h"
#include "rules/rules.h"

struct aclprofConfig {
  std::vector<uint32_t> devices;
  uint64_t data_types = 0;
};

namespace sim {
namespace {

constexpr size_t kMaxPath = 4096;

int devices() {
  return static_cast<int>(profile().num("topology.devices", 1));  // chips on the host
}

struct Stamp {
  std::string message;
};

struct Open {
  const Stamp* stamp;
  double start;
  uint64_t thread;
};

struct ProfState {
  std::mutex mu;
  bool initialized = false;
  std::string dir;
  std::set<const aclprofConfig*> configs;
  const aclprofConfig* running = nullptr;
  std::set<const Stamp*> stamps;
  std::vector<HostRange> ranges;
  std::map<uint32_t, Open> open_ranges;  // aclprofRangeStart .. aclprofRangeStop
  uint32_t next_range = 1;
  std::map<std::thread::id, uint64_t> threads;
};

ProfState& prof() {
  static ProfState s;
  return s;
}

// The pushed ranges of the calling thread (aclprofPush .. aclprofPop).
std::vector<Open>& pushed() {
  thread_local std::vector<Open> stack;
  return stack;
}

uint64_t thread_number(ProfState& s) {  // under s.mu
  auto it = s.threads.find(std::this_thread::get_id());
  if (it == s.threads.end())
    it = s.threads.emplace(std::this_thread::get_id(), s.threads.size() + 1).first;
  return it->second;
}

aclError not_running(const char* api) {
  return raise_rule(Rule::kProfInitRequired, ACL_ERROR_PROF_NOT_RUN, api, "call aclprofInit first");
}

// ACL_SUCCESS when profiling is initialised and `stamp` is one of aclprofCreateStamp's, else
// the rule's code. Under s.mu.
aclError check_stamp(const ProfState& s, const void* stamp, const char* api) {
  if (!s.initialized) return not_running(api);
  if (s.stamps.count(static_cast<const Stamp*>(stamp)) == 0)
    return raise_rule(Rule::kProfRangeUnmatched, ACL_ERROR_INVALID_PARAM, api,
                      "not a stamp of aclprofCreateStamp (or destroyed already)");
  return ACL_SUCCESS;
}

// A range ends: kept when profiling runs (a range outside aclprofStart .. aclprofStop is
// not collected, as on the device).
void close_range(ProfState& s, const Open& open) {  // under s.mu
  if (s.running == nullptr) return;
  const double now = model_clock().now_us();
  s.ranges.push_back({open.stamp->message, open.thread, open.start, now - open.start});
}

bool make_dirs(const std::string& dir, std::string* why) {
  for (size_t at = 1; at <= dir.size(); ++at) {
    if (at != dir.size() && dir[at] != '/') continue;
    const std::string part = dir.substr(0, at);
    if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) {
      *why = "cannot create " + part + ": " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

// Stops the capture and writes DIR's files; ACL_ERROR_PROFILING_FAILURE when it cannot.
aclError stop_locked(ProfState& s, const char* api) {
  s.running = nullptr;
  std::string why;
  const bool written = trace_profile_stop(s.dir, s.ranges, &why);
  s.ranges.clear();
  if (written) return ACL_SUCCESS;
  log(LogLevel::kError, "%s: %s", api, why.c_str());
  return ACL_ERROR_PROFILING_FAILURE;
}

}  // namespace
}  // namespace sim

using namespace sim;

extern "C" {

aclError aclprofInit(const char* profilerResultPath, size_t length) {
  SIM_API_ENTER();
  if (!initialized()) return not_initialized(__func__);
  if (profilerResultPath == nullptr) return null_arg(__func__, "profilerResultPath");
  ProfState& s = prof();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.initialized)
    return raise_rule(Rule::kProfInitTwice, ACL_ERROR_PROF_ALREADY_RUN, __func__,
                      "profiling into %s already: aclprofFinalize first", s.dir.c_str());
  const size_t real = strnlen(profilerResultPath, kMaxPath + 1);
  if (length == 0 || length > kMaxPath || length != real)
    return raise_rule(Rule::kProfPath, ACL_ERROR_INVALID_PARAM, __func__,
                      "length %zu, but the path has %zu characters (1 .. %zu)", length, real,
                      kMaxPath);
  std::string why;
  if (!make_dirs(profilerResultPath, &why))
    return raise_rule(Rule::kProfPath, ACL_ERROR_INVALID_PARAM, __func__, "%s", why.c_str());
  s.dir = profilerResultPath;
  s.initialized = true;
  return ACL_SUCCESS;
}

aclprofConfig* aclprofCreateConfig(uint32_t* deviceIdList, uint32_t deviceNums,
                                   aclprofAicoreMetrics aicoreMetrics,
                                   const aclprofAicoreEvents* aicoreEvents,
                                   uint64_t dataTypeConfig) {
  SIM_API_ENTER_OR(nullptr);
  (void)aicoreMetrics;  // the simulated AI Core has no counters: the metrics are accepted
  ProfState& s = prof();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.initialized) {
    not_running(__func__);
    return nullptr;
  }
  if (deviceIdList == nullptr) {
    null_arg(__func__, "deviceIdList");
    return nullptr;
  }
  if (deviceNums == 0 || aicoreEvents != nullptr) {
    raise_rule(Rule::kProfConfig, ACL_ERROR_INVALID_PARAM, __func__,
               "deviceNums %u (want >= 1), aicoreEvents %s (want NULL)", deviceNums,
               aicoreEvents != nullptr ? "set" : "NULL");
    return nullptr;
  }
  for (uint32_t i = 0; i < deviceNums; ++i) {
    if (deviceIdList[i] >= static_cast<uint32_t>(devices())) {
      raise_rule(Rule::kProfConfig, ACL_ERROR_INVALID_PARAM, __func__,
                 "device id %u: the device has %d", deviceIdList[i], devices());
      return nullptr;
    }
  }
  auto* config = new aclprofConfig{{deviceIdList, deviceIdList + deviceNums}, dataTypeConfig};
  s.configs.insert(config);
  return config;
}

aclError aclprofDestroyConfig(const aclprofConfig* profilerConfig) {
  SIM_API_ENTER();
  if (profilerConfig == nullptr) return null_arg(__func__, "profilerConfig");
  ProfState& s = prof();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.configs.count(profilerConfig) == 0)
    return raise_rule(Rule::kProfConfig, ACL_ERROR_INVALID_PARAM, __func__,
                      "not a config of aclprofCreateConfig (or destroyed already)");
  if (s.running == profilerConfig)
    return raise_rule(Rule::kProfConfig, ACL_ERROR_INVALID_PARAM, __func__,
                      "the config profiles now: aclprofStop first");
  s.configs.erase(profilerConfig);
  delete profilerConfig;
  return ACL_SUCCESS;
}

aclError aclprofStart(const aclprofConfig* profilerConfig) {
  SIM_API_ENTER();
  ProfState& s = prof();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.initialized) return not_running(__func__);
  if (profilerConfig == nullptr) return null_arg(__func__, "profilerConfig");
  if (s.configs.count(profilerConfig) == 0)
    return raise_rule(Rule::kProfConfig, ACL_ERROR_INVALID_PARAM, __func__,
                      "not a config of aclprofCreateConfig (or destroyed already)");
  if (s.running != nullptr)
    return raise_rule(Rule::kProfStartTwice, ACL_ERROR_PROF_ALREADY_RUN, __func__,
                      "profiling runs already: aclprofStop first");
  s.running = profilerConfig;
  s.ranges.clear();
  trace_profile_start();
  return ACL_SUCCESS;
}

aclError aclprofStop(const aclprofConfig* profilerConfig) {
  SIM_API_ENTER();
  ProfState& s = prof();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.initialized) return not_running(__func__);
  if (profilerConfig == nullptr) return null_arg(__func__, "profilerConfig");
  if (s.running == nullptr || s.running != profilerConfig)
    return raise_rule(Rule::kProfStopNotStarted, ACL_ERROR_PROF_NOT_RUN, __func__, "%s",
                      s.running == nullptr ? "nothing was started (aclprofStart)"
                                           : "another config than the one started");
  return stop_locked(s, __func__);
}

aclError aclprofFinalize() {
  SIM_API_ENTER();
  ProfState& s = prof();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.initialized) return not_running(__func__);
  aclError rc = ACL_SUCCESS;
  if (s.running != nullptr) {
    raise_rule(Rule::kProfFinalizeRunning, ACL_SUCCESS, __func__,
               "profiling still runs: aclprofStop (and aclprofDestroyConfig) first");
    rc = stop_locked(s, __func__);
  }
  for (const aclprofConfig* c : s.configs) delete c;
  s.configs.clear();
  for (const Stamp* st : s.stamps) delete st;
  s.stamps.clear();
  s.open_ranges.clear();
  s.initialized = false;
  return rc;
}

void* aclprofCreateStamp() {
  SIM_API_ENTER_OR(nullptr);
  ProfState& s = prof();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.initialized) {
    not_running(__func__);
    return nullptr;
  }
  auto* stamp = new Stamp();
  s.stamps.insert(stamp);
  return stamp;
}

void aclprofDestroyStamp(void* stamp) {
  SIM_API_ENTER_OR();
  if (stamp == nullptr) {
    null_arg(__func__, "stamp");
    return;
  }
  ProfState& s = prof();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.stamps.erase(static_cast<const Stamp*>(stamp)) == 0) {
    raise_rule(Rule::kProfRangeUnmatched, ACL_ERROR_INVALID_PARAM, __func__,
               "not a stamp of aclprofCreateStamp (or destroyed already)");
    return;
  }
  delete static_cast<Stamp*>(stamp);
}

aclError aclprofSetStampTraceMessage(void* stamp, const char* msg, uint32_t msgLen) {
  SIM_API_ENTER();
  if (stamp == nullptr || msg == nullptr) return null_arg(__func__, "stamp/msg");
  ProfState& s = prof();
  std::lock_guard<std::mutex> lock(s.mu);
  if (aclError rc = check_stamp(s, stamp, __func__)) return rc;
  static_cast<Stamp*>(stamp)->message.assign(msg, strnlen(msg, msgLen));
  return ACL_SUCCESS;
}

aclError aclprofPush(void* stamp) {
  SIM_API_ENTER();
  if (stamp == nullptr) return null_arg(__func__, "stamp");
  ProfState& s = prof();
  std::lock_guard<std::mutex> lock(s.mu);
  if (aclError rc = check_stamp(s, stamp, __func__)) return rc;
  pushed().push_back({static_cast<const Stamp*>(stamp), model_clock().now_us(), thread_number(s)});
  return ACL_SUCCESS;
}

aclError aclprofPop() {
  SIM_API_ENTER();
  ProfState& s = prof();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.initialized) return not_running(__func__);
  if (pushed().empty())
    return raise_rule(Rule::kProfRangeUnmatched, ACL_ERROR_INVALID_PARAM, __func__,
                      "nothing pushed on this thread (aclprofPush)");
  const Open open = pushed().back();
  pushed().pop_back();
  if (s.stamps.count(open.stamp) != 0) close_range(s, open);
  return ACL_SUCCESS;
}

aclError aclprofRangeStart(void* stamp, uint32_t* rangeId) {
  SIM_API_ENTER();
  if (stamp == nullptr || rangeId == nullptr) return null_arg(__func__, "stamp/rangeId");
  ProfState& s = prof();
  std::lock_guard<std::mutex> lock(s.mu);
  if (aclError rc = check_stamp(s, stamp, __func__)) return rc;
  *rangeId = s.next_range++;
  s.open_ranges[*rangeId] = {static_cast<const Stamp*>(stamp), model_clock().now_us(),
                             thread_number(s)};
  return ACL_SUCCESS;
}

aclError aclprofRangeStop(uint32_t rangeId) {
  SIM_API_ENTER();
  ProfState& s = prof();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!s.initialized) return not_running(__func__);
  auto it = s.open_ranges.find(rangeId);
  if (it == s.open_ranges.end())
    return raise_rule(Rule::kProfRangeUnmatched, ACL_ERROR_INVALID_PARAM, __func__,
                      "range %u is not open (aclprofRangeStart)", rangeId);
  if (s.stamps.count(it->second.stamp) != 0) close_range(s, it->second);
  s.open_ranges.erase(it);
  return ACL_SUCCESS;
}

aclError aclprofMark(void* stamp) {
  SIM_API_ENTER();
  if (stamp == nullptr) return null_arg(__func__, "stamp");
  ProfState& s = prof();
  std::lock_guard<std::mutex> lock(s.mu);
  if (aclError rc = check_stamp(s, stamp, __func__)) return rc;
  if (s.running != nullptr)
    s.ranges.push_back(
        {static_cast<const Stamp*>(stamp)->message, thread_number(s), model_clock().now_us(), 0});
  return ACL_SUCCESS;
}

}  // extern "C"
