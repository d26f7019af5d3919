// ascgen_profile.h: --profile DIR, a device profile of the run (AscendCL's profiling API,
// acl/acl_prof.h, libmsprofiler on CANN; the simulator implements the same calls).
// Emitted verbatim by ascgen; hand-written, reviewed once.
//
// The documented order (CANN profiling API, HA 850 aclcppdevg_03_1274; HA 80RC3
// aclcppdevg_03_1598): aclprofInit(DIR) after aclInit and before the model loads;
// aclprofCreateConfig(the device, ACL_PROF_ACL_API | ACL_PROF_TASK_TIME |
// ACL_PROF_AICORE_METRICS | ACL_PROF_MSPROFTX) and aclprofStart before the timed run;
// aclprofStop after it; aclprofDestroyConfig, aclprofFinalize. Each release joins the run's
// cleanup, so they run in reverse order on every path. Each step of the pipeline is an
// msproftx range (aclprofPush / aclprofPop on the worker's thread) whose stamp carries the
// stage's name, one stamp per worker and step (a stamp holds one open range at a time).
// On CANN the result is DIR/PROF_*/ (msprof --export, or MindStudio Insight, reads it); the
// simulator writes DIR/trace.json (Chrome / Perfetto) and DIR/summary.json.
#ifndef ASCGEN_PROFILE_H_
#define ASCGEN_PROFILE_H_

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl_prof.h"
#include "ascgen_acl.h"

namespace ascgen {

// What a profile collects: the AscendCL calls, each task's device time, the AI Core's
// metrics (pipe utilisation) and the program's own stage ranges.
constexpr uint64_t kProfileData =
    ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_AICORE_METRICS | ACL_PROF_MSPROFTX;

// `dir` and the folders above it, as `mkdir -p` makes them; "" or why not.
inline std::string make_folders(const std::string& dir) {
  for (size_t at = 1; at <= dir.size(); ++at) {
    if (at != dir.size() && dir[at] != '/') continue;
    const std::string part = dir.substr(0, at);
    if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST)
      return "cannot create " + part + ": " + std::strerror(errno);
  }
  return "";
}

class Profiler {
 public:
  // aclprofInit into `dir` (made if missing); aclprofFinalize joins the cleanup. "" = off.
  void init(const std::string& dir, int32_t device, Cleanup& cleanup);

  bool on() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }

  // A stamp per step named after its stage (stages[k]: step k's); released at cleanup.
  std::vector<void*> step_stamps(const std::vector<const char*>& stages, Cleanup& cleanup);

  // Just before the timed run: aclprofCreateConfig and aclprofStart (a stop that the run
  // did not reach, and the config's destruction, join the cleanup).
  void start(Cleanup& cleanup);

  // After the run's last task completed: aclprofStop.
  void stop() { check(stop_now(*running_), "profile", "aclprofStop"); }

 private:
  static aclError stop_now(const aclprofConfig*& running) {
    if (running == nullptr) return ACL_SUCCESS;
    const aclprofConfig* config = running;
    running = nullptr;
    return aclprofStop(config);
  }

  std::string dir_;
  uint32_t device_ = 0;
  // started and not stopped yet (nullptr: none)
  std::shared_ptr<const aclprofConfig*> running_ = std::make_shared<const aclprofConfig*>(nullptr);
};

}  // namespace ascgen

#endif  // ASCGEN_PROFILE_H_
