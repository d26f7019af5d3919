// Which DVPP API generation the process uses (vdec_mix.h).
#include "vdec/vdec_mix.h"

#include <atomic>
#include <mutex>

#include "rules/rules.h"

namespace sim::vdec {
namespace {

std::mutex g_mu;
bool g_used[2] = {false, false};  // guarded by g_mu: the first media call decides
std::atomic<bool> g_system{false};

}  // namespace

aclError use(DvppApi which, const char* api, aclError refused) {
  const int self = which == DvppApi::kV1 ? 0 : 1;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!g_used[1 - self]) {
      g_used[self] = true;
      return ACL_SUCCESS;
    }
  }
  return raise_rule(Rule::kDvppApiMix, refused, api,
                    "this process already uses the DVPP %s API; V1 (acldvpp*, aclvdec*) and V2 "
                    "(hi_mpi_*) must not be mixed in one process (the DVPP refuses the second): "
                    "use one of them",
                    self == 0 ? "V2 (hi_mpi_*)" : "V1 (acldvpp*, aclvdec*)");
}

void set_v2_system(bool open) {
  g_system = open;
}

bool v2_system() {
  return g_system;
}

}  // namespace sim::vdec
