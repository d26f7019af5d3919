// ascgen_devices.h: one program over several devices. deploy: processes: the parent starts a
// child per device (fork before any ACL call or thread, so the child starts clean and drives
// only its own device), forwards SIGINT/SIGTERM to every child and waits for all of them; each
// child sends its report and error line up a pipe (no temporary file) and gets SIGTERM when its
// parent dies (PR_SET_PDEATHSIG), so a killed parent leaves no device running on.
// deploy: threads: one process, a thread per device, each with its own context and run. Either
// way the devices' JSON reports merge into one: per device, and in total. A device that fails
// is named with its error; the others' results are kept. Emitted verbatim by ascgen.
#ifndef ASCGEN_DEVICES_H_
#define ASCGEN_DEVICES_H_

#include <dirent.h>
#include <poll.h>
#include <sys/prctl.h>
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
std::vector<int32_t> parse_devices(const char* program, const std::string& text);

// ---------------------------------------------------------------- reading a child's report

// The value after the first (or, from_end, last) `"key": ` of a report: keys written before
// its "stages" object are read from the front, those after it from the back, so a stage named
// like a key cannot be mistaken for it.
const char* json_value(const std::string& doc, const char* key, bool from_end);

double json_num(const std::string& doc, const char* key, bool from_end);

bool json_true(const std::string& doc, const char* key);

// The numbers of a flat array, or of an array of pairs, after `key`, up to its closing bracket.
std::vector<double> json_numbers(const std::string& doc, const char* key, bool from_end);

// The "stages" object: name -> count, in the report's order.
std::vector<std::pair<std::string, int64_t>> json_stages(const std::string& doc);

// ---------------------------------------------------------------- the parent

struct DeviceChild {
  int32_t device = 0;
  pid_t pid = -1;
  int status = -1;       // exit status (128 + signal when killed)
  int killed_by = 0;     // the signal that killed it (it did not exit)
  DeviceOutput out;      // its report ("" if it wrote none) and error line
  int pipe = -1;         // deploy: processes: the read end of the child's pipe, until its end
  std::string received;  // what came up the pipe (its header, error line and report)
};

int exit_status_of(int wait_status);

// The merged report: the same top-level fields as one device's (so tools read it alike), the
// totals over the devices that completed, and "devices": each child's status, error and report.
// `head`: the program's fields of a report (program, profile, streams, threads, ...).
void write_merged(const Report& head, const Options& opt, const std::vector<DeviceChild>& children,
                  const char* deploy);

// One device's options: its id; its report and error line go to its DeviceOutput.
Options device_options(const Options& opt, const DeviceChild& c);

// Names every failed device (with its reason) and merges the reports; the exit status: 0 when
// every device succeeded, else the first failed device's (a device stopped by the signal `sig`
// counts as interrupted, not failed).
int finish_devices(const Report& head, const Options& opt, const std::vector<DeviceChild>& children,
                   int sig, const char* deploy);

// ---------------------------------------------------------------- deploy: processes

// A child's message up its pipe: "<error bytes> <report bytes>\n", the error line, the report.
// At most kMaxDeviceMessage bytes are kept (a report is far smaller; beyond: not a report).
constexpr size_t kMaxDeviceMessage = size_t{64} << 20;

void send_device_output(int fd, const DeviceOutput& out);

// The DeviceOutput in what a child sent, if it arrived whole (a child killed mid-way sent part).
bool received_output(const std::string& msg, DeviceOutput* out);

// Reads what the children sent so far (waiting at most `wait_ms` for any); closes a pipe at its
// end.
void read_children(std::vector<DeviceChild>& children, int wait_ms);

#if ASCGEN_BACKEND_SIM
// The simulated machine's shared memory that an earlier run of a program left behind when its
// parent was killed (its children may die too, before the last of them removes it): removed,
// and named. Only machines named by a parent that is gone (ascgen-<pid>, no such process).
void sweep_machines(const char* program);
#endif

// The child's side: dies with its parent, reports up the pipe, never returns.
template <class RunOne>
[[noreturn]] void run_child(const Options& opt, const DeviceChild& c, bool first, int fd,
                            pid_t parent, RunOne& run_one) {
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

// deploy: processes. Starts run_one(options for device d) in a child process per device.
template <class RunOne>
int run_devices(const Report& head, const Options& opt, const std::vector<int32_t>& devices,
                RunOne run_one) {
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

// deploy: threads. One process drives every device: AscendCL initialised once, then a thread
// per device runs run_one(options, its RunState) with its own context, workers, report thread
// and state; one progress line per second sums the devices. RunState: the driver's Run.
template <class RunState, class RunOne>
int run_device_threads(const Report& head, const Options& opt, const std::vector<int32_t>& devices,
                       RunOne run_one) {
  std::vector<DeviceChild> children(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) children[i].device = devices[i];
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

#endif  // ASCGEN_DEVICES_H_
