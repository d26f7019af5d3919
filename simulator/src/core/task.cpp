// The internal task API (task.h) on top of the device timeline.
#include "core/task.h"

#include <string>

#include "api/runtime.h"
#include "core/clock.h"
#include "core/device.h"
#include "core/memory.h"
#include "core/profile.h"
#include "report/log.h"
#include "rules/hazard.h"

namespace sim {

const char* engine_name(Engine engine) {
  static const char* const kNames[] = {"control", "h2d",    "d2h",  "d2d", "jpegd",
                                       "vpc",     "aicore", "link", "vdec"};
  int i = static_cast<int>(engine);
  return i >= 0 && i < static_cast<int>(Engine::kCount) ? kNames[i] : "?";
}

double engine_param(Engine engine, const char* key, double fallback) {
  return profile().num(std::string("engines.") + engine_name(engine) + "." + key, fallback);
}

double copy_service_us(Engine engine, size_t bytes) {
  double gbps = engine_param(engine, "bandwidth_GBps", 1.0);
  return engine_param(engine, "latency_us") + static_cast<double>(bytes) / (gbps * 1e3);
}

namespace {

// The device-side bytes of a task's reads and writes (host memory is reached
// over PCIe, not through the device's DDR).
void derive_traffic(TaskSpec& spec) {
  if (spec.traffic_bytes >= 0 || spec.engine == Engine::kControl) return;
  double bytes = 0;
  for (const auto* side : {&spec.reads, &spec.writes})
    for (const ByteRange& r : *side) {
      MemKind k = classify(r.addr, r.size);
      if (k == MemKind::kDevice || k == MemKind::kDvpp) bytes += static_cast<double>(r.size);
    }
  spec.traffic_bytes = bytes;
}

}  // namespace

aclError submit(const char* api, void* stream, TaskSpec spec) {
  derive_traffic(spec);
  double stamp = charge_host();
  Device& d = device();
  std::unique_lock<std::mutex> lk(d.mu());
  Stream* s = nullptr;
  if (aclError rc = resolve_stream(api, stream, &s)) return rc;
  hold_task_memory(api, &spec, d.id());  // freeing its memory before it ran: rule free.in_use
  d.enqueue(lk, s, TaskKind::kWork, std::move(spec), stamp, nullptr, api);
  return ACL_SUCCESS;
}

aclError submit_sync(const char* api, TaskSpec spec) {
  if (aclError rc = require_context(api)) return rc;
  derive_traffic(spec);
  double stamp = std::max(model_clock().now_us(), 0.0);
  Device& d = device();
  std::unique_lock<std::mutex> lk(d.mu());
  auto task = d.enqueue(lk, nullptr, TaskKind::kWork, std::move(spec), stamp, nullptr, api);
  d.wait_done(lk, task, nullptr);
  if (hazard::enabled()) hazard::observe(*task);
  return ACL_SUCCESS;
}

}  // namespace sim
