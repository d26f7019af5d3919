// The VPC engine's task, shared by the V1 calls (acldvppVpc*Async, dvpp_vpc.cpp) and the V2 ones
// (hi_mpi_vpc_*, vpc_mpi.cpp): one task on engine kVpc (one unit) for
//   service_us = engines.vpc.base_us + engines.vpc.per_roi_us * (regions - 1)
//                + engines.vpc.per_mpixel_us * output Mpixels
// (docs/vpc_batch_time.md), which resamples each region at its completion.
#ifndef ACL_SIM_SRC_DVPP_VPC_H_
#define ACL_SIM_SRC_DVPP_VPC_H_

#include <vector>

#include "acl_sim/imaging/resize.h"
#include "core/task.h"
#include "dvpp/dvpp_desc.h"

namespace sim::dvpp {

// One region: src_roi of `in` resampled into dst_roi of `out` (only dst_roi is written).
struct VpcItem {
  acldvppPicDesc in;
  acldvppPicDesc out;
  acl_sim::imaging::Roi src_roi;
  acl_sim::imaging::Roi dst_roi;
};

struct VpcJob {
  const char* api = "";
  std::vector<VpcItem> items;
  acl_sim::imaging::Interpolation interpolation = acl_sim::imaging::Interpolation::kDefault;
};

// The job's task on engine kVpc: its time (above), what it reads and writes, its work. The
// pictures' memory is the caller's to check.
TaskSpec vpc_task(const char* api, VpcJob job);

}  // namespace sim::dvpp

#endif  // ACL_SIM_SRC_DVPP_VPC_H_
