// ascgen AscendCL simulator: profiling API (acl/acl_prof.h).
//
// The subset of CANN's profiling API (libmsprofiler) that ascgen-generated programs use for
// --profile DIR, with the same names, types, values and signatures as CANN's acl_prof.h,
// written from the public AscendCL documentation (profiling: aclprofInit, aclprofCreateConfig,
// aclprofStart, aclprofStop, aclprofDestroyConfig, aclprofFinalize; msproftx: aclprofCreateStamp,
// aclprofSetStampTraceMessage, aclprofPush / aclprofPop, aclprofRangeStart / aclprofRangeStop,
// aclprofMark, aclprofDestroyStamp). The conformance build (simulator/conformance) checks every
// declaration here against the real header. On the simulator aclprofStop writes DIR/trace.json
// (a Chrome / Perfetto trace of the device timeline and the marked ranges) and DIR/summary.json.
#ifndef INC_EXTERNAL_ACL_PROF_H_
#define INC_EXTERNAL_ACL_PROF_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// What aclprofCreateConfig's dataTypeConfig collects (a bit mask).
#define ACL_PROF_ACL_API 0x0001ULL         // AscendCL API calls
#define ACL_PROF_TASK_TIME 0x0002ULL       // each task's time on the device
#define ACL_PROF_AICORE_METRICS 0x0004ULL  // AI Core metrics (aicoreMetrics)
#define ACL_PROF_MSPROFTX 0x0080ULL        // the program's own marks (aclprofPush, ...)

// AI Core metrics of aclprofCreateConfig (ACL_AICORE_NONE: none).
typedef enum {
  ACL_AICORE_ARITHMETIC_UTILIZATION = 0,
  ACL_AICORE_PIPE_UTILIZATION = 1,
  ACL_AICORE_MEMORY_BANDWIDTH = 2,
  ACL_AICORE_L0B_AND_WIDTH = 3,
  ACL_AICORE_RESOURCE_CONFLICT_RATIO = 4,
  ACL_AICORE_MEMORY_UB = 5,
  ACL_AICORE_L2_CACHE = 6,
  ACL_AICORE_NONE = 0xFF
} aclprofAicoreMetrics;

typedef struct aclprofConfig aclprofConfig;
typedef struct aclprofAicoreEvents aclprofAicoreEvents;

// Profiling into profilerResultPath (length: its strlen), after aclInit; once per process.
ACL_FUNC_VISIBILITY aclError aclprofInit(const char* profilerResultPath, size_t length);
// The end of profiling: after aclprofStop, before aclFinalize.
ACL_FUNC_VISIBILITY aclError aclprofFinalize();
// Starts collecting what `profilerConfig` names; aclprofStop with the same config ends it.
ACL_FUNC_VISIBILITY aclError aclprofStart(const aclprofConfig* profilerConfig);
// What to collect, on which devices; aicoreEvents must be NULL.
ACL_FUNC_VISIBILITY aclprofConfig* aclprofCreateConfig(uint32_t* deviceIdList, uint32_t deviceNums,
                                                       aclprofAicoreMetrics aicoreMetrics,
                                                       const aclprofAicoreEvents* aicoreEvents,
                                                       uint64_t dataTypeConfig);
ACL_FUNC_VISIBILITY aclError aclprofDestroyConfig(const aclprofConfig* profilerConfig);
ACL_FUNC_VISIBILITY aclError aclprofStop(const aclprofConfig* profilerConfig);

// msproftx: a stamp carries a message; aclprofPush / aclprofPop mark a range on the calling
// thread, aclprofRangeStart / aclprofRangeStop one that may end on another thread.
ACL_FUNC_VISIBILITY void* aclprofCreateStamp();
ACL_FUNC_VISIBILITY void aclprofDestroyStamp(void* stamp);
ACL_FUNC_VISIBILITY aclError aclprofPush(void* stamp);
ACL_FUNC_VISIBILITY aclError aclprofPop();
ACL_FUNC_VISIBILITY aclError aclprofRangeStart(void* stamp, uint32_t* rangeId);
ACL_FUNC_VISIBILITY aclError aclprofRangeStop(uint32_t rangeId);
ACL_FUNC_VISIBILITY aclError aclprofSetStampTraceMessage(void* stamp, const char* msg,
                                                         uint32_t msgLen);
ACL_FUNC_VISIBILITY aclError aclprofMark(void* stamp);

#ifdef __cplusplus
}
#endif

#endif  // INC_EXTERNAL_ACL_PROF_H_
