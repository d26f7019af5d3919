// The leak report at aclFinalize (leak.h).
#include "report/leak.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "acl_sim/acl_sim.h"
#include "api/runtime.h"
#include "core/device.h"
#include "core/memory.h"
#include "dvpp/dvpp_desc.h"
#include "model/model_internal.h"
#include "report/log.h"

namespace sim {

std::atomic<long> g_live_data_buffers{0};

namespace {

std::atomic<bool> g_found_at_reset{false};  // reported by a device teardown

bool enabled() {
  const char* env = std::getenv("ACL_SIM_LEAK_CHECK");
  return env != nullptr && *env != '\0' && std::strcmp(env, "0") != 0;
}

// One line for `n` objects of `what`; counts it in *kinds.
void line(const char* api, long n, const char* what, int* kinds) {
  if (n <= 0) return;
  ++*kinds;
  report("LEAK", "%ld %s still live at %s", n, what, api);
}

void memory_line(const char* api, size_t n, size_t bytes, const char* what, int* kinds) {
  if (n == 0) return;
  ++*kinds;
  report("LEAK", "%zu %s (%zu bytes) still live at %s", n, what, bytes, api);
}

}  // namespace

aclError leak_check(const char* api, bool device_only) {
  if (!enabled()) return ACL_SUCCESS;
  int kinds = 0;
  aclsimMemStats m{};
  mem_stats(&m);
  memory_line(api, m.deviceAllocs, m.deviceBytes - m.dvppBytes, "device allocations (aclrtMalloc)",
              &kinds);
  memory_line(api, m.dvppAllocs, m.dvppBytes, "DVPP allocations (acldvppMalloc)", &kinds);
  memory_line(api, m.hostAllocs, m.hostBytes, "pinned host allocations (aclrtMallocHost)", &kinds);
  long contexts = 0;
  for (const auto& c : runtime().contexts) contexts += !c->is_default && !c->destroyed;
  long streams = 0, events = 0;
  for (int32_t id = 0; id < kMaxDevices; ++id) {  // every device of the process
    Device& d = device_at(id);
    std::lock_guard<std::mutex> lock(d.mu());
    streams += static_cast<long>(d.live_streams(true));
    events += static_cast<long>(d.live_events());
  }
  line(api, streams, "streams", &kinds);
  line(api, events, "events", &kinds);
  line(api, contexts, "contexts (aclrtCreateContext)", &kinds);
  dvpp::LiveCounts d = dvpp::live_counts();
  line(api, d.channels, "DVPP channels (acldvppCreateChannel)", &kinds);
  if (device_only) {
    line(api, static_cast<long>(live_models()), "models (aclmdlLoad*)", &kinds);
    if (kinds > 0) g_found_at_reset = true;
    return kinds > 0 ? ACL_ERROR_FAILURE : ACL_SUCCESS;
  }
  line(api, d.channel_desc, "DVPP channel descriptors", &kinds);
  line(api, d.pic, "DVPP picture descriptors", &kinds);
  line(api, d.batch, "DVPP batch picture descriptors", &kinds);
  line(api, d.roi, "DVPP ROI configs", &kinds);
  line(api, d.resize, "DVPP resize configs", &kinds);
  line(api, static_cast<long>(live_models()), "models (aclmdlLoad*)", &kinds);
  line(api, live_model_descs(), "model descriptors (aclmdlCreateDesc)", &kinds);
  line(api, live_datasets(), "datasets (aclmdlCreateDataset)", &kinds);
  line(api, g_live_data_buffers.load(), "data buffers (aclCreateDataBuffer)", &kinds);
  bool earlier = g_found_at_reset.exchange(false);
  return kinds > 0 || earlier ? ACL_ERROR_FAILURE : ACL_SUCCESS;
}

}  // namespace sim
