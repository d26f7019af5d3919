// ascgen_report.cpp: the definitions ascgen_report.h declares, compiled apart from main.cpp: once
// per build configuration in ascgen's build cache (a library each program links), or by a program
// folder's own CMakeLists.txt. Emitted verbatim by ascgen with the header.

#include "ascgen_report.h"

namespace ascgen {

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
