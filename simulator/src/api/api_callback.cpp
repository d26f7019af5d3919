// Host callbacks: aclrtSubscribeReport / aclrtLaunchCallback /
// aclrtProcessReport / aclrtUnSubscribeReport.
//
// A callback task reaches the head of its stream, passes the scheduler and is
// queued for the thread subscribed to the stream; that thread runs it inside
// aclrtProcessReport. ACL_CALLBACK_BLOCK holds the stream until it returned.
// Thread ids are pthread_t values cast to uint64_t, as in CANN's samples.
//
// Device rules (rules.h): aclrtProcessReport on a thread no aclrtSubscribeReport
// names returns ACL_ERROR_RT_THREAD_SUBSCRIBE (107012) at once, whatever the
// timeout (report.thread_subscribed: a report loop started before its
// subscription fails on the device, intermittently); a thread subscribed when
// the call started and unsubscribed while it waits gets the timeout (507012),
// no rule. aclrtUnSubscribeReport while callbacks of the stream have not run
// yet (queued on the stream or for the thread) is report.unsubscribe_pending:
// they never run (unsubscribe after the device drained).
#include <pthread.h>

#include "acl/acl_rt.h"
#include "api/api.h"
#include "api/runtime.h"
#include "core/clock.h"
#include "core/profile.h"
#include "report/log.h"
#include "rules/callback_rules.h"
#include "rules/hazard.h"
#include "rules/rules.h"

using namespace sim;

namespace {

uint64_t this_thread_id() {
  return static_cast<uint64_t>(pthread_self());
}

}  // namespace

extern "C" {

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream) {
  SIM_API_ENTER();
  Device& d = device();
  std::lock_guard<std::mutex> lock(d.mu());
  Stream* s = nullptr;
  if (aclError rc = resolve_stream(__func__, stream, &s)) return rc;
  if (s->subscribed)
    return raise_rule(
        Rule::kReportOneThreadPerStream,
        s->report_thread == threadId ? ACL_ERROR_REPEAT_SUBSCRIBE : ACL_ERROR_RT_STREAM_SUBSCRIBE,
        __func__, "stream %llu is already served by thread %llu",
        static_cast<unsigned long long>(s->id), static_cast<unsigned long long>(s->report_thread));
  const auto limit = static_cast<uint32_t>(profile().num("limits.report_threads", 0));
  size_t serving = 0;
  if (limit > 0 && !callback_rules::room_for(threadId, limit, &serving))
    return raise_rule(Rule::kReportThreadLimit, ACL_ERROR_RT_THREAD_SUBSCRIBE, __func__,
                      "thread %llu would be report thread %zu of this process; the %s allows %u: "
                      "let one report thread serve several streams",
                      static_cast<unsigned long long>(threadId), serving + 1,
                      profile().str("soc").c_str(), limit);
  int32_t other = 0;
  if (!callback_rules::serve_on(threadId, d.id(), &other))
    return raise_rule(Rule::kReportThreadOneDevice, ACL_ERROR_RT_PARAM_INVALID, __func__,
                      "thread %llu already serves streams of device %d; %s is on device %d: one "
                      "report thread per device [source: aclrtSubscribeReport Restrictions, "
                      "HIA aclcppdevg_03_0124 800, aclcppdevg_03_0082 700]",
                      static_cast<unsigned long long>(threadId), other, stream_label(s).c_str(),
                      d.id());
  s->subscribed = true;
  s->report_thread = threadId;
  ReportQueue& q = d.reports(threadId);
  ++q.subscriptions;
  q.cv.notify_all();
  return ACL_SUCCESS;
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream) {
  SIM_API_ENTER();
  Device& d = device();
  std::lock_guard<std::mutex> lock(d.mu());
  Stream* s = nullptr;
  if (aclError rc = resolve_stream(__func__, stream, &s)) return rc;
  if (!s->subscribed || s->report_thread != threadId)
    return raise_rule(Rule::kReportSubscribed, ACL_ERROR_STREAM_NOT_SUBSCRIBE, __func__,
                      "stream %llu is not served by thread %llu",
                      static_cast<unsigned long long>(s->id),
                      static_cast<unsigned long long>(threadId));
  ReportQueue& q = d.reports(threadId);
  size_t pending = 0;
  for (const auto& t : q.tasks) pending += t->stream == s;
  for (const auto& t : s->queue) pending += t->kind == TaskKind::kCallback && !t->done;
  if (pending > 0)
    raise_rule(Rule::kReportUnsubscribePending, ACL_SUCCESS, __func__,
               "%zu callback(s) of %s have not run yet and never will: synchronise the stream "
               "(and let the report thread process them) before unsubscribing",
               pending, stream_label(s).c_str());
  s->subscribed = false;
  callback_rules::stop_serving(threadId);
  --q.subscriptions;
  q.cv.notify_all();
  return ACL_SUCCESS;
}

aclError aclrtLaunchCallback(aclrtCallback fn, void* userData, aclrtCallbackBlockType blockType,
                             aclrtStream stream) {
  SIM_API_ENTER();
  if (fn == nullptr) return null_arg(__func__, "fn");
  if (blockType != ACL_CALLBACK_BLOCK && blockType != ACL_CALLBACK_NO_BLOCK)
    return raise_rule(Rule::kCallbackBlockType, ACL_ERROR_INVALID_PARAM, __func__, "blockType %d",
                      static_cast<int>(blockType));
  double stamp = charge_host();
  Device& d = device();
  std::unique_lock<std::mutex> lk(d.mu());
  Stream* s = nullptr;
  if (aclError rc = resolve_stream(__func__, stream, &s)) return rc;
  if (!s->subscribed)
    return raise_rule(Rule::kCallbackSubscribed, ACL_ERROR_RT_STREAM_NO_CB_REG, __func__,
                      "stream %llu has no report thread (aclrtSubscribeReport first)",
                      static_cast<unsigned long long>(s->id));
  TaskSpec spec;
  spec.name = "callback";
  auto t = d.enqueue(lk, s, TaskKind::kCallback, std::move(spec), stamp, nullptr, __func__);
  t->callback = fn;
  t->user_data = userData;
  t->blocking = blockType == ACL_CALLBACK_BLOCK;
  return ACL_SUCCESS;
}

aclError aclrtProcessReport(int32_t timeout) {
  SIM_API_ENTER();
  if (aclError rc = check_timeout(__func__, timeout)) return rc;
  if (!initialized()) return not_initialized(__func__);
  Device& d = device();
  std::unique_lock<std::mutex> lk(d.mu());
  ReportQueue& q = d.reports(this_thread_id());
  auto deadline = model_clock().deadline_after_ms(timeout);
  // Without a subscription: 107012 at once, as the runtime answers (a callback
  // left over from an earlier subscription still runs).
  if (q.subscriptions == 0 && q.tasks.empty())
    return raise_rule(Rule::kReportThreadSubscribed, ACL_ERROR_RT_THREAD_SUBSCRIBE, __func__,
                      "thread %llu serves no stream: call aclrtSubscribeReport(thread, stream) "
                      "before the report loop starts, and stop the loop before "
                      "aclrtUnSubscribeReport",
                      static_cast<unsigned long long>(this_thread_id()));
  while (q.tasks.empty()) {
    bool timed_out = false;
    if (timeout == -1) {
      if (q.subscriptions == 0) return ACL_ERROR_RT_THREAD_SUBSCRIBE;  // unsubscribed meanwhile
      q.cv.wait(lk);
    } else {
      timed_out = q.cv.wait_until(lk, deadline) == std::cv_status::timeout;
    }
    if (timed_out && q.tasks.empty())
      return ACL_ERROR_RT_REPORT_TIMEOUT;  // "no work yet": not a rule violation
  }
  std::shared_ptr<Task> t = std::move(q.tasks.front());
  q.tasks.pop_front();
  if (hazard::enabled()) hazard::observe(*t);  // the callback runs after its predecessors
  lk.unlock();
  {
    callback_rules::Running running;  // rule callback.forbidden_call
    t->callback(t->user_data);
  }
  if (t->blocking) d.complete_external(t);
  return ACL_SUCCESS;
}

}  // extern "C"
