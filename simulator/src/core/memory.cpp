#include "core/memory.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <vector>

#include "api/runtime.h"
#include "core/profile.h"
#include "report/log.h"
#include "rules/guard.h"
#include "rules/hazard.h"
#include "rules/rules.h"

namespace sim {
namespace {

struct Block {
  size_t size;       // requested
  size_t accounted;  // after granule and padding
  MemKind kind;
  size_t reserved = 0;  // bytes really allocated (>= size)
  // Unfinished tasks whose reads or writes lie in the block (hold_task_memory).
  // A block freed while users > 0 stays reserved (freed = true: invisible to
  // lookups, still accounted) until the last of them completes.
  int users = 0;
  bool freed = false;
  const char* last_user = "";  // the API of the last task that held it
  int32_t device = 0;          // the device current when it was allocated
};

struct Heap {
  std::mutex mu;
  std::map<uintptr_t, Block> blocks;
  size_t device_used[kMaxDevices] = {};  // per device, includes DVPP
  size_t dvpp_used[kMaxDevices] = {};
  aclsimMemStats stats{};
};

// Never destroyed: device and mover threads may finish a task's work (and
// release its blocks) after static destruction began (exit without aclFinalize).
Heap& heap() {
  static Heap* h = new Heap;
  return *h;
}

void erase_locked(Heap& h, std::map<uintptr_t, Block>::iterator it);

size_t align_up(size_t v, size_t a) {
  return a == 0 ? v : (v + a - 1) / a * a;
}

size_t accounted_size(size_t size) {
  const Profile& p = profile();
  return align_up(size, static_cast<size_t>(p.num("align.alloc_granule", 32))) +
         static_cast<size_t>(p.num("align.alloc_padding", 32));
}

size_t device_budget() {
  const Profile& p = profile();
  double b = p.num("memory.device_bytes") - p.num("memory.reserved_bytes");
  return b > 0 ? static_cast<size_t>(b) : 0;
}

void count(aclsimMemStats& s, MemKind kind, const Block& b, int sign) {
  size_t n = static_cast<size_t>(sign);
  switch (kind) {
    case MemKind::kDevice:
      s.deviceAllocs += n;
      s.deviceBytes += n * b.accounted;
      break;
    case MemKind::kDvpp:
      s.dvppAllocs += n;
      s.dvppBytes += n * b.accounted;
      s.deviceBytes += n * b.accounted;
      break;
    case MemKind::kHost:
      s.hostAllocs += n;
      s.hostBytes += n * b.size;
      break;
    default:
      break;
  }
}

// The live (not freed) block holding all of [p, p + size); end() if none. Caller holds h.mu.
std::map<uintptr_t, Block>::iterator live_block(Heap& h, uintptr_t p, size_t size) {
  auto it = h.blocks.upper_bound(p);
  if (it == h.blocks.begin()) return h.blocks.end();
  it = std::prev(it);
  if (it->second.freed || p + size > it->first + it->second.size) return h.blocks.end();
  return it;
}

// The last task holding the blocks at `bases` completed: release what was freed meanwhile.
void unhold(const std::vector<uintptr_t>& bases) {
  Heap& h = heap();
  std::vector<uintptr_t> gone;
  {
    std::lock_guard<std::mutex> lock(h.mu);
    for (uintptr_t base : bases) {
      auto it = h.blocks.find(base);
      if (it == h.blocks.end()) continue;  // release_all gave up on it
      if (--it->second.users == 0 && it->second.freed) {
        erase_locked(h, it);
        gone.push_back(base);
      }
    }
  }
  // Lock order: the hazard detector's lock is never taken under Heap::mu.
  if (hazard::enabled())
    for (uintptr_t base : gone) hazard::forget_block(base);
}

aclError allocate(const char* api, MemKind kind, void** ptr, size_t size, size_t alignment) {
  if (ptr == nullptr || size == 0)
    return raise_rule(Rule::kMallocArgs, ACL_ERROR_INVALID_PARAM, api,
                      "pointer %p, size %zu: need a non-NULL pointer and size > 0",
                      static_cast<void*>(ptr), size);
  Heap& h = heap();
  Block b{size, kind == MemKind::kHost ? size : accounted_size(size), kind};
  b.device = current_device_id();
  const int32_t d = b.device;
  std::lock_guard<std::mutex> lock(h.mu);
  if (kind != MemKind::kHost && h.device_used[d] + b.accounted > device_budget())
    return raise_rule(Rule::kMallocDeviceBudget, ACL_ERROR_RT_MEMORY_ALLOCATION, api,
                      "%zu bytes (%zu accounted) exceed free device memory %zu of %zu", size,
                      b.accounted, device_budget() - h.device_used[d], device_budget());
  size_t dvpp_cap = static_cast<size_t>(profile().num("memory.dvpp_bytes"));
  if (kind == MemKind::kDvpp && h.dvpp_used[d] + b.accounted > dvpp_cap)
    return raise_rule(Rule::kMallocDvppBudget, ACL_ERROR_RT_MEMORY_ALLOCATION, api,
                      "%zu bytes (%zu accounted) exceed free DVPP memory %zu of %zu", size,
                      b.accounted, dvpp_cap - h.dvpp_used[d], dvpp_cap);
  b.reserved = align_up(b.accounted, alignment);
  void* p = std::aligned_alloc(alignment, b.reserved);
  if (p == nullptr)
    return raise_rule(Rule::kMallocHostOom, ACL_ERROR_RT_MEMORY_ALLOCATION, api,
                      "the simulator's host could not provide %zu bytes", b.accounted);
  h.blocks.emplace(reinterpret_cast<uintptr_t>(p), b);
  if (kind != MemKind::kHost) h.device_used[d] += b.accounted;
  if (kind == MemKind::kDvpp) h.dvpp_used[d] += b.accounted;
  count(h.stats, kind, b, 1);
  *ptr = p;
  return ACL_SUCCESS;
}

void erase_locked(Heap& h, std::map<uintptr_t, Block>::iterator it) {
  const Block& b = it->second;
  if (b.kind != MemKind::kHost) h.device_used[b.device] -= b.accounted;
  if (b.kind == MemKind::kDvpp) h.dvpp_used[b.device] -= b.accounted;
  count(h.stats, b.kind, b, -1);
  if (b.kind == MemKind::kHost) guard::forget(it->first);  // pages accessible before free
  std::free(reinterpret_cast<void*>(it->first));
  h.blocks.erase(it);
}

aclError release(const char* api, MemKind kind, void* ptr) {
  static const char* const kAllocator[] = {"?", "aclrtMalloc", "acldvppMalloc", "aclrtMallocHost"};
  if (ptr == nullptr)
    return raise_rule(Rule::kFreeNull, ACL_ERROR_INVALID_PARAM, api, "pointer is NULL");
  Heap& h = heap();
  std::unique_lock<std::mutex> lock(h.mu);
  auto it = h.blocks.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == h.blocks.end() || it->second.kind != kind || it->second.freed)
    return raise_rule(Rule::kFreeOwner, ACL_ERROR_RT_MEMORY_FREE, api,
                      "%p is not the start of a live block from %s", ptr,
                      kAllocator[static_cast<int>(kind)]);
  if (it->second.users > 0) {
    // The device would DMA into memory the allocator may hand out again; the
    // simulator keeps the block until the tasks finished (never a crash).
    it->second.freed = true;
    int users = it->second.users;
    size_t size = it->second.size;
    const char* last = it->second.last_user;
    lock.unlock();
    return raise_rule(Rule::kFreeInUse, ACL_SUCCESS, api,
                      "%p (%zu bytes from %s) is still used by %d unfinished task(s) (last: "
                      "%s): synchronise the stream (or wait for its event) before freeing; the "
                      "block stays reserved until they finish",
                      ptr, size, kAllocator[static_cast<int>(kind)], users, last);
  }
  erase_locked(h, it);
  lock.unlock();  // lock order: the hazard detector's lock before Heap::mu
  if (hazard::enabled()) hazard::forget_block(reinterpret_cast<uintptr_t>(ptr));
  return ACL_SUCCESS;
}

size_t device_align() {
  return static_cast<size_t>(profile().num("align.device_addr", 64));
}

}  // namespace

aclError device_alloc(const char* api, void** ptr, size_t size) {
  return allocate(api, MemKind::kDevice, ptr, size, device_align());
}
aclError device_free(const char* api, void* ptr) {
  return release(api, MemKind::kDevice, ptr);
}
aclError dvpp_alloc(const char* api, void** ptr, size_t size) {
  return allocate(api, MemKind::kDvpp, ptr, size,
                  static_cast<size_t>(profile().num("align.dvpp_addr", 128)));
}
aclError dvpp_free(const char* api, void* ptr) {
  return release(api, MemKind::kDvpp, ptr);
}
aclError host_alloc(const char* api, void** ptr, size_t size) {
  // Hazard mode: blocks start on a page (still 64-byte aligned) and own the
  // rest of their last page, so that copies into them can be page-guarded.
  size_t align = hazard::enabled() ? std::max<size_t>(64, guard::page_size()) : 64;
  return allocate(api, MemKind::kHost, ptr, size, align);
}
aclError host_free(const char* api, void* ptr) {
  return release(api, MemKind::kHost, ptr);
}

MemKind classify(const void* ptr, size_t size) {
  Heap& h = heap();
  uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(h.mu);
  auto it = live_block(h, p, size);
  return it == h.blocks.end() ? MemKind::kUnknown : it->second.kind;
}

bool block_of(const void* ptr, size_t size, uintptr_t* base, MemKind* kind) {
  Heap& h = heap();
  uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(h.mu);
  auto it = live_block(h, p, size);
  if (it == h.blocks.end()) return false;
  *base = it->first;
  *kind = it->second.kind;
  return true;
}

bool guard_host_write(const void* ptr, size_t size, const guard::Owner& owner) {
  Heap& h = heap();
  uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(h.mu);  // the block stays live while its pages are guarded
  auto it = live_block(h, p, size);
  if (it == h.blocks.end()) return false;
  const Block& b = it->second;
  if (b.kind != MemKind::kHost) return false;
  // A destination that ends the block also covers the block's unused tail.
  uintptr_t hi = p + size == it->first + b.size ? it->first + b.reserved : p + size;
  guard::arm(it->first, p, hi, ptr, size, owner);
  return true;
}

void device_mem_info(size_t* free_bytes, size_t* total_bytes) {
  Heap& h = heap();
  std::lock_guard<std::mutex> lock(h.mu);
  *total_bytes = static_cast<size_t>(profile().num("memory.device_bytes"));
  *free_bytes = device_budget() - h.device_used[current_device_id()];
}

void mem_stats(aclsimMemStats* stats) {
  Heap& h = heap();
  std::lock_guard<std::mutex> lock(h.mu);
  *stats = h.stats;
}

void hold_task_memory(const char* api, TaskSpec* spec, int32_t device) {
  Heap& h = heap();
  std::vector<uintptr_t> held;
  uintptr_t foreign = 0;  // a device block of another device
  int32_t foreign_device = 0;
  {
    std::lock_guard<std::mutex> lock(h.mu);
    auto take = [&](const ByteRange& r) {
      if (r.size == 0) return;
      auto it = live_block(h, reinterpret_cast<uintptr_t>(r.addr), r.size);
      if (it == h.blocks.end() || std::find(held.begin(), held.end(), it->first) != held.end())
        return;
      if (it->second.kind != MemKind::kHost && it->second.device != device && foreign == 0) {
        foreign = it->first;
        foreign_device = it->second.device;
      }
      ++it->second.users;
      it->second.last_user = api != nullptr ? api : "?";
      held.push_back(it->first);
    };
    for (const ByteRange& r : spec->reads) take(r);
    for (const ByteRange& r : spec->writes) take(r);
  }
  if (foreign != 0)
    raise_rule(Rule::kMemoryOtherDevice, ACL_SUCCESS, api,
               "the task on device %d uses %p, device memory of device %d: streams and memory "
               "belong to their device's context",
               device, reinterpret_cast<void*>(foreign), foreign_device);
  if (held.empty()) return;
  std::function<void()> inner = std::move(spec->work);
  spec->work = [inner, held] {
    if (inner) inner();
    unhold(held);
  };
}

size_t release_all(int32_t device) {
  Heap& h = heap();
  std::unique_lock<std::mutex> lock(h.mu);
  size_t n = 0;
  std::vector<uintptr_t> gone;
  for (auto it = h.blocks.begin(); it != h.blocks.end();) {
    auto next = std::next(it);
    if (device >= 0 && it->second.device != device) {
      it = next;
      continue;
    }
    if (device >= 0) gone.push_back(it->first);
    if (it->second.users > 0) {
      // A task that never finished (the device did not drain) may still
      // write it: forget the block but leave its memory alone.
      h.blocks.erase(it);
    } else {
      n += !it->second.freed;
      erase_locked(h, it);
    }
    it = next;
  }
  lock.unlock();
  if (hazard::enabled() && device < 0) hazard::forget_all_blocks();
  if (hazard::enabled())
    for (uintptr_t base : gone) hazard::forget_block(base);
  return n;
}

}  // namespace sim
