// Page guards (hazard mode): catch plain CPU loads and stores into the
// destination of an async copy that is still in flight.
//
// When a task that writes pinned host memory (aclrtMemcpyAsync to the host) is
// enqueued, the pages lying entirely inside its destination are made
// inaccessible (mprotect PROT_NONE) until the task completes. A host access to
// them raises SIGSEGV; the handler finds the guard, records the fault, makes the
// pages accessible again and returns, so the access is retried and reads or
// writes the (stale) bytes as on real hardware. The hazard detector turns the
// recorded faults into HAZARD lines (take_faults) at its next call.
//
// Pinned blocks start on a page in hazard mode (memory.cpp) and own the rest of
// their last page, so a copy of a whole block guards all of it; a partial page
// at either end of a destination inside a block stays unguarded (the
// neighbouring bytes may be another slot the host legitimately uses).
//
// The simulator never faults on its own guards: before a task's work touches
// pinned memory (and around a host-to-host aclrtMemcpy) begin_access() ends that
// task's guard and opens every guarded page its ranges touch, end_access() guards
// again the pages of copies still in flight; a freed block drops its guards first.
//
// The handler takes no lock and allocates nothing: guards live in a fixed table
// of slots published with atomics (a sequence number in each slot's tag). An
// address no guard covers goes to the handler installed before (ASan's,
// TSan's), or to the default action: real crashes still crash.
#ifndef ACL_SIM_SRC_GUARD_H_
#define ACL_SIM_SRC_GUARD_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/task.h"

namespace sim {
namespace guard {

// The in-flight copy a guard belongs to (for the hazard line).
struct Owner {
  const char* api;   // static string
  int agent;         // the hazard detector's agent (stream)
  uint64_t task_id;  // the task whose completion ends the guard
};

// A host access that hit a guard.
struct Fault {
  Owner owner;
  uintptr_t base;    // the pinned block
  uintptr_t lo, hi;  // the copy's destination bytes
  uintptr_t addr;    // the faulting address
  int access;        // 1 read, 2 write, 0 unknown
};

// aclInit in hazard mode: installs the SIGSEGV handler (once per process) and
// drops every guard left from an earlier session.
void configure();

// Page size, for the hazard-mode alignment of pinned blocks.
size_t page_size();

// Guards the whole pages of [lo, hi), inside pinned block `base`; [dst, dst +
// size) is the copy's destination (reported). memory.cpp, under its heap lock,
// so that the block cannot be freed meanwhile.
void arm(uintptr_t base, uintptr_t lo, uintptr_t hi, const void* dst, size_t size,
         const Owner& owner);

// The simulator itself is about to touch `spec`'s ranges (task `task_id`'s
// work at its completion; 0: a host-to-host copy): ends that task's guards and
// opens every guarded page the ranges touch until end_access(token) guards
// again the pages of copies still in flight (token 0: nothing to end).
uint64_t begin_access(const TaskSpec& spec, uint64_t task_id);
void end_access(uint64_t token);

// True if a guard covers a byte of [p, p + n): the simulator must not read it.
bool covers(const void* p, size_t n);

// The pinned block at `base` is about to be freed: drops its guards.
void forget(uintptr_t base);

// Drops every guard (aclFinalize, process exit): every page accessible again.
void disarm_all();

// Faults recorded since the last call (cheap when none).
std::vector<Fault> take_faults();

}  // namespace guard
}  // namespace sim

#endif  // ACL_SIM_SRC_GUARD_H_
