// Which DVPP API generation the process uses (vdec_mix.h).
#include "vdec/vdec_mix.h"

#include <atomic>

#include "rules/rules.h"

namespace sim::vdec {
namespace {

std::atomic<bool> g_used[2] = {false, false};
std::atomic<bool> g_reported{false};

}  // namespace

void use(DvppApi which, const char* api) {
  const int self = which == DvppApi::kV1 ? 0 : 1;
  g_used[self] = true;
  if (g_used[1 - self] && !g_reported.exchange(true))
    raise_rule(Rule::kDvppApiMix, ACL_SUCCESS, api,
               "this process already uses the DVPP %s API; V1 (acldvpp*, aclvdec*) and V2 "
               "(hi_mpi_*) must not be mixed in one process: use one of them",
               self == 0 ? "V2 (hi_mpi_*)" : "V1 (aclvdec*)");
}

}  // namespace sim::vdec
