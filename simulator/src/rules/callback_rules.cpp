// Device rule callback.forbidden_call and the report threads' devices (callback_rules.h).
#include "rules/callback_rules.h"

#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "rules/rules.h"

namespace sim::callback_rules {
namespace {

thread_local int t_running = 0;

enum class Kind { kAllowed, kResource, kLaunch, kSync };

struct Forbidden {
  const char* api;
  Kind kind;
};

// The public entry points the restriction names, by what they do (besides the ...Async ones).
// Descriptor objects (acldvppCreatePicDesc, aclCreateDataBuffer, ...) are host structures, not
// device resources, and queries (aclrtQueryEventStatus, aclrtStreamQuery) do not wait: allowed.
constexpr Forbidden kForbidden[] = {
    {"aclrtMalloc", Kind::kResource},
    {"aclrtMallocAlign32", Kind::kResource},
    {"aclrtMallocCached", Kind::kResource},
    {"aclrtMallocHost", Kind::kResource},
    {"aclrtFree", Kind::kResource},
    {"aclrtFreeHost", Kind::kResource},
    {"acldvppMalloc", Kind::kResource},
    {"acldvppFree", Kind::kResource},
    {"aclrtCreateStream", Kind::kResource},
    {"aclrtCreateStreamWithConfig", Kind::kResource},
    {"aclrtDestroyStream", Kind::kResource},
    {"aclrtDestroyStreamForce", Kind::kSync},
    {"aclrtCreateEvent", Kind::kResource},
    {"aclrtCreateEventWithFlag", Kind::kResource},
    {"aclrtCreateEventExWithFlag", Kind::kResource},
    {"aclrtDestroyEvent", Kind::kResource},
    {"aclrtCreateContext", Kind::kResource},
    {"aclrtDestroyContext", Kind::kResource},
    {"acldvppCreateChannel", Kind::kResource},
    {"acldvppDestroyChannel", Kind::kResource},
    {"aclmdlLoadFromFile", Kind::kSync},
    {"aclmdlLoadFromFileWithMem", Kind::kSync},
    {"aclmdlUnload", Kind::kResource},
    {"aclrtRecordEvent", Kind::kLaunch},
    {"aclrtStreamWaitEvent", Kind::kLaunch},
    {"aclrtResetEvent", Kind::kLaunch},
    {"aclrtLaunchCallback", Kind::kLaunch},
    {"aclrtSynchronizeStream", Kind::kSync},
    {"aclrtSynchronizeStreamWithTimeout", Kind::kSync},
    {"aclrtSynchronizeDevice", Kind::kSync},
    {"aclrtSynchronizeDeviceWithTimeout", Kind::kSync},
    {"aclrtSynchronizeEvent", Kind::kSync},
    {"aclrtSynchronizeEventWithTimeout", Kind::kSync},
    {"aclrtMemcpy", Kind::kSync},
    {"aclrtMemset", Kind::kSync},
    {"aclmdlExecute", Kind::kSync},
    {"aclrtResetDevice", Kind::kSync},
    {"aclrtResetDeviceForce", Kind::kSync},
};

Kind kind_of(const char* api) {
  // Every ...Async entry point (copies, memsets, model executions, DVPP operations) is a launch.
  const size_t n = std::strlen(api);
  if (n > 5 && std::strcmp(api + n - 5, "Async") == 0) return Kind::kLaunch;
  for (const Forbidden& f : kForbidden)
    if (std::strcmp(f.api, api) == 0) return f.kind;
  return Kind::kAllowed;
}

const char* what(Kind k) {
  switch (k) {
    case Kind::kResource:
      return "allocates or releases a resource";
    case Kind::kLaunch:
      return "launches a task";
    default:
      return "synchronises (it may wait for this very callback): refused";
  }
}

// The device each report thread serves (aclrtSubscribeReport: "in one process, threads that
// process callbacks on different devices cannot use the same thread ID"), with its number of
// subscriptions. A leaf lock: taken under Device::mu, takes nothing itself.
struct ThreadDevices {
  std::mutex mu;
  std::map<uint64_t, std::pair<int32_t, int>> serving;  // thread -> (device, streams)
};

ThreadDevices& thread_devices() {
  static auto* t = new ThreadDevices;  // never destroyed: report threads may outlive main
  return *t;
}

}  // namespace

// Records `thread` as serving one more stream of `device`; false (and nothing recorded) when
// it serves streams of another device; *other is that device.
bool serve_on(uint64_t thread, int32_t device, int32_t* other) {
  ThreadDevices& t = thread_devices();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.serving.find(thread);
  if (it != t.serving.end() && it->second.second > 0 && it->second.first != device) {
    *other = it->second.first;
    return false;
  }
  auto& entry = t.serving[thread];
  if (entry.second == 0) entry.first = device;
  ++entry.second;
  return true;
}

bool room_for(uint64_t thread, uint32_t limit, size_t* serving) {
  ThreadDevices& t = thread_devices();
  std::lock_guard<std::mutex> lock(t.mu);
  *serving = t.serving.size();
  return t.serving.count(thread) != 0 || t.serving.size() < limit;
}

void stop_serving(uint64_t thread) {
  ThreadDevices& t = thread_devices();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.serving.find(thread);
  if (it != t.serving.end() && --it->second.second <= 0) t.serving.erase(it);
}

Running::Running() {
  ++t_running;
}
Running::~Running() {
  --t_running;
}
Outside::Outside() : saved_(t_running) {
  t_running = 0;
}
Outside::~Outside() {
  t_running = saved_;
}

aclError check(const char* api) {
  if (t_running == 0) return ACL_SUCCESS;
  const Kind k = kind_of(api);
  if (k == Kind::kAllowed) return ACL_SUCCESS;
  const aclError code = k == Kind::kSync ? ACL_ERROR_API_NOT_SUPPORT : ACL_SUCCESS;
  return raise_rule(Rule::kCallbackForbiddenCall, code, api,
                    "called inside a host callback (aclrtProcessReport): it %s; do the work "
                    "on another thread the callback signals",
                    what(k));
}

}  // namespace sim::callback_rules
