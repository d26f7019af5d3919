// Device rule dvpp.api_mix: a process uses the DVPP V1 video API (aclvdec*) or the V2
// media API (hi_mpi_*), never both [HIA zh 800alpha003 aclpythondevg_01_0219; HA 900
// acldevg aclcppdevg_000062; ACL_FACTS 3.4, 8].
#ifndef ACL_SIM_SRC_VDEC_MIX_H_
#define ACL_SIM_SRC_VDEC_MIX_H_

namespace sim::vdec {

enum class DvppApi { kV1, kV2 };

// Records that the process uses `which` (in public entry point `api`); the first use of
// the other one breaks the rule (the call goes on).
void use(DvppApi which, const char* api);

}  // namespace sim::vdec

#endif  // ACL_SIM_SRC_VDEC_MIX_H_
