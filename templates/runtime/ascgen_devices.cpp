// ascgen_devices.cpp: what ascgen_devices.h declares (README.md: how it is compiled).

#include "ascgen_devices.h"

#include <sstream>

#include "ascgen_driver.h"  // Run

namespace ascgen {

std::vector<int32_t> parse_devices(const char* program, const std::string& text) {
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

const char* json_value(const std::string& doc, const char* key, bool from_end) {
  const std::string k = std::string("\"") + key + "\": ";
  const size_t at = from_end ? doc.rfind(k) : doc.find(k);
  return at == std::string::npos ? nullptr : doc.c_str() + at + k.size();
}

double json_num(const std::string& doc, const char* key, bool from_end) {
  const char* v = json_value(doc, key, from_end);
  return v == nullptr ? 0.0 : std::strtod(v, nullptr);
}

bool json_true(const std::string& doc, const char* key) {
  const char* v = json_value(doc, key, true);
  return v != nullptr && std::strncmp(v, "true", 4) == 0;
}

std::vector<double> json_numbers(const std::string& doc, const char* key, bool from_end) {
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

std::vector<std::pair<std::string, int64_t>> json_stages(const std::string& doc) {
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

int exit_status_of(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 3;
}

void write_merged(const Report& head, const Options& opt, const std::vector<DeviceChild>& children,
                  const char* deploy) {
  LatencyHistogram latency;
  double qps = 0, duration = 0, host_cpu = 0, process_cpu = 0;
  int64_t frames = 0, memory = 0, frames_failed = 0;
  bool interrupted = stop_signal() != 0, verified = true, any_verified = false;
  std::vector<double> windows;
  std::vector<double> window_latency;  // per second: the worst device's p99 and max
  std::vector<std::pair<std::string, int64_t>> stages;
  std::vector<std::string> docs;
  for (const DeviceChild& c : children) {
    docs.push_back(c.out.report);  // any complete report, also of a device that failed at exit
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
    const std::string& error = c.out.error;
    j.key("error");
    if (error.empty())
      j.null();
    else
      j.str(error);
    j.key("report").raw(docs[i].empty() ? "null" : docs[i]).close('}');
  }
  j.close(']').close('}');
  write_json(j.text(), opt.json_path);
}

Options device_options(const Options& opt, const DeviceChild& c) {
  Options one = opt;
  one.devices = std::to_string(c.device);
  one.json_path.clear();
  return one;
}

int finish_devices(const Report& head, const Options& opt, const std::vector<DeviceChild>& children,
                   int sig, const char* deploy) {
  int status = 0;
  for (const DeviceChild& c : children) {
    if (c.status == 0) continue;
    if (sig != 0 && c.status == 128 + sig) {
      if (status == 0) status = c.status;
      continue;
    }
    const std::string why = !c.out.error.empty() ? c.out.error
                            : c.killed_by != 0   ? "killed by signal " + std::to_string(c.killed_by)
                                                 : "";
    std::fprintf(stderr, "%s: device %d failed (exit status %d)%s%s\n", head.program, c.device,
                 c.status, why.empty() ? "" : ": ", why.c_str());
    if (status == 0) status = c.status;
  }
  write_merged(head, opt, children, deploy);
  return status;
}

void send_device_output(int fd, const DeviceOutput& out) {
  const std::string msg = std::to_string(out.error.size()) + " " +
                          std::to_string(out.report.size()) + "\n" + out.error + out.report;
  for (size_t at = 0; at < msg.size();) {
    const ssize_t n = write(fd, msg.data() + at, msg.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone (SIGPIPE ignored): nobody to tell
    at += static_cast<size_t>(n);
  }
}

bool received_output(const std::string& msg, DeviceOutput* out) {
  const size_t eol = msg.find('\n');
  if (eol == std::string::npos) return false;
  char* end = nullptr;
  const unsigned long long error = std::strtoull(msg.c_str(), &end, 10);
  const unsigned long long report = std::strtoull(end, &end, 10);
  if (end != msg.c_str() + eol || error + report != msg.size() - eol - 1) return false;
  out->error = msg.substr(eol + 1, error);
  out->report = msg.substr(eol + 1 + error);
  return true;
}

void read_children(std::vector<DeviceChild>& children, int wait_ms) {
  std::vector<pollfd> fds;
  for (const DeviceChild& c : children)
    if (c.pipe >= 0) fds.push_back({c.pipe, POLLIN, 0});
  if (fds.empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    return;
  }
  if (poll(fds.data(), fds.size(), wait_ms) <= 0) return;
  char buf[65536];
  for (DeviceChild& c : children) {
    if (c.pipe < 0) continue;
    const ssize_t n = read(c.pipe, buf, sizeof buf);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n > 0 && c.received.size() + static_cast<size_t>(n) <= kMaxDeviceMessage) {
      c.received.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n > 0) c.received.clear();  // too long to be a report: dropped
    if (n > 0) continue;
    close(c.pipe);  // its end (or an error)
    c.pipe = -1;
  }
}

#if ASCGEN_BACKEND_SIM
void sweep_machines(const char* program) {
  DIR* d = opendir("/dev/shm");
  if (d == nullptr) return;
  const std::string prefix = "acl_sim_machine.ascgen-";
  std::vector<std::string> gone;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    int64_t pid = 0;
    if (name.compare(0, prefix.size(), prefix) != 0 ||
        !parse_int(name.substr(prefix.size()), 1, 4194304, &pid))
      continue;
    if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) gone.push_back(name);
  }
  closedir(d);
  for (const std::string& name : gone) {
    aclsimMachineRemove(name.substr(std::strlen("acl_sim_machine.")).c_str());
    std::fprintf(stderr, "%s: removed /dev/shm/%s, left by a run whose parent was killed\n",
                 program, name.c_str());
  }
}
#endif

// The child's side: dies with its parent, reports up the pipe, never returns.
[[noreturn]] static void run_child(const Options& opt, const DeviceChild& c, bool first, int fd,
                                   pid_t parent,
                                   const std::function<int(const Options&)>& run_one) {
  // SIGTERM when the parent dies, as if it had forwarded one: the run stops and drains.
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(128 + SIGTERM);
  signal(SIGPIPE, SIG_IGN);  // a write to a parent that is gone fails instead of killing
  // Its report goes up the pipe (stdout stays the parent's), progress lines from the first
  // device only.
  if (std::freopen("/dev/null", "w", stdout) == nullptr) _exit(3);
  Options one = device_options(opt, c);
  one.quiet = opt.quiet || !first;
  quiet_progress() = one.quiet;
  DeviceOutput out;
  device_output() = &out;
  const int status = run_one(one);
  std::fflush(stderr);
  send_device_output(fd, out);
  _exit(status);
}

int run_devices(const Report& head, const Options& opt, const std::vector<int32_t>& devices,
                const std::function<int(const Options&)>& run_one) {
  std::vector<DeviceChild> children;
#if ASCGEN_BACKEND_SIM
  // The children are one simulated machine: their devices' copies share the cards' host links
  // as on a real host (simulator/src/links/machine.h), unless the caller named the machine
  // already.
  const std::string machine = "ascgen-" + std::to_string(getpid());
  const bool named = std::getenv("ACL_SIM_MACHINE") == nullptr;
  if (named) {
    sweep_machines(head.program);
    setenv("ACL_SIM_MACHINE", machine.c_str(), 1);
  }
#endif
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = getpid();
  for (size_t i = 0; i < devices.size() && stop_signal() == 0; ++i) {
    DeviceChild c;
    c.device = devices[i];
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    c.pid = fork();
    if (c.pid < 0) {
      close(fds[0]);
      close(fds[1]);
      throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    }
    if (c.pid == 0) {
      close(fds[0]);
      for (const DeviceChild& other : children) close(other.pipe);  // the parent's read ends
      run_child(opt, c, i == 0, fds[1], parent, run_one);
    }
    close(fds[1]);
    c.pipe = fds[0];
    fcntl(c.pipe, F_SETFL, O_NONBLOCK);
    children.push_back(std::move(c));
  }
  // Read the children's pipes until every child ended and sent all it had; a signal to the
  // parent reaches each child still running.
  int forwarded = 0;
  for (;;) {
    const int sig = stop_signal();
    if (sig != 0 && sig != forwarded) {
      for (const DeviceChild& c : children)
        if (c.status < 0) kill(c.pid, sig);
      forwarded = sig;
    }
    bool open = false;
    for (DeviceChild& c : children) {
      int ws = 0;
      if (c.status < 0 && waitpid(c.pid, &ws, WNOHANG) == c.pid) {
        c.status = exit_status_of(ws);
        c.killed_by = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
      }
      open = open || c.status < 0 || c.pipe >= 0;
    }
    if (!open) break;
    read_children(children, 20);
  }
  for (DeviceChild& c : children)
    if (!received_output(c.received, &c.out)) c.out = DeviceOutput{};
#if ASCGEN_BACKEND_SIM
  if (named) aclsimMachineRemove(machine.c_str());  // a child that died did not remove it
#endif
  int status = finish_devices(head, opt, children, forwarded, "processes");
  if (status == 0 && children.size() < devices.size()) status = 128 + stop_signal();
  return status;
}

int run_device_threads(const Report& head, const Options& opt, const std::vector<int32_t>& devices,
                       const std::function<int(const Options&, Run&)>& run_one) {
  std::vector<DeviceChild> children(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) children[i].device = devices[i];
  const aclError init = aclInit(nullptr);
  if (init != ACL_SUCCESS)
    throw std::runtime_error("setup: aclInit failed with error " + std::to_string(init));
  quiet_progress() = true;  // the devices' own lines; this thread prints their sum
  std::vector<std::unique_ptr<Run>> runs;
  std::vector<std::atomic<bool>> done(children.size());
  for (std::atomic<bool>& d : done) d = false;
  for (size_t i = 0; i < children.size(); ++i) runs.push_back(std::make_unique<Run>());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < children.size(); ++i) {
    threads.emplace_back([&, i] {
      device_output() = &children[i].out;
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
  int status = finish_devices(head, opt, children, stop_signal(), "threads");
  if (fin != ACL_SUCCESS) {
    std::fprintf(stderr, "%s: cleanup: aclFinalize failed with error %d\n", head.program, fin);
    if (status == 0) status = 3;
  }
  return status;
}

}  // namespace ascgen
