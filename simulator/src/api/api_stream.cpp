// Streams: create, destroy, synchronise, query.
#include "acl/acl_rt.h"
#include "api/api.h"
#include "api/runtime.h"
#include "core/clock.h"
#include "core/profile.h"
#include "report/log.h"
#include "rules/hazard.h"
#include "rules/rules.h"

using namespace sim;

namespace {

aclError create_stream(const char* api, aclrtStream* stream) {
  if (stream == nullptr) return null_arg(api, "stream");
  if (aclError rc = require_context(api)) return rc;
  Device& d = device();
  std::lock_guard<std::mutex> lock(d.mu());
  double limit = profile().num("limits.max_streams", 1024);
  if (static_cast<double>(d.live_streams(false)) >= limit)
    return raise_rule(Rule::kStreamLimit, ACL_ERROR_RT_NO_STREAM_RESOURCE, api,
                      "%g streams per device (limits.max_streams) already exist", limit);
  *stream = d.create_stream(current_context(), false);
  return ACL_SUCCESS;
}

// A user stream (not the default one) of the current context.
aclError user_stream(const char* api, aclrtStream handle, Stream** out) {
  if (handle == nullptr)
    return raise_rule(Rule::kStreamNotDefault, ACL_ERROR_INVALID_PARAM, api,
                      "the default stream (NULL) cannot be destroyed");
  return resolve_stream(api, handle, out);
}

aclError sync_stream(const char* api, aclrtStream stream, int32_t timeout) {
  if (aclError rc = check_timeout(api, timeout)) return rc;
  Device& d = device();
  std::unique_lock<std::mutex> lk(d.mu());
  Stream* s = nullptr;
  if (aclError rc = resolve_stream(api, stream, &s)) return rc;
  if (!s->last) return ACL_SUCCESS;
  std::shared_ptr<Task> last = s->last;
  if (!d.wait_done_for(lk, last, timeout))
    return raise_rule(Rule::kStreamSyncTimeout, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, api,
                      "stream %llu not complete after %d ms",
                      static_cast<unsigned long long>(s->id), timeout);
  if (hazard::enabled()) hazard::observe(*last);
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclError aclrtCreateStream(aclrtStream* stream) {
  SIM_API_ENTER();
  return create_stream(__func__, stream);
}

aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority, uint32_t flag) {
  SIM_API_ENTER();
  (void)flag;  // fast launch / sync flags change nothing in the model
  if (priority > 7)
    return raise_rule(Rule::kStreamPriority, ACL_ERROR_INVALID_PARAM, __func__,
                      "priority %u: want 0..7", priority);
  return create_stream(__func__, stream);
}

aclError aclrtDestroyStream(aclrtStream stream) {
  SIM_API_ENTER();
  Device& d = device();
  std::lock_guard<std::mutex> lock(d.mu());
  Stream* s = nullptr;
  if (aclError rc = user_stream(__func__, stream, &s)) return rc;
  if (!s->queue.empty())
    return raise_rule(Rule::kStreamDestroyPending, ACL_ERROR_RT_STREAM_NOT_COMPLETE, __func__,
                      "stream %llu still has %zu task(s): aclrtSynchronizeStream before destroying",
                      static_cast<unsigned long long>(s->id), s->queue.size());
  if (s->subscribed)
    raise_rule(Rule::kTeardownOrder, ACL_SUCCESS, __func__,
               "stream %llu is still subscribed to a report thread",
               static_cast<unsigned long long>(s->id));
  d.destroy_stream(s);
  return ACL_SUCCESS;
}

aclError aclrtDestroyStreamForce(aclrtStream stream) {
  SIM_API_ENTER();
  Device& d = device();
  std::unique_lock<std::mutex> lk(d.mu());
  Stream* s = nullptr;
  if (aclError rc = user_stream(__func__, stream, &s)) return rc;
  if (s->last) {
    std::shared_ptr<Task> last = s->last;
    d.wait_done(lk, last, nullptr);
    if (hazard::enabled()) hazard::observe(*last);
  }
  d.destroy_stream(s);
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  SIM_API_ENTER();
  return sync_stream(__func__, stream, -1);
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
  SIM_API_ENTER();
  return sync_stream(__func__, stream, timeout);
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status) {
  SIM_API_ENTER();
  if (status == nullptr) return null_arg(__func__, "status");
  Device& d = device();
  std::lock_guard<std::mutex> lock(d.mu());
  Stream* s = nullptr;
  if (aclError rc = resolve_stream(__func__, stream, &s)) return rc;
  *status = s->queue.empty() ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
  if (s->queue.empty() && s->last && hazard::enabled()) hazard::observe(*s->last);
  return ACL_SUCCESS;
}

}  // extern "C"
