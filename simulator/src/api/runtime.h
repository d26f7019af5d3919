// Runtime state shared by the public API files: initialisation, the device's
// reference count, contexts and each thread's current context.
#ifndef ACL_SIM_SRC_RUNTIME_H_
#define ACL_SIM_SRC_RUNTIME_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "acl/acl_rt.h"
#include "core/device.h"

namespace sim {

struct Context {
  int32_t device_id = 0;
  std::atomic<bool> destroyed{false};
  bool is_default = false;
  Stream* default_stream = nullptr;  // guarded by Device::mu()
};

struct Runtime {
  std::mutex mu;                         // lock order: Runtime::mu before Device::mu
  std::atomic<bool> initialized{false};  // written under mu; read lock-free
  bool finalized = false;
  // Per device (aclrtSetDevice reference count, default context); a device's timeline
  // thread starts at its first aclrtSetDevice and stops at aclFinalize.
  int device_refs[kMaxDevices] = {};
  Context* default_ctx[kMaxDevices] = {};
  int devices_set() const {
    int n = 0;
    for (int refs : device_refs) n += refs > 0;
    return n;
  }
  std::vector<std::unique_ptr<Context>> contexts;  // all since aclInit, incl. destroyed
};

Runtime& runtime();
bool initialized();

// The calling thread's current context (nullptr if none).
Context* current_context();
// Its device, 0 if it has none.
int32_t current_device_id();
void set_current_context(Context* ctx);
// Invalidates every thread's current context (device reset, aclFinalize).
void bump_context_epoch();
// A live (not destroyed) context created since aclInit, else 107017 (rule
// context.valid_handle). Caller holds Runtime::mu.
aclError live_context(const char* api, void* handle, Context** out);
// API timeouts: -1 (forever) or > 0 ms, else 100000 (rule timeout.range).
aclError check_timeout(const char* api, int32_t timeout);

// Checks aclInit, a current context, and resolves `handle` (NULL = the current
// context's default stream) to a live stream of the current context.
// Caller holds Device::mu().
aclError resolve_stream(const char* api, void* handle, Stream** out);
// Checks aclInit and a current context. Caller need not hold any lock.
aclError require_context(const char* api);

// Waits for device `id`, then destroys every stream, event, context and block of it;
// logs (rule teardown.order) whatever the user left alive. Holds Runtime::mu.
// check_leaks: ACL_SIM_LEAK_CHECK first reports what the program left on the
// device (leak.h), before it is reclaimed (aclFinalize, which checks
// everything itself, passes false).
void teardown_device_locked(const char* api, int32_t id, bool check_leaks = true);

}  // namespace sim

#endif  // ACL_SIM_SRC_RUNTIME_H_
