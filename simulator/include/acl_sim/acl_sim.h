// ascgen AscendCL simulator: simulator-only extensions (acl_sim/acl_sim.h).
//
// Nothing here exists in CANN. Generated programs may use it only under
// `#ifdef ACL_SIM_ABI_VERSION`; tests use it to inspect and steer the model.
#ifndef ACL_SIM_ACL_SIM_H_
#define ACL_SIM_ACL_SIM_H_

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"

// Bumped whenever a declaration below or the internal task API changes.
#define ACL_SIM_ABI_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

// Live allocations and accounted bytes (size after granule and padding).
typedef struct aclsimMemStats {
  size_t deviceAllocs;  // aclrtMalloc* blocks alive
  size_t deviceBytes;   // accounted device bytes in use (aclrtMalloc* + DVPP)
  size_t dvppAllocs;    // acldvppMalloc blocks alive
  size_t dvppBytes;     // accounted DVPP bytes in use
  size_t hostAllocs;    // aclrtMallocHost blocks alive
  size_t hostBytes;     // bytes requested through aclrtMallocHost
} aclsimMemStats;

aclError aclsimGetMemStats(aclsimMemStats* stats);

// Live runtime objects created by the user (default ones not counted).
typedef struct aclsimObjectStats {
  size_t contexts;
  size_t streams;
  size_t events;
  uint64_t tasksSubmitted;  // device tasks since aclInit
  uint64_t tasksCompleted;
} aclsimObjectStats;

aclError aclsimGetObjectStats(aclsimObjectStats* stats);

// Replaces the fault-injection rules (same syntax as ACL_SIM_FAIL, e.g.
// "aclrtMalloc:2,aclrtMemcpyAsync:3:507013") and zeroes the call counters.
// NULL or "" clears all rules.
aclError aclsimSetFaults(const char* spec);

// Number of calls of the public API `name` since the last aclsimSetFaults.
uint64_t aclsimCallCount(const char* name);

// Name of the last device rule the calling thread violated ("" if none),
// e.g. "memcpy_async.addr_aligned"; aclsimClearLastRule() forgets it.
const char* aclsimLastRule(void);
void aclsimClearLastRule(void);

// Model time in microseconds since aclInit (the device timeline's clock).
double aclsimNowUs(void);
// The calling host thread's clock in model microseconds: each asynchronous call
// costs it engines.host.submit_us, so it runs ahead of aclsimNowUs while the
// thread queues work (what a host timer around the calls would show).
double aclsimHostNowUs(void);

// CPU seconds the simulator's own threads have used since aclInit.
double aclsimCpuSeconds(void);

// Hazard detector (ACL_SIM_HAZARD=1). Names `stream` in "[acl_sim] HAZARD"
// lines (e.g. the pipeline stage it serves); NULL names the default stream.
aclError aclsimSetStreamName(aclrtStream stream, const char* name);
// Hazards reported since aclInit.
uint64_t aclsimHazardCount(void);
// The same, then forgets them: aclFinalize and the exit status no longer
// reflect them (tests that provoke hazards on purpose).
uint64_t aclsimTakeHazardCount(void);

// Device rules (README "Rules"): misuse CANN documents as forbidden that the
// device would not reliably reject (an event re-recorded without a reset, one
// DVPP channel on two streams, ...). Each is one "[acl_sim] ERROR RULE" line;
// any of them makes aclFinalize return 500000 and the process exit 87.
uint64_t aclsimRuleCount(void);
// The same, then forgets them (tests that break rules on purpose).
uint64_t aclsimTakeRuleCount(void);

// Link transfers (simulator/src/links/link.h, docs/transfers.md): one block moved
// over HCCS or RDMA between this device (or its host) and a remote device (or
// its host), as a transfer engine such as HIXL's does it. The simulator has one
// device per process: the remote side is a buffer of this process, and
// `remoteDevice` only names the peer (links of several devices: issue 18).
typedef enum aclsimLinkPlace { ACL_SIM_LINK_HOST = 0, ACL_SIM_LINK_DEVICE = 1 } aclsimLinkPlace;
typedef enum aclsimLinkOp { ACL_SIM_LINK_WRITE = 0, ACL_SIM_LINK_READ = 1 } aclsimLinkOp;
typedef struct aclsimLinkTransfer {
  const char* link;  // "hccs" or "rdma"
  int32_t remoteDevice;
  aclsimLinkPlace localPlace, remotePlace;
  aclsimLinkOp op;    // write: local -> remote; read: remote -> local
  int32_t pool;       // through the transit buffer pool
  int32_t crossHost;  // the remote side is on another host
  void* local;        // host memory (any) or device memory, as its place says
  void* remote;
  size_t bytes;
} aclsimLinkTransfer;

// Queues the transfer on `stream` (NULL: the default stream); the bytes move
// at its modelled end.
aclError aclsimLinkTransferAsync(const aclsimLinkTransfer* transfer, aclrtStream stream);

// A task that holds `stream` for `us` of model time and does nothing: a probe
// queues its work behind it, so the host's submissions are not what it times.
aclError aclsimHoldStreamAsync(aclrtStream stream, double us);

// Removes the shared memory of the simulated machine `name` (ACL_SIM_MACHINE),
// if it is there: for whoever named the machine, once all its processes have
// ended (the last to call aclFinalize removes it; one that died does not).
// ACL_ERROR_INVALID_PARAM for a name ACL_SIM_MACHINE would refuse.
aclError aclsimMachineRemove(const char* name);

#ifdef __cplusplus
}
#endif

#endif  // ACL_SIM_ACL_SIM_H_
