// ascgen_devices.h: one program over several devices. deploy: processes: the parent starts a
// child per device (fork before any ACL call or thread, so the child starts clean and drives
// only its own device), forwards SIGINT/SIGTERM to every child and waits for all of them.
// deploy: threads: one process, a thread per device, each with its own context and run. Either
// way the devices' JSON reports merge into one: per device, and in total. A device that fails
// is named with its error; the others' results are kept. Emitted verbatim by ascgen.
#ifndef ASCGEN_DEVICES_H_
#define ASCGEN_DEVICES_H_

#include <sys/wait.h>

#include <atomic>
#include <cinttypes>
#include <memory>
#include <sstream>

#include "acl/acl.h"
#include "ascgen_metrics.h"
#include "ascgen_options.h"
#include "ascgen_report.h"
#include "ascgen_signals.h"
#if ASCGEN_BACKEND_SIM
#include "acl_sim/acl_sim.h"
#endif

namespace ascgen {

// "0,2,3" -> {0, 2, 3}; a usage error (exit 2) on anything else.
inline std::vector<int32_t> parse_devices(const char* program, const std::string& text) {
  std::vector<int32_t> out;
  std::stringstream all(text);
  std::string item;
  while (std::getline(all, item, ',')) {
    int64_t v = 0;
    if (!parse_int(item, 0, 63, &v))
      usage_error(program,
                  "--devices takes device ids 0..63 separated by commas, not '" + text + "'");
    if (std::find(out.begin(), out.end(), v) != out.end())
      usage_error(program, "--devices lists device " + item + " twice");
    out.push_back(static_cast<int32_t>(v));
  }
  if (out.empty()) usage_error(program, "--devices needs at least one device id");
  return out;
}

// ---------------------------------------------------------------- reading a child's report

// The value after the first (or, from_end, last) `"key": ` of a report: keys written before
// its "stages" object are read from the front, those after it from the back, so a stage named
// like a key cannot be mistaken for it.
inline const char* json_value(const std::string& doc, const char* key, bool from_end) {
  const std::string k = std::string("\"") + key + "\": ";
  const size_t at = from_end ? doc.rfind(k) : doc.find(k);
  return at == std::string::npos ? nullptr : doc.c_str() + at + k.size();
}

inline double json_num(const std::string& doc, const char* key, bool from_end) {
  const char* v = json_value(doc, key, from_end);
  return v == nullptr ? 0.0 : std::strtod(v, nullptr);
}

inline bool json_true(const std::string& doc, const char* key) {
  const char* v = json_value(doc, key, true);
  return v != nullptr && std::strncmp(v, "true", 4) == 0;
}

// The numbers of a flat array, or of an array of pairs, after `key`, up to its closing bracket.
inline std::vector<double> json_numbers(const std::string& doc, const char* key, bool from_end) {
  std::vector<double> out;
  const char* p = json_value(doc, key, from_end);
  if (p == nullptr || *p != '[') return out;
  int depth = 0;
  for (; *p != '\0'; ++p) {
    if (*p == '[') ++depth;
    if (*p == ']' && --depth == 0) break;
    if (*p == '-' || (*p >= '0' && *p <= '9')) {
      char* end = nullptr;
      out.push_back(std::strtod(p, &end));
      p = end - 1;
    }
  }
  return out;
}

// The "stages" object: name -> count, in the report's order.
inline std::vector<std::pair<std::string, int64_t>> json_stages(const std::string& doc) {
  std::vector<std::pair<std::string, int64_t>> out;
  const char* p = json_value(doc, "stages", false);
  if (p == nullptr || *p != '{') return out;
  while (*p != '}' && *p != '\0') {
    const char* q = std::strchr(p, '"');
    if (q == nullptr) break;
    const char* e = std::strchr(q + 1, '"');
    if (e == nullptr) break;
    char* end = nullptr;
    const int64_t n = std::strtoll(e + 3, &end, 10);  // after `": `
    out.emplace_back(std::string(q + 1, e), n);
    p = end;
  }
  return out;
}

inline std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  std::string text = s.str();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// ---------------------------------------------------------------- the parent

struct DeviceChild {
  int32_t device = 0;
  pid_t pid = -1;
  int status = -1;  // exit status (128 + signal when killed)
  std::string json_path, error_path;
};

inline int exit_status_of(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 3;
}

// The merged report: the same top-level fields as one device's (so tools read it alike), the
// totals over the devices that completed, and "devices": each child's status, error and report.
// `head`: the program's fields of a report (program, profile, streams, threads, ...).
inline void write_merged(const Report& head, const Options& opt,
                         const std::vector<DeviceChild>& children, const char* deploy) {
  LatencyHistogram latency;
  double qps = 0, duration = 0, host_cpu = 0, process_cpu = 0;
  int64_t frames = 0, memory = 0, frames_failed = 0;
  bool interrupted = stop_signal() != 0, verified = true, any_verified = false;
  std::vector<double> windows;
  std::vector<double> window_latency;  // per second: the worst device's p99 and max
  std::vector<std::pair<std::string, int64_t>> stages;
  std::vector<std::string> docs;
  for (const DeviceChild& c : children) {
    docs.push_back(c.status == 0 || c.status >= 128 ? read_text(c.json_path) : "");
    const std::string& d = docs.back();
    if (d.empty()) continue;
    qps += json_num(d, "qps", false);
    frames += static_cast<int64_t>(json_num(d, "frames", false));
    duration = std::max(duration, json_num(d, "duration_s", false));
    const std::vector<double> h = json_numbers(d, "latency_histogram_us", false);
    const double max_us = json_num(d, "max", false) * 1000.0;
    for (size_t i = 0; i + 1 < h.size(); i += 2)
      latency.add_bucket(static_cast<uint64_t>(h[i]), static_cast<uint64_t>(h[i + 1]), max_us);
    host_cpu += json_num(d, "host_cpu_s", true);
    process_cpu += json_num(d, "process_cpu_s", true);
    memory += static_cast<int64_t>(json_num(d, "device_memory_bytes", true));
    frames_failed += static_cast<int64_t>(json_num(d, "frames_failed", true));
    interrupted = interrupted || json_true(d, "interrupted");
    const char* v = json_value(d, "verified", true);
    if (v != nullptr && std::strncmp(v, "null", 4) != 0) {
      any_verified = true;
      verified = verified && std::strncmp(v, "true", 4) == 0;
    }
    const std::vector<double> w = json_numbers(d, "windows_qps", true);
    if (windows.size() < w.size()) windows.resize(w.size(), 0.0);
    for (size_t i = 0; i < w.size(); ++i) windows[i] += w[i];
    const std::vector<double> l = json_numbers(d, "windows_latency_ms", true);  // p99, max, ...
    if (window_latency.size() < l.size()) window_latency.resize(l.size(), 0.0);
    for (size_t i = 0; i < l.size(); ++i) window_latency[i] = std::max(window_latency[i], l[i]);
    for (const auto& [name, n] : json_stages(d)) {
      auto it = std::find_if(stages.begin(), stages.end(),
                             [&name = name](const auto& s) { return s.first == name; });
      if (it == stages.end())
        stages.emplace_back(name, n);
      else
        it->second += n;
    }
  }
  Json j;
  j.open('{');
  j.key("schema_version").integer(1).key("program").str(head.program).key("backend");
  j.str(Report::backend()).key("profile").str(head.profile).key("streams").str(head.streams);
  j.key("threads").integer(head.threads).key("depth").integer(head.depth);
  j.key("batch").integer(head.batch).key("sync_every").integer(head.sync_every);
  j.key("deploy").str(deploy).key("frames").integer(frames).key("duration_s").num(duration);
  j.key("qps").num(qps).key("latency_ms").open('{');
  j.key("p50").num(latency.percentile_ms(50)).key("p90").num(latency.percentile_ms(90));
  j.key("p99").num(latency.percentile_ms(99)).key("max").num(latency.max_ms()).close('}');
  j.key("latency_histogram_us").open('[');
  latency.for_each_bucket([&j](uint64_t upper, uint64_t n) {
    j.open('[').integer(static_cast<int64_t>(upper)).integer(static_cast<int64_t>(n)).close(']');
  });
  j.close(']').key("stages").open('{');
  for (const auto& [name, n] : stages) j.key(name.c_str()).integer(n);
  j.close('}').key("host_cpu_s").num(host_cpu).key("process_cpu_s").num(process_cpu);
  j.key("device_memory_bytes").integer(memory).key("windows_qps").open('[');
  for (double w : windows) j.num(w);
  j.close(']').key("windows_latency_ms").open('[');
  for (size_t i = 0; i + 1 < window_latency.size(); i += 2)
    j.open('[').num(window_latency[i]).num(window_latency[i + 1]).close(']');
  j.close(']').key("frames_failed").integer(frames_failed).key("first_failure").null();
  j.key("interrupted").boolean(interrupted).key("verified");
  if (any_verified)
    j.boolean(verified);
  else
    j.null();
  j.key("devices").open('[');
  for (size_t i = 0; i < children.size(); ++i) {
    const DeviceChild& c = children[i];
    j.open('{').key("device").integer(c.device).key("exit_status").integer(c.status);
    const std::string error = read_text(c.error_path);
    j.key("error");
    if (error.empty())
      j.null();
    else
      j.str(error);
    j.key("report").raw(docs[i].empty() ? "null" : docs[i]).close('}');
  }
  j.close(']').close('}');
  std::printf("%s\n", j.text().c_str());
  std::fflush(stdout);
  if (!opt.json_path.empty()) {
    std::ofstream f(opt.json_path);
    f << j.text() << "\n";
    f.close();
    if (!f) throw std::runtime_error("cannot write the JSON report to '" + opt.json_path + "'");
  }
}

// Starts run_one(options for device d) in a child process per device and merges the reports.
// Exit status: 0 when every device succeeded, else the first failed device's.
// A folder for the devices' reports and error lines, each device's paths in it.
inline std::vector<DeviceChild> device_files(const std::vector<int32_t>& devices,
                                             std::string* dir) {
  char dir_template[] = "/tmp/ascgen-devices.XXXXXX";
  if (mkdtemp(dir_template) == nullptr)
    throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  *dir = dir_template;
  std::vector<DeviceChild> out;
  for (int32_t d : devices) {
    DeviceChild c;
    c.device = d;
    const std::string base = *dir + "/device" + std::to_string(d);
    c.json_path = base + ".json";
    c.error_path = base + ".error";
    out.push_back(c);
  }
  return out;
}

// One device's options: its id, where its report and error line go.
inline Options device_options(const Options& opt, const DeviceChild& c) {
  Options one = opt;
  one.devices = std::to_string(c.device);
  one.json_path = c.json_path;
  one.error_path = c.error_path;
  return one;
}

// Names every failed device, merges the reports, removes the files; the exit status: 0 when
// every device succeeded, else the first failed device's (a device stopped by the signal `sig`
// counts as interrupted, not failed).
inline int finish_devices(const Report& head, const Options& opt,
                          const std::vector<DeviceChild>& children, const std::string& dir, int sig,
                          const char* deploy) {
  int status = 0;
  for (const DeviceChild& c : children) {
    if (c.status == 0) continue;
    if (sig != 0 && c.status == 128 + sig) {
      if (status == 0) status = c.status;
      continue;
    }
    const std::string error = read_text(c.error_path);
    std::fprintf(stderr, "%s: device %d failed (exit status %d)%s%s\n", head.program, c.device,
                 c.status, error.empty() ? "" : ": ", error.c_str());
    if (status == 0) status = c.status;
  }
  write_merged(head, opt, children, deploy);
  for (const DeviceChild& c : children) {
    unlink(c.json_path.c_str());
    unlink(c.error_path.c_str());
  }
  rmdir(dir.c_str());
  return status;
}

// deploy: processes. Starts run_one(options for device d) in a child process per device.
template <class RunOne>
int run_devices(const Report& head, const Options& opt, const std::vector<int32_t>& devices,
                RunOne run_one) {
  std::string dir;
  const std::vector<DeviceChild> planned = device_files(devices, &dir);
  std::vector<DeviceChild> children;
#if ASCGEN_BACKEND_SIM
  // The children are one simulated machine: their devices' copies share the cards' host links
  // as on a real host (simulator/src/links/machine.h), unless the caller named the machine
  // already.
  const std::string machine = "ascgen-" + std::to_string(getpid());
  const bool named = std::getenv("ACL_SIM_MACHINE") == nullptr;
  if (named) setenv("ACL_SIM_MACHINE", machine.c_str(), 1);
#endif
  std::fflush(stdout);
  std::fflush(stderr);
  for (size_t i = 0; i < planned.size() && stop_signal() == 0; ++i) {
    DeviceChild c = planned[i];
    c.pid = fork();
    if (c.pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (c.pid == 0) {
      // The child: its report goes to its file (stdout stays the parent's), progress lines from
      // the first device only.
      if (std::freopen("/dev/null", "w", stdout) == nullptr) _exit(3);
      Options one = device_options(opt, c);
      one.quiet = opt.quiet || i > 0;
      quiet_progress() = one.quiet;
      const int status = run_one(one);
      std::fflush(stderr);
      _exit(status);
    }
    children.push_back(c);
  }
  // Wait for every child; a signal to the parent reaches each child still running.
  int forwarded = 0;
  size_t running = children.size();
  while (running > 0) {
    const int sig = stop_signal();
    if (sig != 0 && sig != forwarded) {
      for (const DeviceChild& c : children)
        if (c.status < 0) kill(c.pid, sig);
      forwarded = sig;
    }
    for (DeviceChild& c : children) {
      int ws = 0;
      if (c.status >= 0 || waitpid(c.pid, &ws, WNOHANG) != c.pid) continue;
      c.status = exit_status_of(ws);
      --running;
    }
    if (running > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
#if ASCGEN_BACKEND_SIM
  if (named) aclsimMachineRemove(machine.c_str());  // a child that died did not remove it
#endif
  int status = finish_devices(head, opt, children, dir, forwarded, "processes");
  if (status == 0 && children.size() < devices.size()) status = 128 + stop_signal();
  return status;
}

// deploy: threads. One process drives every device: AscendCL initialised once, then a thread
// per device runs run_one(options, its RunState) with its own context, workers, report thread
// and state; one progress line per second sums the devices. RunState: the driver's Run.
template <class RunState, class RunOne>
int run_device_threads(const Report& head, const Options& opt, const std::vector<int32_t>& devices,
                       RunOne run_one) {
  std::string dir;
  std::vector<DeviceChild> children = device_files(devices, &dir);
  const aclError init = aclInit(nullptr);
  if (init != ACL_SUCCESS)
    throw std::runtime_error("setup: aclInit failed with error " + std::to_string(init));
  quiet_progress() = true;  // the devices' own lines; this thread prints their sum
  std::vector<std::unique_ptr<RunState>> runs;
  std::vector<std::atomic<bool>> done(children.size());
  for (std::atomic<bool>& d : done) d = false;
  for (size_t i = 0; i < children.size(); ++i) runs.push_back(std::make_unique<RunState>());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < children.size(); ++i) {
    threads.emplace_back([&, i] {
      children[i].status = run_one(device_options(opt, children[i]), *runs[i]);
      done[i] = true;
    });
  }
  const double t0 = now_s();
  double next = t0 + 1.0;
  int64_t last = 0;
  while (
      !std::all_of(done.begin(), done.end(), [](const std::atomic<bool>& d) { return d.load(); })) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const double now = now_s();
    if (now < next) continue;
    int64_t frames = 0;
    for (const auto& r : runs) frames += r->completed.load();
    if (!opt.quiet)
      std::fprintf(stderr, "progress: t=%.1fs frames=%" PRId64 " qps=%.1f\n", now - t0, frames,
                   static_cast<double>(frames - last) / (now - next + 1.0));
    last = frames;
    next += 1.0;
  }
  for (std::thread& t : threads) t.join();
  const aclError fin = aclFinalize();
  int status = finish_devices(head, opt, children, dir, stop_signal(), "threads");
  if (fin != ACL_SUCCESS) {
    std::fprintf(stderr, "%s: cleanup: aclFinalize failed with error %d\n", head.program, fin);
    if (status == 0) status = 3;
  }
  return status;
}

}  // namespace ascgen

#endif  // ASCGEN_DEVICES_H_
