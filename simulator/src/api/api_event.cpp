// Events: create, record, wait, reset, query, synchronise, elapsed time.
//
// Record captures the work submitted to the stream so far (the record task
// completes after it); StreamWaitEvent waits for the record submitted last
// before the call. Design choices where CANN's docs are unclear (ACL_FACTS 7):
// - ResetEvent on an aclrtCreateEvent event is accepted with a warning (7.1).
// - Waiting on a never-recorded event is a no-op with a warning (7.2), and a
//   never-recorded or reset event queries as complete.
//
// Device rules (rules.h), checked at submission in program order:
// - Classic events (aclrtCreateEvent, or aclrtCreateEventWithFlag with
//   ACL_EVENT_SYNC) follow Create -> Record -> StreamWaitEvent -> ResetEvent,
//   the reset on the waiting stream, one waiter per record (CANN 7/8 event
//   guide; hicann 07_event_management). The hardware event stays set until it
//   is reset, so a record issued before the reset leaves the next wait to pass
//   on the old record. Broken: event.record_not_reset (a record while the
//   previous one was not reset), event.one_waiter (a second
//   aclrtStreamWaitEvent on one record), event.wait_stale (a wait after the
//   reset, before the next record: it would pass on nothing, or on a later
//   record it was not meant for), event.reset_other_stream (the reset of a
//   waited record issued on another stream than the waiter's: it may clear the
//   event before the wait ran). Host aclrtSynchronizeEvent / aclrtQueryEvent*
//   only observe a record: they are not waiters and do not replace the reset.
//   Events created with flags but without ACL_EVENT_SYNC (timing only) cannot
//   be waited on or reset, and may be re-recorded.
// - aclrtCreateEventExWithFlag events exist where the profile says
//   features.ex_events (310P, 910B; not the 310: event.ex_unsupported, 207000);
//   they may be re-recorded, a wait sees the latest record.
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

aclError create_event(const char* api, aclrtEvent* event, uint32_t flags, bool plain, bool ex) {
  if (event == nullptr) return null_arg(api, "event");
  if (aclError rc = require_context(api)) return rc;
  if (ex && profile().num("features.ex_events", 0) == 0)
    return raise_rule(Rule::kEventExUnsupported, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, api,
                      "%s has no aclrtCreateEventExWithFlag events: use "
                      "aclrtCreateEventWithFlag(ACL_EVENT_SYNC) with Record, Wait, Reset",
                      profile().str("soc").c_str());
  Device& d = device();
  std::lock_guard<std::mutex> lock(d.mu());
  // Only events that can synchronise streams are limited: ACL_EVENT_TIME_LINE alone creates
  // "an unlimited number" (event.limit's sources).
  const bool limited = plain || (flags & ACL_EVENT_SYNC) != 0;
  double limit = profile().num("limits.max_events", 1023);
  if (limited && static_cast<double>(d.limited_events()) >= limit)
    return raise_rule(Rule::kEventLimit, ACL_ERROR_RT_NO_EVENT_RESOURCE, api,
                      "%g events per device (limits.max_events) already exist (aclrtCreateEvent's "
                      "and ACL_EVENT_SYNC ones; ACL_EVENT_TIME_LINE alone is not limited)",
                      limit);
  *event = d.create_event(flags, plain, ex).get();
  return ACL_SUCCESS;
}

// Resolves an event handle; caller holds Device::mu().
aclError find_event(const char* api, aclrtEvent handle, std::shared_ptr<Event>* out) {
  if (!initialized()) return not_initialized(api);
  *out = device().find_event(handle);
  if (!*out)
    return raise_rule(Rule::kEventValidHandle, ACL_ERROR_RT_INVALID_HANDLE, api,
                      "%p is not a live event", handle);
  return ACL_SUCCESS;
}

// A query answering "complete" tells the host the record completed.
bool event_complete(const Event& e) {
  if (e.record && e.record->done && hazard::enabled()) hazard::observe(*e.record);
  return !e.record || e.record->done;
}

// An event the classic Record / Wait / Reset protocol applies to (see the top).
bool classic(const Event& e) {
  return !e.ex && (e.plain || (e.flags & ACL_EVENT_SYNC) != 0);
}

// Checks and advances the classic protocol for a record, wait or reset of `e`
// submitted on `s`. The call goes on as the device would (no documented error
// code): the run fails at teardown (rules.h). Caller holds Device::mu().
void check_classic(const char* api, Event& e, Stream* s, TaskKind kind) {
  auto id = static_cast<unsigned long long>(e.id);
  if (kind == TaskKind::kRecord) {
    if (e.armed)
      raise_rule(Rule::kEventRecordNotReset, ACL_SUCCESS, api,
                 "event %llu recorded again on %s while its previous record (%s) was not "
                 "reset: the next wait may pass on the old record; call "
                 "aclrtResetEvent(event, waiting stream) after aclrtStreamWaitEvent first",
                 id, stream_label(s).c_str(),
                 e.waiters > 0 ? ("waited on by " + e.waiter_label).c_str() : "not waited on");
    e.armed = true;
    e.waiters = 0;
    e.reset_since_record = false;
    e.waiter_stream = 0;
    e.waiter_label.clear();
  } else if (kind == TaskKind::kWait) {
    if (e.reset_since_record)
      raise_rule(Rule::kEventWaitStale, ACL_SUCCESS, api,
                 "%s waits on event %llu after its reset and before a new record: it would "
                 "pass on a stale (or a later) record; record the event again before waiting",
                 stream_label(s).c_str(), id);
    else if (e.armed && e.waiters > 0)
      raise_rule(Rule::kEventOneWaiter, ACL_SUCCESS, api,
                 "%s is a second waiter on the same record of event %llu (already waited on "
                 "by %s): use one event per waiting stream",
                 stream_label(s).c_str(), id, e.waiter_label.c_str());
    if (e.armed) {
      ++e.waiters;
      e.waiter_stream = s->id;
      e.waiter_label = stream_label(s);
    }
  } else if (kind == TaskKind::kReset) {
    if (e.armed && e.waiters > 0 && e.waiter_stream != s->id)
      raise_rule(Rule::kEventResetOtherStream, ACL_SUCCESS, api,
                 "event %llu reset on %s but waited on by %s: issue the reset on the waiting "
                 "stream, after its aclrtStreamWaitEvent",
                 id, stream_label(s).c_str(), e.waiter_label.c_str());
    if (e.armed) e.reset_since_record = true;
    e.armed = false;
    e.waiters = 0;
  }
}

// Submits a control task on `stream`; `awaited` gates it, `event` labels it.
aclError submit_control(const char* api, aclrtStream stream, aclrtEvent handle, TaskKind kind) {
  double stamp = charge_host();
  Device& d = device();
  std::unique_lock<std::mutex> lk(d.mu());
  std::shared_ptr<Event> e;
  if (aclError rc = find_event(api, handle, &e)) return rc;
  Stream* s = nullptr;
  if (aclError rc = resolve_stream(api, stream, &s)) return rc;
  bool sync_flag = (e->flags & ACL_EVENT_SYNC) != 0;
  std::shared_ptr<Task> awaited;
  if (kind == TaskKind::kWait) {
    if (!e->plain && !sync_flag)
      return raise_rule(Rule::kEventWaitNeedsSync, ACL_ERROR_RT_PARAM_INVALID, api,
                        "event %llu was created with flags 0x%x, without ACL_EVENT_SYNC",
                        static_cast<unsigned long long>(e->id), e->flags);
    if (!e->record)
      raise_rule(Rule::kEventWaitUnrecorded, ACL_SUCCESS, api,
                 "event %llu was never recorded (or was reset): the wait completes at once",
                 static_cast<unsigned long long>(e->id));
    awaited = e->record;
  }
  if (kind == TaskKind::kReset) {
    if (e->ex)
      return raise_rule(Rule::kEventResetEx, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, api,
                        "events from aclrtCreateEventExWithFlag cannot be reset");
    if (!e->plain && !sync_flag)
      return raise_rule(Rule::kEventResetNeedsSync, ACL_ERROR_RT_PARAM_INVALID, api,
                        "event %llu was created with flags 0x%x, without ACL_EVENT_SYNC",
                        static_cast<unsigned long long>(e->id), e->flags);
    if (e->plain)
      raise_rule(Rule::kEventResetPlain, ACL_SUCCESS, api,
                 "resetting an aclrtCreateEvent event is undefined in CANN 9; create it with "
                 "aclrtCreateEventWithFlag(ACL_EVENT_SYNC)");
  }
  if (classic(*e)) check_classic(api, *e, s, kind);
  TaskSpec spec;
  auto t = d.enqueue(lk, s, kind, std::move(spec), stamp, awaited, api);
  t->event_id = e->id;
  if (kind == TaskKind::kRecord) e->record = t;
  if (kind == TaskKind::kReset) {
    t->event = e;
    t->reset_target = e->record;
  }
  return ACL_SUCCESS;
}

aclError sync_event(const char* api, aclrtEvent event, int32_t timeout) {
  if (aclError rc = check_timeout(api, timeout)) return rc;
  Device& d = device();
  std::unique_lock<std::mutex> lk(d.mu());
  std::shared_ptr<Event> e;
  if (aclError rc = find_event(api, event, &e)) return rc;
  if (!e->record) return ACL_SUCCESS;
  std::shared_ptr<Task> record = e->record;
  if (!d.wait_done_for(lk, record, timeout))
    return raise_rule(Rule::kEventSyncTimeout, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, api,
                      "event %llu not complete after %d ms", static_cast<unsigned long long>(e->id),
                      timeout);
  if (hazard::enabled()) hazard::observe(*record);
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclError aclrtCreateEvent(aclrtEvent* event) {
  SIM_API_ENTER();
  return create_event(__func__, event, 0, true, false);
}

aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag) {
  SIM_API_ENTER();
  return create_event(__func__, event, flag, false, false);
}

aclError aclrtCreateEventExWithFlag(aclrtEvent* event, uint32_t flag) {
  SIM_API_ENTER();
  return create_event(__func__, event, flag, false, true);
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  SIM_API_ENTER();
  Device& d = device();
  std::lock_guard<std::mutex> lock(d.mu());
  std::shared_ptr<Event> e;
  if (aclError rc = find_event(__func__, event, &e)) return rc;
  d.destroy_event(event);  // pending tasks keep what they need alive
  return ACL_SUCCESS;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  SIM_API_ENTER();
  return submit_control(__func__, stream, event, TaskKind::kRecord);
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
  SIM_API_ENTER();
  return submit_control(__func__, stream, event, TaskKind::kReset);
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  SIM_API_ENTER();
  return submit_control(__func__, stream, event, TaskKind::kWait);
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status) {
  SIM_API_ENTER();
  if (status == nullptr) return null_arg(__func__, "status");
  std::lock_guard<std::mutex> lock(device().mu());
  std::shared_ptr<Event> e;
  if (aclError rc = find_event(__func__, event, &e)) return rc;
  *status =
      event_complete(*e) ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status) {
  SIM_API_ENTER();
  if (status == nullptr) return null_arg(__func__, "status");
  std::lock_guard<std::mutex> lock(device().mu());
  std::shared_ptr<Event> e;
  if (aclError rc = find_event(__func__, event, &e)) return rc;
  if (e->ex)
    return raise_rule(Rule::kEventQueryEx, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, __func__,
                      "use aclrtQueryEventStatus for aclrtCreateEventExWithFlag events");
  *status = event_complete(*e) ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus* status) {
  SIM_API_ENTER();
  if (status == nullptr) return null_arg(__func__, "status");
  std::lock_guard<std::mutex> lock(device().mu());
  std::shared_ptr<Event> e;
  if (aclError rc = find_event(__func__, event, &e)) return rc;
  // aclrtCreateEventExWithFlag: "cannot be used with aclrtResetEvent, aclrtQueryEvent or
  // aclrtQueryEventWaitStatus" [RT-doc 07_event_management]; ACL_FACTS 1.4 Events.
  if (e->ex)
    return raise_rule(Rule::kEventQueryEx, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, __func__,
                      "aclrtCreateEventExWithFlag events have no wait status: use "
                      "aclrtQueryEventStatus");
  *status = event_complete(*e) ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  SIM_API_ENTER();
  return sync_event(__func__, event, -1);
}

aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout) {
  SIM_API_ENTER();
  return sync_event(__func__, event, timeout);
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  SIM_API_ENTER();
  if (ms == nullptr) return null_arg(__func__, "ms");
  std::lock_guard<std::mutex> lock(device().mu());
  std::shared_ptr<Event> a, b;
  if (aclError rc = find_event(__func__, startEvent, &a)) return rc;
  if (aclError rc = find_event(__func__, endEvent, &b)) return rc;
  for (const Event* e : {a.get(), b.get()})
    if (!e->plain && (e->flags & ACL_EVENT_TIME_LINE) == 0)
      return raise_rule(Rule::kEventElapsedTiming, ACL_ERROR_INVALID_PARAM, __func__,
                        "event %p was created without ACL_EVENT_TIME_LINE: it keeps no timestamp",
                        static_cast<const void*>(e));
  if (!a->record || !b->record)
    return raise_rule(Rule::kEventElapsedRecorded, ACL_ERROR_INVALID_PARAM, __func__,
                      "both events must have been recorded");
  if (!a->record->done || !b->record->done)
    return raise_rule(Rule::kEventElapsedComplete, ACL_ERROR_RT_EVENT_NOT_COMPLETE, __func__,
                      "synchronize the events before asking for the elapsed time");
  *ms = static_cast<float>((b->record->end_at - a->record->end_at) / 1000.0);
  return ACL_SUCCESS;
}

aclError aclrtSetOpWaitTimeout(uint32_t timeout) {
  SIM_API_ENTER();
  (void)timeout;  // waits never time out in the model
  return ACL_SUCCESS;
}

}  // extern "C"
