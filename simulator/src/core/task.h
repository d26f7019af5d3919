// The internal task API: how simulated device work (copies here; JPEGD, VPC
// and model execution in the DVPP and model sources) gets onto the timeline.
//
//   sim::TaskSpec spec;
//   spec.engine = sim::Engine::kVpc;          // which engine's unit it occupies
//   spec.service_us = sim::engine_param(sim::Engine::kVpc, "base_us") + ...;
//   spec.reads = {{in_ptr, in_bytes}};         // byte ranges the task reads
//   spec.writes = {{out_ptr, out_bytes}};      // and writes (for a later hazard check)
//   spec.work = [=] { resize(in_ptr, out_ptr); };  // runs once, at the modelled end
//   spec.name = "vpc_resize";
//   aclError rc = sim::submit("acldvppVpcResizeAsync", stream, std::move(spec));
//
// Semantics:
// - submit() resolves `stream` (NULL = default stream of the current context),
//   checks the current context (107002) and that the stream belongs to it
//   (107003), charges engines.host.submit_us to the calling thread, and enqueues.
// - On the device, a task starts when its stream predecessor has completed, every
//   event it waits on has completed, the single task scheduler has dispatched it
//   (engines.scheduler.per_task_us each, serial across all streams), and a unit
//   of its engine is free (FIFO per engine). It then occupies the unit for
//   service_us of model time.
// - `work` runs on the device thread at the task's modelled completion, in
//   completion order, before anything waiting on the task is released. It must
//   not call the public API. Keep it short: the device thread runs every
//   completion; long pixel work delays when the host observes completions (not
//   model time).
// - While it runs, a task with traffic_bytes > 0 shares the device's memory
//   bandwidth with the other running tasks: when together they ask for more
//   than memory.bandwidth_GBps, all of them slow down by the same factor
//   (docs/shared_bandwidth.md).
// - submit_sync() submits without a stream (a synchronous API such as
//   aclrtMemcpy) and blocks the caller until the task completed.
#ifndef ACL_SIM_SRC_TASK_H_
#define ACL_SIM_SRC_TASK_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "acl/acl_base.h"

namespace sim {

enum class Engine : int {
  kControl = 0,  // zero-duration stream bookkeeping: events, waits, callbacks
  kH2D,
  kD2H,
  kD2D,
  kJpegd,
  kVpc,
  kAicore,
  kLink,  // a transfer over a link between devices or hosts (link.h)
  kVdec,  // the video decoder's cores (vdec/vdec_timing.h)
  kCount
};

// "h2d", "d2h", "d2d", "jpegd", "vpc", "aicore", "vdec" (the profile's engines.<name>).
const char* engine_name(Engine engine);

// engines.<name>.<key> from the profile, e.g. engine_param(Engine::kJpegd, "base_us").
double engine_param(Engine engine, const char* key, double fallback = 0.0);

// Model time a copy engine needs for `bytes`: latency_us + bytes / bandwidth.
double copy_service_us(Engine engine, size_t bytes);

struct ByteRange {
  const void* addr = nullptr;
  size_t size = 0;
};

struct TaskSpec {
  Engine engine = Engine::kControl;
  double service_us = 0.0;
  std::vector<ByteRange> reads;
  std::vector<ByteRange> writes;
  std::function<void()> work;
  std::string name;
  // Bytes the task reads and writes in device DDR, which engines running at
  // the same moment share (memory.bandwidth_GBps; docs/shared_bandwidth.md).
  // -1: the parts of `reads` and `writes` in device or DVPP memory.
  double traffic_bytes = -1.0;
  // Link transfers (link.h): the link the transfer shares with the others
  // crossing it at the same moment, instead of the DDR, its bottleneck
  // bandwidth and the bytes it moves over it.
  std::string link_key;
  double link_GBps = 0.0;
  double link_bytes = 0.0;
  // Model executions: which model (0: none), and the time added when the unit's previous task
  // was another model's (its weights reload; docs/shared_bandwidth.md section 2).
  uint64_t model_key = 0;
  double model_switch_us = 0.0;
};

// Enqueues `spec` on `stream` for public API `api` (used in log lines).
aclError submit(const char* api, void* stream, TaskSpec spec);

// Runs `spec` outside any stream and waits for it (synchronous APIs).
aclError submit_sync(const char* api, TaskSpec spec);

}  // namespace sim

#endif  // ACL_SIM_SRC_TASK_H_
