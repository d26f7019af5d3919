// ascgen_pools.cpp: what ascgen_pools.h declares (README.md: how it is compiled).

#include "ascgen_pools.h"

namespace ascgen {

void Pool::allocate(const char* stage, const char* name, const PoolSpec& spec, int window,
                    Cleanup& cleanup) {
  name_ = name;
  bytes_ = spec.slot_bytes;
  slots_.assign(static_cast<size_t>(spec.rule.slots(window)), nullptr);
  for (void*& slot : slots_) {
    slot = alloc_one(stage, spec.memory, spec.slot_bytes, cleanup, name);
  }
}

void EventRing::create(const char* stage, const char* name, int count, Cleanup& cleanup) {
  stage_ = stage;
  events_.assign(static_cast<size_t>(count), nullptr);
  for (aclrtEvent& e : events_) {
    check(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC), stage, "aclrtCreateEventWithFlag");
    aclrtEvent ev = e;
    cleanup.add(std::string("aclrtDestroyEvent of ring ") + name,
                [ev] { return aclrtDestroyEvent(ev); });
  }
}

}  // namespace ascgen
