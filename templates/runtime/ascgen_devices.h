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
#include <functional>
#include <memory>

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

// deploy: processes. Starts run_one(options for device d) in a child process per device.
int run_devices(const Report& head, const Options& opt, const std::vector<int32_t>& devices,
                const std::function<int(const Options&)>& run_one);

struct Run;
// deploy: threads. One process drives every device: AscendCL initialised once, then a thread
// per device runs run_one(options, its Run: ascgen_driver.h) with its own context, workers,
// report thread and state; one progress line per second sums the devices.
int run_device_threads(const Report& head, const Options& opt, const std::vector<int32_t>& devices,
                       const std::function<int(const Options&, Run&)>& run_one);

}  // namespace ascgen

#endif  // ASCGEN_DEVICES_H_
