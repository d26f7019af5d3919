#include "memory.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>

#include "guard.h"
#include "hazard.h"
#include "log.h"
#include "profile.h"

namespace sim {
namespace {

struct Block {
  size_t size;       // requested
  size_t accounted;  // after granule and padding
  MemKind kind;
  size_t reserved = 0;  // bytes really allocated (>= size)
};

struct Heap {
  std::mutex mu;
  std::map<uintptr_t, Block> blocks;
  size_t device_used = 0;  // includes DVPP
  size_t dvpp_used = 0;
  aclsimMemStats stats{};
};

Heap& heap() {
  static Heap h;
  return h;
}

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

aclError allocate(const char* api, MemKind kind, void** ptr, size_t size, size_t alignment) {
  if (ptr == nullptr || size == 0)
    return violate(ACL_ERROR_INVALID_PARAM, api, "malloc.args",
                   "pointer %p, size %zu: need a non-NULL pointer and size > 0",
                   static_cast<void*>(ptr), size);
  Heap& h = heap();
  Block b{size, kind == MemKind::kHost ? size : accounted_size(size), kind};
  std::lock_guard<std::mutex> lock(h.mu);
  if (kind != MemKind::kHost && h.device_used + b.accounted > device_budget())
    return violate(ACL_ERROR_RT_MEMORY_ALLOCATION, api, "malloc.device_budget",
                   "%zu bytes (%zu accounted) exceed free device memory %zu of %zu", size,
                   b.accounted, device_budget() - h.device_used, device_budget());
  size_t dvpp_cap = static_cast<size_t>(profile().num("memory.dvpp_bytes"));
  if (kind == MemKind::kDvpp && h.dvpp_used + b.accounted > dvpp_cap)
    return violate(ACL_ERROR_RT_MEMORY_ALLOCATION, api, "malloc.dvpp_budget",
                   "%zu bytes (%zu accounted) exceed free DVPP memory %zu of %zu", size,
                   b.accounted, dvpp_cap - h.dvpp_used, dvpp_cap);
  b.reserved = align_up(b.accounted, alignment);
  void* p = std::aligned_alloc(alignment, b.reserved);
  if (p == nullptr)
    return violate(ACL_ERROR_RT_MEMORY_ALLOCATION, api, "malloc.host_oom",
                   "the simulator's host could not provide %zu bytes", b.accounted);
  h.blocks.emplace(reinterpret_cast<uintptr_t>(p), b);
  if (kind != MemKind::kHost) h.device_used += b.accounted;
  if (kind == MemKind::kDvpp) h.dvpp_used += b.accounted;
  count(h.stats, kind, b, 1);
  *ptr = p;
  return ACL_SUCCESS;
}

void erase_locked(Heap& h, std::map<uintptr_t, Block>::iterator it) {
  const Block& b = it->second;
  if (b.kind != MemKind::kHost) h.device_used -= b.accounted;
  if (b.kind == MemKind::kDvpp) h.dvpp_used -= b.accounted;
  count(h.stats, b.kind, b, -1);
  if (b.kind == MemKind::kHost) guard::forget(it->first);  // pages accessible before free
  std::free(reinterpret_cast<void*>(it->first));
  h.blocks.erase(it);
}

aclError release(const char* api, MemKind kind, void* ptr) {
  static const char* const kAllocator[] = {"?", "aclrtMalloc", "acldvppMalloc", "aclrtMallocHost"};
  if (ptr == nullptr) return violate(ACL_ERROR_INVALID_PARAM, api, "free.null", "pointer is NULL");
  Heap& h = heap();
  std::unique_lock<std::mutex> lock(h.mu);
  auto it = h.blocks.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == h.blocks.end() || it->second.kind != kind)
    return violate(ACL_ERROR_RT_MEMORY_FREE, api, "free.owner",
                   "%p is not the start of a live block from %s", ptr,
                   kAllocator[static_cast<int>(kind)]);
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
  auto it = h.blocks.upper_bound(p);
  if (it == h.blocks.begin()) return MemKind::kUnknown;
  it = std::prev(it);
  if (p + size > it->first + it->second.size) return MemKind::kUnknown;
  return it->second.kind;
}

bool block_of(const void* ptr, size_t size, uintptr_t* base, MemKind* kind) {
  Heap& h = heap();
  uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(h.mu);
  auto it = h.blocks.upper_bound(p);
  if (it == h.blocks.begin()) return false;
  it = std::prev(it);
  if (p + size > it->first + it->second.size) return false;
  *base = it->first;
  *kind = it->second.kind;
  return true;
}

bool guard_host_write(const void* ptr, size_t size, const guard::Owner& owner) {
  Heap& h = heap();
  uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(h.mu);  // the block stays live while its pages are guarded
  auto it = h.blocks.upper_bound(p);
  if (it == h.blocks.begin()) return false;
  it = std::prev(it);
  const Block& b = it->second;
  if (b.kind != MemKind::kHost || p + size > it->first + b.size) return false;
  // A destination that ends the block also covers the block's unused tail.
  uintptr_t hi = p + size == it->first + b.size ? it->first + b.reserved : p + size;
  guard::arm(it->first, p, hi, ptr, size, owner);
  return true;
}

void device_mem_info(size_t* free_bytes, size_t* total_bytes) {
  Heap& h = heap();
  std::lock_guard<std::mutex> lock(h.mu);
  *total_bytes = static_cast<size_t>(profile().num("memory.device_bytes"));
  *free_bytes = device_budget() - h.device_used;
}

void mem_stats(aclsimMemStats* stats) {
  Heap& h = heap();
  std::lock_guard<std::mutex> lock(h.mu);
  *stats = h.stats;
}

size_t release_all() {
  Heap& h = heap();
  std::unique_lock<std::mutex> lock(h.mu);
  size_t n = h.blocks.size();
  while (!h.blocks.empty()) erase_locked(h, h.blocks.begin());
  lock.unlock();
  if (hazard::enabled()) hazard::forget_all_blocks();
  return n;
}

}  // namespace sim
