// Device rules (issue 14): misuse that CANN documents as forbidden but that the
// device does not (reliably) reject with an error code -- an event re-recorded
// without a reset, one DVPP channel on two streams, memory freed under a queued
// task, a decode failure nobody read. On hardware these corrupt data or hang
// intermittently; the simulator reports each one as
//
//   [acl_sim] ERROR RULE <id> in <api> (-> <code>): <detail> [<source>]
//
// where <code> is what the call returned (0 when the call goes on as the
// device would) and <source> names the document and section the rule comes
// from. Unlike argument checks (log.h violate(), whose error the program sees
// and handles), a device rule fails the run: aclFinalize returns
// ACL_ERROR_INTERNAL_ERROR and an exit hook ends the process with status 87
// (kExitStatus) whatever main returned, also without aclFinalize.
// aclsimRuleCount / aclsimTakeRuleCount (acl_sim.h) read / consume the count.
#ifndef ACL_SIM_SRC_RULES_H_
#define ACL_SIM_SRC_RULES_H_

#include <cstdint>
#include <string>

#include "acl/acl_base.h"

namespace sim {

struct Stream;

// Logs the RULE line, counts it, remembers `rule` as the thread's last rule
// (aclsimLastRule) and returns `code`.
aclError device_rule(aclError code, const char* api, const char* rule, const char* source,
                     const char* fmt, ...) __attribute__((format(printf, 5, 6)));

// "stream 3 'decode'" (the name from aclsimSetStreamName, when set).
std::string stream_label(const Stream* s);

namespace rules {

constexpr int kExitStatus = 87;

// aclInit: registers the exit hook (once per process).
void configure();
// Device rules broken since the process started (or the last take()).
uint64_t count();
uint64_t take();
// aclFinalize: logs the summary line and returns 500000 if any rule fired.
aclError finalize();

// Sources cited by the rules (document and section; the tags are ACL_FACTS.md's).
constexpr const char* kEventsClassic =
    "CANN 7/8 Event guide: Record, StreamWaitEvent, ResetEvent on the waiting stream "
    "[HIA aclcppdevg_03_0072 700, 0083 80RC3]; ACL_FACTS 1.4 Events";
constexpr const char* kEventsOneWaiter =
    "aclrtResetEvent: do not reset an event several streams wait on "
    "[RT-doc 07_event_management]; ACL_FACTS 1.4 Events";
constexpr const char* kEventsEx =
    "aclrtCreateEventExWithFlag product table: no Atlas 200/300/500 (310) "
    "[HIA aclcppdevg_03_0081 900]";
constexpr const char* kDvppChannel =
    "acldvppCreateChannel Restrictions: do not use a channel concurrently across streams, "
    "CANN 5.0.4-9.0 [HIA aclcppdevg_03_0326 800]";
constexpr const char* kReportThread =
    "aclrtProcessReport: unsubscribed thread -> ACL_ERROR_RT_THREAD_SUBSCRIBE "
    "[RT-doc 12_execution_control; RT-src callback.cpp]; ACL_FACTS 1.4 Callbacks";
constexpr const char* kReportUnsubscribe =
    "callback pattern: aclrtUnSubscribeReport at the end, after the callbacks ran "
    "[RT-doc 12_execution_control]; ACL_FACTS 1.4 Callbacks";
constexpr const char* kDecodeRetCode =
    "acldvppJpegDecodeAsync: per-picture status in acldvppGetPicDescRetCode, 0 = OK "
    "[GE acl_dvpp.h; Samples dvpp_process.cpp]; ACL_FACTS 3.4";
constexpr const char* kOwnContext =
    "aclrtCreateContext / aclrtSetDevice: streams and memory belong to the context (and device) "
    "they were created in; other threads set that context first [RT-doc 05]; ACL_FACTS 1.4 "
    "Init, device, context";
constexpr const char* kFreeInUse =
    "do not free resources until the device task has finished "
    "[HIA aclcppdevg_03_0255 80RC1alpha002]; aclrtFree does not synchronise [RT-doc 11-01]";
constexpr const char* kDvppSubBuffer =
    "acldvppMalloc sub-allocation: ALIGN_UP(len, 32) + 32, next start 128-aligned "
    "[HIA aclcppdevg_03_0322 800]; ACL_FACTS 4";
constexpr const char* kHostAccess =
    "acldvppJpegGetImageInfo / PredictDecSize take the JPEG in host memory; on ACL_HOST the "
    "bytes live on the host [hicann/docs DVPP_V1_JPEGD.md]; ACL_FACTS 3.3, 3.4";
constexpr const char* kDvppChannelDestroy =
    "do not free resources (a channel) until the device task has finished "
    "[HIA aclcppdevg_03_0255 80RC1alpha002]; DVPP V1 flow: the Async op, aclrtSynchronizeStream, "
    "then destroy [hicann/docs DVPP_V1_JPEGD.md]; ACL_FACTS 3.4";
constexpr const char* kDvppChannelOrder =
    "acldvppDestroyChannel Restrictions: if acldvppDestroyChannelDesc was called before "
    "acldvppDestroyChannel, acldvppDestroyChannel reports an error [HIA aclcppdevg_03_0328 800, "
    "0247 700, 0144 5046]";
constexpr const char* kCallbackCalls =
    "aclrtLaunchCallback Restrictions: a callback must not call resource allocation or release, "
    "stream or device synchronisation, task launch or abort APIs, or errors or deadlock may "
    "follow [HIA aclcppdevg_03_0126 83RC1/850/900, aclcppdevg_03_1959 900]; ACL_FACTS 1.4 "
    "Callbacks";
constexpr const char* kModelContext =
    "aclmdlLoadFromFile / aclmdlUnload Restrictions: loading, executing and unloading a model "
    "must be performed in the same context [HIA aclcppdevg_03_0291, 0284 800; "
    "cann/ge docs aclmdlUnload.md]; ACL_FACTS 1.4 Init, device, context";
constexpr const char* kModelUnload =
    "aclmdlUnload Restrictions: ensure that the model is not being used by other API calls "
    "[HIA aclcppdevg_03_0291 800/850]; aclmdlExecuteAsync is asynchronous, ACL_FACTS 2.2";
constexpr const char* kFaultSpec = "simulator README, Environment: ACL_SIM_FAIL=API:N[:CODE]";

}  // namespace rules
}  // namespace sim

#endif  // ACL_SIM_SRC_RULES_H_
