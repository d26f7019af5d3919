// Simulated memory: device (aclrtMalloc*), DVPP (acldvppMalloc) and pinned host
// (aclrtMallocHost) blocks, accounted against the profile.
//
// Device and DVPP blocks are real host memory (so bytes really move) with the
// profile's start alignment (align.device_addr / align.dvpp_addr); pinned host
// blocks start 64-byte aligned, on a page in hazard mode (page guards, guard.h).
// A block of `size` bytes is accounted as ALIGN_UP(size, align.alloc_granule) +
// align.alloc_padding. Device blocks draw on memory.device_bytes minus
// memory.reserved_bytes; DVPP blocks draw on memory.dvpp_bytes AND on the device
// budget (DVPP memory is device DDR). Exhaustion is ACL_ERROR_RT_MEMORY_ALLOCATION.
//
// The DVPP engineer implements acldvppMalloc/acldvppFree on dvpp_alloc/dvpp_free.
#ifndef ACL_SIM_SRC_MEMORY_H_
#define ACL_SIM_SRC_MEMORY_H_

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"
#include "acl_sim/acl_sim.h"
#include "core/task.h"
#include "rules/guard.h"

namespace sim {

enum class MemKind { kUnknown, kDevice, kDvpp, kHost };

// Each returns ACL_SUCCESS or the device's code and logs the rule it broke;
// `api` names the public entry point in that log line.
aclError device_alloc(const char* api, void** ptr, size_t size);
aclError device_free(const char* api, void* ptr);
aclError dvpp_alloc(const char* api, void** ptr, size_t size);
aclError dvpp_free(const char* api, void* ptr);
aclError host_alloc(const char* api, void** ptr, size_t size);
aclError host_free(const char* api, void* ptr);

// Which allocation holds all of [ptr, ptr + size); kUnknown if none does
// (pageable host memory, or a range that runs past its block).
MemKind classify(const void* ptr, size_t size);

// The live block holding all of [ptr, ptr + size): its start and kind; false
// if none does.
bool block_of(const void* ptr, size_t size, uintptr_t* base, MemKind* kind);

// Hazard mode: if [ptr, ptr + size) lies in a pinned host block, guards its
// whole pages for the in-flight copy `owner` that writes it (guard.h); false if
// it is not pinned host memory.
bool guard_host_write(const void* ptr, size_t size, const guard::Owner& owner);

// A task is about to be enqueued: every live block its reads/writes touch is
// held until the task's work ran (spec->work is wrapped). A block freed while
// held stays reserved until then (rule free.in_use, rules.h). `api` names the
// task in that report.
void hold_task_memory(const char* api, TaskSpec* spec, int32_t device);

// Device budget: free and total bytes as aclrtGetMemInfo reports them.
void device_mem_info(size_t* free_bytes, size_t* total_bytes);
void mem_stats(aclsimMemStats* stats);

// Frees every live block (aclrtResetDevice / aclFinalize); returns how many.
size_t release_all(int32_t device = -1);  // -1: every device's

}  // namespace sim

#endif  // ACL_SIM_SRC_MEMORY_H_
