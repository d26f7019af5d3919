// ascgen_report.h: the progress lines of a run (one per second on stderr) and its result, one
// JSON document on stdout and in --json's file. No AscendCL here.
// Emitted verbatim by ascgen; hand-written, reviewed once, shared by every pipeline.
#ifndef ASCGEN_REPORT_H_
#define ASCGEN_REPORT_H_

#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ascgen_json.h"
#include "ascgen_metrics.h"
#include "ascgen_options.h"
#include "ascgen_signals.h"

namespace ascgen {

// Prints one progress line per second on stderr and keeps the measured QPS of each window.
class Progress {
 public:
  // Returns when `stop` is set, a signal arrives or the measuring window ends.
  void run_until(std::atomic<bool>& stop, const std::atomic<int64_t>& completed, double start,
                 double end);
  const std::vector<double>& windows() const { return windows_; }

 private:
  std::vector<double> windows_;
};

struct StageCount {
  const char* name;
  int64_t count;
};

// The program's result: one JSON document (schema_version 1), to stdout and/or a file.
struct Report {
  const char* program = "";
  const char* profile = "";
  const char* streams = "";
  int threads = 0, depth = 0, batch = 0, sync_every = 0;
  int64_t frames = 0;
  double duration_s = 0, host_cpu_s = 0, process_cpu_s = 0;
  double qps = -1;  // the completion rate (CompletionRate); < 0: frames / duration_s
  int64_t device_memory_bytes = 0;
  bool interrupted = false;
  int verified = -1;                // -1 not asked, 0 mismatch, 1 every output matched
  int64_t frames_failed = 0;        // frames whose decode reported a non-zero result code
  std::string first_failure_input;  // the input of the first of them, and its code
  int64_t first_failure_code = 0;
  std::vector<double> windows_qps;
  std::vector<std::pair<double, double>> windows_latency;  // per second measured: p99, max (ms)
  std::vector<StageCount> stages;
  std::function<void(Json&)> more;  // adds keys to the object (a server's "serving")

  // To stdout and to `path` (if any); one device of several hands it to its device_output()
  // instead, for the parent's merged report.
  void write(const LatencyHistogram& latency, const std::string& path, bool quiet) const;
  std::string json(const LatencyHistogram& latency) const {
    Json j;
    j.open('{');
    j.key("schema_version").integer(1).key("program").str(program).key("backend").str(backend());
    j.key("profile").str(profile).key("streams").str(streams).key("threads").integer(threads);
    j.key("depth").integer(depth).key("batch").integer(batch).key("sync_every").integer(sync_every);
    j.key("frames").integer(frames).key("duration_s").num(duration_s);
    j.key("qps").num(qps >= 0         ? qps
                     : duration_s > 0 ? static_cast<double>(frames) / duration_s
                                      : 0.0);
    j.key("latency_ms").open('{');
    j.key("p50").num(latency.percentile_ms(50)).key("p90").num(latency.percentile_ms(90));
    j.key("p99").num(latency.percentile_ms(99)).key("max").num(latency.max_ms()).close('}');
    j.key("latency_histogram_us").open('[');
    latency.for_each_bucket([&j](uint64_t upper, uint64_t n) {
      j.open('[').integer(static_cast<int64_t>(upper)).integer(static_cast<int64_t>(n)).close(']');
    });
    j.close(']');
    j.key("stages").open('{');
    for (const StageCount& s : stages) j.key(s.name).integer(s.count);
    j.close('}');
    j.key("host_cpu_s").num(host_cpu_s).key("process_cpu_s").num(process_cpu_s);
    j.key("device_memory_bytes").integer(device_memory_bytes);
    j.key("windows_qps").open('[');
    for (double w : windows_qps) j.num(w);
    j.close(']');
    j.key("windows_latency_ms").open('[');  // [p99, max] per second: a spike shows here
    for (const auto& [p99, max] : windows_latency) j.open('[').num(p99).num(max).close(']');
    j.close(']');
    j.key("frames_failed").integer(frames_failed).key("first_failure");
    if (frames_failed == 0) {
      j.null();
    } else {
      j.open('{')
          .key("input")
          .str(first_failure_input.c_str())
          .key("code")
          .integer(first_failure_code)
          .close('}');
    }
    j.key("interrupted").boolean(interrupted).key("verified");
    if (verified < 0)
      j.null();
    else
      j.boolean(verified == 1);
    if (more) more(j);
    j.close('}');
    return j.text();
  }
  static const char* backend() {
#if ASCGEN_BACKEND_SIM
    return "simulator";
#else
    return "cann";
#endif
  }
};

// What one device of several leaves for the parent that merges their reports: its report and
// its error line, in memory (deploy: threads, set on the device's thread) or sent up a pipe
// (deploy: processes, set in the device's process). nullptr: the program's only device.
struct DeviceOutput {
  std::string report;
  std::string error;
};

DeviceOutput*& device_output();

// A JSON document to stdout and, if given, to a file; a failed write is an error.
void write_json(const std::string& text, const std::string& path);

}  // namespace ascgen

#endif  // ASCGEN_REPORT_H_
