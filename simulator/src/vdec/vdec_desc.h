// The objects behind the opaque VDEC V1 types (aclvdecChannelDesc,
// acldvppStreamDesc, aclvdecFrameConfig) and a created channel's state.
#ifndef ACL_SIM_SRC_VDEC_DESC_H_
#define ACL_SIM_SRC_VDEC_DESC_H_

#include <cstdint>
#include <deque>
#include <memory>

#ifndef ENABLE_DVPP_INTERFACE
#define ENABLE_DVPP_INTERFACE  // the simulator always builds the DVPP API
#endif
#include "acl/ops/acl_dvpp.h"

namespace sim {
struct Stream;
struct Task;
namespace vdec {
struct Channel;
}
}  // namespace sim

struct aclvdecChannelDesc {
  uint32_t channelId = 0;
  uint64_t threadId = 0;
  aclvdecCallback callback = nullptr;
  acldvppStreamFormat enType = H265_MAIN_LEVEL;                       // CANN's documented default
  acldvppPixelFormat outPicFormat = PIXEL_FORMAT_YUV_SEMIPLANAR_420;  // documented default
  uint32_t outPicWidth = 0;
  uint32_t outPicHeight = 0;
  uint32_t refFrameNum = 0;
  std::shared_ptr<sim::vdec::Channel> channel;  // between create and destroy
};

struct acldvppStreamDesc {
  void* data = nullptr;
  uint32_t size = 0;
  acldvppStreamFormat format = H264_BASELINE_LEVEL;
  uint64_t timestamp = 0;
  uint32_t retCode = 0;
  uint8_t eos = 0;
};

struct aclvdecFrameConfig {
  uint32_t reserved = 0;
};

#endif  // ACL_SIM_SRC_VDEC_DESC_H_
