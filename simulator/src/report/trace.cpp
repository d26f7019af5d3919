#include "report/trace.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/device.h"
#include "report/log.h"

namespace sim {
namespace {

struct Slice {
  std::string name;
  int pid;
  uint64_t tid;
  double ts, dur;
  char ph;  // 'X' or 'i'
  std::string args;
};

struct TraceState {
  std::mutex mu;
  std::string path;
  std::vector<Slice> slices;
  std::set<std::pair<int, uint64_t>> tracks;
  struct StreamTrack {
    uint64_t id;
    bool is_default;
    std::string name;  // aclsimSetStreamName; empty: none
  };
  std::vector<StreamTrack> streams;
  std::atomic<bool> profiling{false};
  size_t profile_from = 0;  // the first slice of the profiled period
  double profile_start = 0;
};

TraceState& state() {
  static TraceState s;
  return s;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out;
}

const char* kind_name(const Task& t) {
  switch (t.kind) {
    case TaskKind::kRecord:
      return "record";
    case TaskKind::kWait:
      return "wait";
    case TaskKind::kReset:
      return "reset";
    case TaskKind::kCallback:
      return "callback";
    default:
      return "task";
  }
}

}  // namespace

void trace_open() {
  TraceState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  const char* p = std::getenv("ACL_SIM_TRACE");
  s.path = p != nullptr ? p : "";
  s.slices.clear();
  s.tracks.clear();
  s.streams.clear();
}

bool trace_enabled() {
  return !state().path.empty() || state().profiling.load();
}

void trace_name_stream(uint64_t stream_id, bool is_default) {
  TraceState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.streams.push_back({stream_id, is_default, {}});
}

void trace_set_stream_name(uint64_t stream_id, const char* name) {
  TraceState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  for (auto it = s.streams.rbegin(); it != s.streams.rend(); ++it) {
    if (it->id == stream_id) {
      it->name = name != nullptr ? name : "";
      return;
    }
  }
}

void trace_task(const Task& t) {
  TraceState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  std::string name = t.spec.name.empty() ? kind_name(t) : t.spec.name;
  if (t.event_id != 0) name += " ev" + std::to_string(t.event_id);
  char args[256];
  std::snprintf(args, sizeof args,
                "{\"task\":%llu,\"arrive\":%.3f,\"ready\":%.3f,\"dispatch\":%.3f,\"start\":%.3f}",
                static_cast<unsigned long long>(t.id), t.arrive_at, t.ready_at, t.dispatch_at,
                t.start_at);
  if (t.stream != nullptr) {
    uint64_t tid = t.stream->id;
    s.slices.push_back({name, 1, tid, t.head_at, t.end_at - t.head_at, 'X', args});
    if (t.kind == TaskKind::kRecord) s.slices.push_back({name, 1, tid, t.end_at, 0, 'i', "{}"});
  }
  if (t.unit >= 0) {
    uint64_t tid = static_cast<uint64_t>(t.spec.engine) * 100 + t.unit;
    s.tracks.insert({2, tid});
    s.slices.push_back({name, 2, tid, t.start_at, t.end_at - t.start_at, 'X', args});
  }
}

namespace {

// The trace of `slices` [from, end) and `ranges` as one JSON document. Under s.mu.
void write_events(FILE* f, const TraceState& s, size_t from, const std::vector<HostRange>& ranges) {
  std::fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  std::fprintf(
      f,
      "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"streams\"}},\n"
      "{\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\",\"args\":{\"name\":\"engines\"}}");
  for (const auto& st : s.streams) {
    std::string track = "stream " + std::to_string(st.id) + (st.is_default ? " (default)" : "");
    if (!st.name.empty()) track = st.name + " (" + track + ")";
    std::fprintf(f,
                 ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%llu,\"name\":\"thread_name\","
                 "\"args\":{\"name\":\"%s\"}}",
                 static_cast<unsigned long long>(st.id), escape(track).c_str());
  }
  for (const auto& tr : s.tracks)
    std::fprintf(f,
                 ",\n{\"ph\":\"M\",\"pid\":2,\"tid\":%llu,\"name\":\"thread_name\","
                 "\"args\":{\"name\":\"%s unit %llu\"}}",
                 static_cast<unsigned long long>(tr.second),
                 engine_name(static_cast<Engine>(tr.second / 100)),
                 static_cast<unsigned long long>(tr.second % 100));
  for (size_t i = from; i < s.slices.size(); ++i) {
    const Slice& sl = s.slices[i];
    std::fprintf(f, ",\n{\"name\":\"%s\",\"ph\":\"%c\",\"pid\":%d,\"tid\":%llu,\"ts\":%.3f",
                 escape(sl.name).c_str(), sl.ph, sl.pid, static_cast<unsigned long long>(sl.tid),
                 sl.ts);
    if (sl.ph == 'X') std::fprintf(f, ",\"dur\":%.3f", sl.dur);
    if (sl.ph == 'i') std::fprintf(f, ",\"s\":\"t\"");
    std::fprintf(f, ",\"args\":%s}", sl.args.c_str());
  }
  if (!ranges.empty())
    std::fprintf(f,
                 ",\n{\"ph\":\"M\",\"pid\":3,\"name\":\"process_name\","
                 "\"args\":{\"name\":\"host threads (msproftx ranges)\"}}");
  std::set<uint64_t> threads;
  for (const HostRange& r : ranges) {
    if (threads.insert(r.thread).second)
      std::fprintf(f,
                   ",\n{\"ph\":\"M\",\"pid\":3,\"tid\":%llu,\"name\":\"thread_name\","
                   "\"args\":{\"name\":\"host thread %llu\"}}",
                   static_cast<unsigned long long>(r.thread),
                   static_cast<unsigned long long>(r.thread));
    std::fprintf(f, ",\n{\"name\":\"%s\",\"ph\":\"%s\",\"pid\":3,\"tid\":%llu,\"ts\":%.3f",
                 escape(r.name).c_str(), r.dur > 0 ? "X" : "i",
                 static_cast<unsigned long long>(r.thread), r.ts);
    if (r.dur > 0)
      std::fprintf(f, ",\"dur\":%.3f}", r.dur);
    else
      std::fprintf(f, ",\"s\":\"t\"}");
  }
  std::fprintf(f, "\n]}\n");
}

// Per range name and per engine unit, what the profiled period spent. Under s.mu.
void write_summary(FILE* f, const TraceState& s, double stop,
                   const std::vector<HostRange>& ranges) {
  struct Sum {
    int64_t count = 0;
    double total = 0;
  };
  std::map<std::string, Sum> by_name;
  for (const HostRange& r : ranges) {
    Sum& sum = by_name[r.name];
    ++sum.count;
    sum.total += r.dur;
  }
  std::map<uint64_t, Sum> by_unit;
  for (size_t i = s.profile_from; i < s.slices.size(); ++i) {
    const Slice& sl = s.slices[i];
    if (sl.pid != 2) continue;
    Sum& sum = by_unit[sl.tid];
    ++sum.count;
    sum.total += sl.dur;
  }
  std::fprintf(f, "{\"trace\":\"trace.json\",\"start_us\":%.3f,\"stop_us\":%.3f,\"ranges\":{",
               s.profile_start, stop);
  const char* sep = "";
  for (const auto& [name, sum] : by_name) {
    std::fprintf(f, "%s\n \"%s\":{\"count\":%lld,\"total_us\":%.3f,\"mean_us\":%.3f}", sep,
                 escape(name).c_str(), static_cast<long long>(sum.count), sum.total,
                 sum.total / static_cast<double>(sum.count));
    sep = ",";
  }
  std::fprintf(f, "},\"engines\":{");
  sep = "";
  const double period = stop > s.profile_start ? stop - s.profile_start : 0;
  for (const auto& [unit, sum] : by_unit) {
    std::fprintf(f, "%s\n \"%s unit %llu\":{\"tasks\":%lld,\"busy_us\":%.3f,\"busy_share\":%.4f}",
                 sep, engine_name(static_cast<Engine>(unit / 100)),
                 static_cast<unsigned long long>(unit % 100), static_cast<long long>(sum.count),
                 sum.total, period > 0 ? sum.total / period : 0.0);
    sep = ",";
  }
  std::fprintf(f, "}}\n");
}

}  // namespace

void trace_write() {
  TraceState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.path.empty()) return;
  FILE* f = std::fopen(s.path.c_str(), "w");
  if (f == nullptr) {
    log(LogLevel::kError, "ACL_SIM_TRACE: cannot write '%s'", s.path.c_str());
    return;
  }
  write_events(f, s, 0, {});
  std::fclose(f);
  log(LogLevel::kInfo, "trace: %zu slices written to %s", s.slices.size(), s.path.c_str());
  s.slices.clear();
}

void trace_profile_start() {
  TraceState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.profile_from = s.slices.size();
  s.profile_start = model_clock().now_us();
  s.profiling = true;
}

bool trace_profile_stop(const std::string& dir, const std::vector<HostRange>& ranges,
                        std::string* why) {
  TraceState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.profiling = false;
  const double stop = model_clock().now_us();
  bool ok = true;
  const std::pair<const char*, bool> files[] = {{"trace.json", true}, {"summary.json", false}};
  for (const auto& [name, events] : files) {
    const std::string path = dir + "/" + name;
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
      *why = "cannot write " + path + ": " + std::strerror(errno);
      ok = false;
      break;
    }
    if (events)
      write_events(f, s, s.profile_from, ranges);
    else
      write_summary(f, s, stop, ranges);
    std::fclose(f);
  }
  if (ok)
    log(LogLevel::kInfo, "profile: %zu slices and %zu ranges written to %s/trace.json",
        s.slices.size() - s.profile_from, ranges.size(), dir.c_str());
  if (s.path.empty()) s.slices.resize(s.profile_from);  // kept only for ACL_SIM_TRACE
  return ok;
}

}  // namespace sim
