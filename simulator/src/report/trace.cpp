#include "report/trace.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <vector>

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
  return !state().path.empty();
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

void trace_write() {
  TraceState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.path.empty()) return;
  FILE* f = std::fopen(s.path.c_str(), "w");
  if (f == nullptr) {
    log(LogLevel::kError, "ACL_SIM_TRACE: cannot write '%s'", s.path.c_str());
    return;
  }
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
  for (const Slice& sl : s.slices) {
    std::fprintf(f, ",\n{\"name\":\"%s\",\"ph\":\"%c\",\"pid\":%d,\"tid\":%llu,\"ts\":%.3f",
                 escape(sl.name).c_str(), sl.ph, sl.pid, static_cast<unsigned long long>(sl.tid),
                 sl.ts);
    if (sl.ph == 'X') std::fprintf(f, ",\"dur\":%.3f", sl.dur);
    if (sl.ph == 'i') std::fprintf(f, ",\"s\":\"t\"");
    std::fprintf(f, ",\"args\":%s}", sl.args.c_str());
  }
  std::fprintf(f, "\n]}\n");
  std::fclose(f);
  log(LogLevel::kInfo, "trace: %zu slices written to %s", s.slices.size(), s.path.c_str());
  s.slices.clear();
}

}  // namespace sim
