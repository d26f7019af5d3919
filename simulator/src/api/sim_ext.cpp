// Simulator-only extensions declared in acl_sim/acl_sim.h.
#include "acl_sim/acl_sim.h"

#include "api/api.h"
#include "api/runtime.h"
#include "core/clock.h"
#include "core/device.h"
#include "core/memory.h"
#include "links/machine.h"
#include "report/log.h"
#include "report/trace.h"
#include "rules/hazard.h"
#include "rules/rules.h"

using namespace sim;

extern "C" {

aclError aclsimGetMemStats(aclsimMemStats* stats) {
  if (stats == nullptr) return ACL_ERROR_INVALID_PARAM;
  mem_stats(stats);
  return ACL_SUCCESS;
}

aclError aclsimGetObjectStats(aclsimObjectStats* stats) {
  if (stats == nullptr) return ACL_ERROR_INVALID_PARAM;
  *stats = aclsimObjectStats{};
  Runtime& r = runtime();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto& c : r.contexts) stats->contexts += !c->is_default && !c->destroyed;
  std::lock_guard<std::mutex> dlock(device().mu());
  stats->streams = device().live_streams(true);
  stats->events = device().live_events();
  stats->tasksSubmitted = device().submitted();
  stats->tasksCompleted = device().completed();
  return ACL_SUCCESS;
}

aclError aclsimSetFaults(const char* spec) {
  return set_fault_rules(spec);
}

uint64_t aclsimCallCount(const char* name) {
  return name ? api_call_count(name) : 0;
}

const char* aclsimLastRule(void) {
  return last_rule();
}

void aclsimClearLastRule(void) {
  clear_last_rule();
}

double aclsimNowUs(void) {
  return model_clock().now_us();
}

double aclsimHostNowUs(void) {
  return host_now_us();
}

double aclsimCpuSeconds(void) {
  std::lock_guard<std::mutex> lock(device().mu());
  return device().cpu_seconds();
}

aclError aclsimSetStreamName(aclrtStream stream, const char* name) {
  Device& d = device();
  std::lock_guard<std::mutex> lock(d.mu());
  Stream* s = nullptr;
  if (aclError rc = resolve_stream("aclsimSetStreamName", stream, &s)) return rc;
  hazard::name_stream(s, name);
  trace_set_stream_name(s->id, name);  // always: profiling may start later (aclprofStart)
  return ACL_SUCCESS;
}

uint64_t aclsimHazardCount(void) {
  return hazard::count();
}

uint64_t aclsimTakeHazardCount(void) {
  return hazard::take();
}

uint64_t aclsimRuleCount(void) {
  return rules::count();
}

uint64_t aclsimTakeRuleCount(void) {
  return rules::take();
}

aclError aclsimMachineRemove(const char* name) {
  return name != nullptr && machine::remove(name) ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

}  // extern "C"
