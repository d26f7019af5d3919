// The DVPP media API generation a process uses, and the V2 media system's state.
//
// Device rule dvpp.api_mix: a process uses the DVPP V1 media API (acldvpp*, aclvdec*) or the V2
// one (hi_mpi_*), never both: CANN's DVPP intercepts the request of the second generation, logs
// "acl and himpi mode is incompatible" and fails it (HA 900 maintenref troubleshooting_0161:
// "mixed use is not supported for either multi-process or multi-thread scenarios"; HA 850
// aclpythondevg_01_0410: "两套接口不能混用"; ACL_FACTS 3.4, 8). The simulator keeps it per
// process (its device model is the process's).
#ifndef ACL_SIM_SRC_VDEC_MIX_H_
#define ACL_SIM_SRC_VDEC_MIX_H_

#include "acl/acl_base.h"

namespace sim::vdec {

enum class DvppApi { kV1, kV2 };

// A media call of generation `which` (public entry point `api`): ACL_SUCCESS, the process's
// generation from then on when it had none; or, when the process already uses the other one,
// the rule dvpp.api_mix and `refused` (what the call then returns, doing nothing).
// V1: acldvppMalloc, acldvppCreateChannel, acldvppJpegDecodeAsync, acldvppVpc*Async,
// aclvdecCreateChannel. V2: hi_mpi_sys_init, hi_mpi_dvpp_malloc, hi_mpi_vdec_create_chn,
// hi_mpi_vpc_sys_create_chn and the hi_mpi_vpc_* tasks. (Descriptor calls touch no engine.)
aclError use(DvppApi which, const char* api, aclError refused);

// hi_mpi_sys_init / hi_mpi_sys_exit: the V2 media system is open (VDEC and VPC need it).
void set_v2_system(bool open);
bool v2_system();

}  // namespace sim::vdec

#endif  // ACL_SIM_SRC_VDEC_MIX_H_
