#include "api/runtime.h"

#include <atomic>

#include "api/api.h"
#include "report/log.h"
#include "rules/rules.h"

namespace sim {
namespace {

// Contexts live until aclFinalize, so a stale current context is detected by
// this epoch (bumped on device reset and finalize) or its `destroyed` flag.
std::atomic<uint64_t> g_epoch{1};
thread_local Context* t_ctx = nullptr;
thread_local uint64_t t_ctx_epoch = 0;

}  // namespace

Runtime& runtime() {
  static Runtime r;
  return r;
}

// Lock-free: called under Device::mu (resolve_stream), which must never wait
// for Runtime::mu (lock order).
bool initialized() {
  return runtime().initialized.load();
}

Context* current_context() {
  if (t_ctx == nullptr || t_ctx_epoch != g_epoch.load() || t_ctx->destroyed.load()) return nullptr;
  return t_ctx;
}

int32_t current_device_id() {
  const Context* ctx = current_context();
  return ctx == nullptr ? 0 : ctx->device_id;
}

void set_current_context(Context* ctx) {
  t_ctx = ctx;
  t_ctx_epoch = g_epoch.load();
}

void bump_context_epoch() {
  ++g_epoch;
}

aclError require_context(const char* api) {
  if (!initialized()) return not_initialized(api);
  if (current_context() == nullptr)
    return raise_rule(Rule::kContextCurrentRequired, ACL_ERROR_RT_CONTEXT_NULL, api,
                      "the calling thread has no current context (aclrtSetDevice, "
                      "aclrtCreateContext or aclrtSetCurrentContext first)");
  return ACL_SUCCESS;
}

aclError resolve_stream(const char* api, void* handle, Stream** out) {
  if (aclError rc = require_context(api)) return rc;
  Context* ctx = current_context();
  Stream* s = handle == nullptr ? ctx->default_stream : device().find_stream(handle);
  if (s == nullptr)
    return raise_rule(Rule::kStreamValidHandle, ACL_ERROR_RT_INVALID_HANDLE, api,
                      "%p is not a live stream", handle);
  if (s->ctx != ctx)
    return raise_rule(
        Rule::kStreamOwnContext, ACL_ERROR_RT_STREAM_CONTEXT, api,
        "stream %llu belongs to another context than the calling thread's current one",
        static_cast<unsigned long long>(s->id));
  *out = s;
  return ACL_SUCCESS;
}

aclError check_timeout(const char* api, int32_t timeout) {
  if (timeout == -1 || timeout > 0) return ACL_SUCCESS;
  return raise_rule(Rule::kTimeoutRange, ACL_ERROR_INVALID_PARAM, api, "timeout %d: want -1 or > 0",
                    timeout);
}

}  // namespace sim
