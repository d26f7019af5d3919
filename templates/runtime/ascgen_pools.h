// ascgen_pools.h: a worker's rings, allocated once at start-up: pools of equal buffer slots in
// DVPP, device or pinned host memory (sized by the planner's slot rule for the run's window),
// and the rings of events that order their writers and readers.
// Emitted verbatim by ascgen; hand-written, reviewed once, shared by every pipeline.
#ifndef ASCGEN_POOLS_H_
#define ASCGEN_POOLS_H_

#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ascgen_acl.h"

namespace ascgen {

// The allocator of DVPP memory: acldvppMalloc, or in a program of the V2 media API
// hi_mpi_dvpp_malloc (ascgen_video_v2.h sets it before any pool is allocated).
struct DvppAllocator {
  aclError (*alloc)(void** p, size_t bytes);
  aclError (*release)(void* p);
  const char* alloc_name;
  const char* release_name;
};

inline DvppAllocator& dvpp_allocator() {
  static DvppAllocator allocator{[](void** p, size_t n) { return acldvppMalloc(p, n); },
                                 [](void* p) { return acldvppFree(p); }, "acldvppMalloc",
                                 "acldvppFree"};
  return allocator;
}

enum class Memory { kDvpp, kDevice, kHostPinned };

// How many slots a ring has for a window of frames in flight per thread (--depth, or the
// sync window): the planner's SlotRule (ascgen/plan/model.py), applied to the run-time window.
struct SlotRule {
  int frames_per_slot;  // 1 for frame pools, the batch for batch pools
  int min_slots;        // per_stage batch rings keep two batches
  int fixed;            // a per-stage depth from the spec, 0 = none
  constexpr int slots(int window) const {
    return fixed > 0 ? fixed
                     : std::max(min_slots, (window + frames_per_slot - 1) / frames_per_slot);
  }
};

// A pool as the plan sized it: memory kind, bytes per slot (as requested and as the
// allocator reserves them) and its slot rule.
struct PoolSpec {
  Memory memory;
  size_t slot_bytes;
  size_t alloc_bytes;
  SlotRule rule;
};

// What frame or batch `index` uses of a ring of descriptors, one per slot or frame in flight:
// element index % their count (as a Pool's slot).
template <class T>
T in_flight(const std::vector<T>& ring, int64_t index) {
  assert(index >= 0 && !ring.empty());
  return ring[static_cast<size_t>(index % static_cast<int64_t>(ring.size()))];
}

// A ring of equal slots of one memory kind, allocated once, pre-touched, freed by Cleanup.
class Pool {
 public:
  void allocate(const char* stage, const char* name, const PoolSpec& spec, int window,
                Cleanup& cleanup);
  // Frame or batch `index` uses slot index % slots (a reuse distance of slots()).
  void* slot(int64_t index) const {
    assert(index >= 0 && !slots_.empty());
    return slots_[static_cast<size_t>(index) % slots_.size()];
  }
  int slots() const { return static_cast<int>(slots_.size()); }
  size_t slot_bytes() const { return bytes_; }

 private:
  // Allocates one slot and registers its release before anything else can fail, so a failed
  // memset cannot leak the block.
  static void* alloc_one(const char* stage, Memory memory, size_t bytes, Cleanup& cleanup,
                         const char* pool) {
    void* p = nullptr;
    switch (memory) {
      case Memory::kDvpp:
        check(dvpp_allocator().alloc(&p, bytes), stage, dvpp_allocator().alloc_name);
        break;
      case Memory::kDevice:
        check(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), stage, "aclrtMalloc");
        break;
      case Memory::kHostPinned:
        check(aclrtMallocHost(&p, bytes), stage, "aclrtMallocHost");
        break;
    }
    cleanup.add(std::string(free_name(memory)) + " of pool " + pool, release_for(memory, p));
    if (memory == Memory::kHostPinned)
      std::memset(p, 0, bytes);  // pre-touch: no page faults during the run
    else
      check(aclrtMemset(p, bytes, 0, bytes), stage, "aclrtMemset");
    return p;
  }
  static const char* free_name(Memory memory) {
    switch (memory) {
      case Memory::kDvpp:
        return dvpp_allocator().release_name;
      case Memory::kDevice:
        return "aclrtFree";
      case Memory::kHostPinned:
        break;
    }
    return "aclrtFreeHost";
  }
  static std::function<aclError()> release_for(Memory memory, void* p) {
    switch (memory) {
      case Memory::kDvpp:
        return [p, release = dvpp_allocator().release] { return release(p); };
      case Memory::kDevice:
        return [p] { return aclrtFree(p); };
      case Memory::kHostPinned:
        break;
    }
    return [p] { return aclrtFreeHost(p); };
  }
  std::string name_;
  size_t bytes_ = 0;
  std::vector<void*> slots_;
};

// A ring of classic events with exactly one waiter, one event per slot of the pool it guards.
// Each record is waited on once and reset by its waiter before the ring comes round to it
// again: Create -> Record -> StreamWaitEvent -> ResetEvent on the waiting stream (ACL_FACTS
// 1.4 "Events": one waiter per event; only Ex events, absent on the 310, may be re-recorded).
class EventRing {
 public:
  void create(const char* stage, const char* name, int count, Cleanup& cleanup);
  int size() const { return static_cast<int>(events_.size()); }
  // The recorder: marks item `index` done on `stream`.
  void record(int64_t index, aclrtStream stream) const {
    check(aclrtRecordEvent(at(index), stream), stage_, "aclrtRecordEvent");
  }
  // The waiting stream: work submitted after this waits for item `index`; the event is then
  // reset on the same stream, ready for its next record.
  void wait(int64_t index, aclrtStream stream) const {
    aclrtEvent e = at(index);
    check(aclrtStreamWaitEvent(stream, e), stage_, "aclrtStreamWaitEvent");
    check(aclrtResetEvent(e, stream), stage_, "aclrtResetEvent");
  }
  // The host as the waiter: blocks until item `index` is done, then resets the event on the
  // recording stream, before that stream's next record of it.
  void host_wait(int64_t index, aclrtStream recorder) const {
    aclrtEvent e = at(index);
    check(aclrtSynchronizeEvent(e), stage_, "aclrtSynchronizeEvent");
    check(aclrtResetEvent(e, recorder), stage_, "aclrtResetEvent");
  }

 private:
  aclrtEvent at(int64_t index) const {
    assert(index >= 0 && !events_.empty());
    return events_[static_cast<size_t>(index) % events_.size()];
  }
  const char* stage_ = "";
  std::vector<aclrtEvent> events_;
};

// A member of a worker W as its program lists its pools (W::kPools, PoolOf) and event rings
// (W::kEventRings, RingOf): the pool spec that sizes it (a ring: the pool whose slots it counts,
// one event a slot), the stage it belongs to (named in errors), its name and the member; a ring
// with a null member is one the runtime's object part creates itself (ascgen_objects.h), listed
// to be counted.
template <class W, class T>
struct MemberOf {
  const PoolSpec* spec;
  const char* stage;
  const char* name;
  T W::* member;
};
template <class W>
using PoolOf = MemberOf<W, Pool>;
template <class W>
using RingOf = MemberOf<W, EventRing>;

// The event rings of a worker none of whose streams waits on another.
template <class W>
using NoEventRings = std::array<RingOf<W>, 0>;

// Allocates W's pools and creates its event rings in `w`, for `window` frames in flight.
template <class W>
void allocate_rings(W& w, int window, Cleanup& cleanup) {
  for (const PoolOf<W>& p : W::kPools)
    (w.*p.member).allocate(p.stage, p.name, *p.spec, window, cleanup);
  for (const RingOf<W>& r : W::kEventRings)
    if (r.member != nullptr)
      (w.*r.member).create(r.stage, r.name, r.spec->rule.slots(window), cleanup);
}

// What one worker of W's needs for `window` frames in flight, for the start-up check.
struct WorkerNeeds {
  int64_t events = 0;
  int64_t device_bytes = 0;  // its pools in device and DVPP memory
  int64_t dvpp_bytes = 0;
};

template <class W>
WorkerNeeds worker_needs(int window) {
  WorkerNeeds needs;
  for (const RingOf<W>& r : W::kEventRings) needs.events += r.spec->rule.slots(window);
  for (const PoolOf<W>& p : W::kPools) {
    const int64_t bytes = static_cast<int64_t>(p.spec->alloc_bytes) * p.spec->rule.slots(window);
    if (p.spec->memory == Memory::kDvpp) needs.dvpp_bytes += bytes;
    if (p.spec->memory != Memory::kHostPinned) needs.device_bytes += bytes;
  }
  return needs;
}

}  // namespace ascgen

#endif  // ASCGEN_POOLS_H_
