// ascgen_report.cpp: what ascgen_report.h declares (README.md: how it is compiled).

#include "ascgen_report.h"

#include <fstream>

namespace ascgen {

void Progress::run_until(std::atomic<bool>& stop, const std::atomic<int64_t>& completed,
                         double start, double end) {
  const double t0 = now_s();
  int64_t last = 0;
  double next = t0 + 1.0;
  while (!stop && stop_signal() == 0 && now_s() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    double now = now_s();
    if (now < next) continue;
    int64_t done = completed.load();
    if (now >= start + 1.0)
      windows_.push_back(static_cast<double>(done - last) / (now - next + 1.0));
    if (!quiet_progress())
      std::fprintf(stderr, "progress: t=%.1fs frames=%" PRId64 " qps=%.1f\n", now - t0, done,
                   static_cast<double>(done - last) / (now - next + 1.0));
    last = done;
    next += 1.0;
  }
}

DeviceOutput*& device_output() {
  thread_local DeviceOutput* out = nullptr;
  return out;
}

void write_json(const std::string& text, const std::string& path) {
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
  if (path.empty()) return;
  std::ofstream f(path);
  f << text << "\n";
  f.close();
  if (!f) throw std::runtime_error("cannot write the JSON report to '" + path + "'");
}

void Report::write(const LatencyHistogram& latency, const std::string& path, bool quiet) const {
  (void)quiet;  // --quiet drops the progress lines only; the result is always printed
  if (DeviceOutput* out = device_output())
    out->report = json(latency);
  else
    write_json(json(latency), path);
}

}  // namespace ascgen
