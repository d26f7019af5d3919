// Hazard detector (ACL_SIM_HAZARD=1): data races between device tasks, and
// between the host and device tasks, over device, DVPP and pinned host memory.
//
// Happens-before is tracked with vector clocks over "agents": agent 0 is the
// host (all host threads share it: the simulator cannot see how they
// synchronise among themselves), agent k > 0 is a stream. A task's clock joins
//   - its stream's clock (stream order),
//   - the clock of the record it waits on (aclrtStreamWaitEvent),
//   - the host's clock at submission (everything the host has seen complete
//     happens before what it submits next),
// and ticks its own agent. The host's clock joins a task's clock whenever the
// host learns that the task completed: aclrtSynchronizeStream/Event/Device, a
// query answering "complete", a callback running on a report thread, the
// synchronous APIs (aclrtMemcpy, aclrtMemset, aclmdlExecute: host-agent tasks).
//
// Every task's reads/writes (TaskSpec) are checked against the accesses still
// recorded on the same allocation: two overlapping accesses, one a write, with
// neither ordered before the other, are a hazard. An access is dropped once the
// host's clock covers it (no later task can race with it) or a later access of
// the same bytes ordered after it makes it redundant.
//
// Host writes into pinned host memory that an async copy still reads: the read
// range's checksum is taken at submission and compared when the host first
// learns the copy completed; a difference (without a device write in between)
// means the host wrote the buffer before synchronising the copy that reads it.
//
// Plain CPU loads and stores into the destination of an in-flight copy into
// pinned host memory: page guards (guard.h). on_enqueue makes the whole pages of
// such a destination inaccessible until the task completes (pinned blocks start
// on a page in hazard mode); the SIGSEGV handler records the access and reopens
// the pages; the next call here (or aclFinalize, or the exit hook) reports it,
// once per (API, stream, allocation). A partial page at either end of the
// destination stays unguarded.
//
// Each hazard is logged once per (API, stream, API, stream, allocation) as
// "[acl_sim] HAZARD ...". aclFinalize then returns ACL_ERROR_INTERNAL_ERROR
// (500000) and the process exits with status 86 (an atexit hook), unless the
// program consumed the hazards with aclsimTakeHazardCount().
#ifndef ACL_SIM_SRC_HAZARD_H_
#define ACL_SIM_SRC_HAZARD_H_

#include <atomic>
#include <cstdint>
#include <vector>

#include "acl/acl_base.h"
#include "core/task.h"

namespace sim {

struct Task;
struct Stream;

namespace hazard {

constexpr int kExitStatus = 86;

extern std::atomic<bool> g_enabled;
inline bool enabled() {
  return g_enabled.load(std::memory_order_relaxed);
}

// aclInit: reads ACL_SIM_HAZARD, clears the state, registers the exit hook.
void configure();

// Device::enqueue, under Device::mu, for every task (stream == nullptr: a
// synchronous API's task, run for the host). `awaited`: the record a wait waits on.
void on_enqueue(Task& t, const Task* awaited);

// The host learned that `t` completed / that every task completed. Under Device::mu.
void observe(const Task& t);
void observe_all();

// A host-to-host copy done by the host itself (aclrtMemcpy HOST_TO_HOST).
void host_access(const char* api, const TaskSpec& spec);

// A block was freed: forget its accesses (the address may be reused).
void forget_block(uintptr_t base);
void forget_all_blocks();

// Names a stream in hazard lines (aclsimSetStreamName). Under Device::mu.
void name_stream(Stream* s, const char* name);

// aclFinalize: checks the remaining host-buffer watches; returns 500000 if any
// hazard was found since aclInit, else ACL_SUCCESS.
aclError finalize();

// Hazards since aclInit; take() also clears the exit status the hook would set.
uint64_t count();
uint64_t take();

}  // namespace hazard
}  // namespace sim

#endif  // ACL_SIM_SRC_HAZARD_H_
