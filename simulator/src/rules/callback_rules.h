// Device rule callback.forbidden_call: what a host callback must not do; and the device
// each report thread serves (argument check report.thread_one_device).
//
// aclrtLaunchCallback / aclrtLaunchHostFunc, Restrictions: a callback shares resources
// (locks) with the runtime, so it must not call resource allocation or release, stream or
// device synchronisation, task launch or task abort APIs; doing so may cause errors or
// deadlock [HIA aclcppdevg_03_0126 83RC1/850/900, aclcppdevg_03_1959 900]; ACL_FACTS 1.4
// Callbacks. aclrtProcessReport marks the calling thread while a callback runs; every public
// entry point (SIM_API_ENTER) asks check() first.
#ifndef ACL_SIM_SRC_CALLBACK_RULES_H_
#define ACL_SIM_SRC_CALLBACK_RULES_H_

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"

namespace sim::callback_rules {

// Marks the calling thread as running a callback for the scope's lifetime.
class Running {
 public:
  Running();
  ~Running();
  Running(const Running&) = delete;
  Running& operator=(const Running&) = delete;
};

// Clears the mark for the scope's lifetime: a VDEC callback (aclvdecCallback) runs from
// aclrtProcessReport too, but it is not a launched host function and has restrictions of its
// own (vdec.destroy_in_callback); it may free its frame's buffers.
class Outside {
 public:
  Outside();
  ~Outside();
  Outside(const Outside&) = delete;
  Outside& operator=(const Outside&) = delete;

 private:
  int saved_;
};

// `api` (its __func__) called on this thread: ACL_SUCCESS outside a callback or for an
// allowed API. Inside a callback a forbidden API breaks the rule: a synchronising call (it
// could wait for the very callback that calls it) is refused with ACL_ERROR_API_NOT_SUPPORT
// (the documents name no code, "errors or deadlock"; the simulator never hangs), other
// forbidden calls go on (ACL_SUCCESS) with the rule counted.
aclError check(const char* api);

// Argument check report.thread_one_device (aclrtSubscribeReport Restrictions: in one process,
// report threads of different devices cannot share a thread ID [HIA aclcppdevg_03_0124 800,
// aclcppdevg_03_0082 700]). serve_on records `thread` as serving one more stream of `device`;
// false, recording nothing, when it serves streams of another device (*other: that device).
bool serve_on(uint64_t thread, int32_t device, int32_t* other);
// A stream `thread` served was unsubscribed or destroyed.
void stop_serving(uint64_t thread);

// Device rule report.thread_limit (aclrtSubscribeReport Restrictions: one process subscribes
// at most 128 report threads on the Atlas 200/300/500 inference products (310), 1024 on the
// others [HIA aclcppdevg_03_0124 800, aclcppdevg_03_0051 60RC1]; profile key
// limits.report_threads). True when `thread` already serves a stream or fewer than `limit`
// threads do; *serving: how many threads serve streams now.
bool room_for(uint64_t thread, uint32_t limit, size_t* serving);

}  // namespace sim::callback_rules

#endif  // ACL_SIM_SRC_CALLBACK_RULES_H_
