// Which DVPP API generation the process uses (vdec_mix.h).
#include "vdec/vdec_mix.h"

#include <atomic>
#include <mutex>

#include "rules/rules.h"

namespace sim::vdec {
namespace {

std::mutex g_mu;
bool g_used[2] = {false, false};  // guarded by g_mu
bool g_reported = false;
std::atomic<bool> g_system{false};

}  // namespace

aclError use(DvppApi which, const char* api, aclError refused) {
  (void)refused;  // the call goes on: the V1 media calls are not all recorded yet
  const int self = which == DvppApi::kV1 ? 0 : 1;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_used[self] = true;
    if (!g_used[1 - self] || g_reported) return ACL_SUCCESS;
    g_reported = true;
  }
  raise_rule(Rule::kDvppApiMix, ACL_SUCCESS, api,
             "this process already uses the DVPP %s API; V1 (acldvpp*, aclvdec*) and V2 "
             "(hi_mpi_*) must not be mixed in one process: use one of them",
             self == 0 ? "V2 (hi_mpi_*)" : "V1 (aclvdec*)");
  return ACL_SUCCESS;
}

void set_v2_system(bool open) {
  g_system = open;
}

bool v2_system() {
  return g_system;
}

}  // namespace sim::vdec
