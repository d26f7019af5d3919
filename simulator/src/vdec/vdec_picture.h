// Writing a decoded picture into an output buffer, V1 (acldvppPicDesc) and V2
// (hi_vdec_pic_info) alike, and the checks of that buffer (rule vdec.output_geometry).
#ifndef ACL_SIM_SRC_VDEC_PICTURE_H_
#define ACL_SIM_SRC_VDEC_PICTURE_H_

#include <cstdint>
#include <string>

#include "acl_sim/imaging/video_decode.h"

namespace sim::vdec {

struct Target {
  void* data = nullptr;
  uint32_t width = 0, height = 0;  // 0: not given
  uint32_t width_stride = 0, height_stride = 0;
  uint64_t size = 0;
  bool semiplanar_420 = true;  // NV12 or NV21
  bool nv21 = false;
};

// Empty when `picture` fits the output (NV12/NV21, the stream's size, widthStride a
// multiple of 16 of at least ALIGN(width, 16) and 32, heightStride even and at least
// the height, enough bytes); else what is wrong and what would fit.
std::string misfit(const Target& out, const acl_sim::imaging::VideoPicture& picture);

// Empty when the profile's limits.vdec_in (when it has them) take a picture of this size;
// else what is wrong (rule vdec.stream_size).
std::string outside_limits(const acl_sim::imaging::VideoPicture& picture);

// Copies the picture to the output at its strides, unless the output already holds this
// very picture (content tags; `identity` names the picture's content).
void write_picture(const Target& out, const acl_sim::imaging::VideoPicture& picture,
                   uint64_t identity);

// Test-only fault, ACL_SIM_VDEC_CORRUPT=CHANNEL:PICTURE (simulator README, Environment): true
// for picture number `picture` (0: the first) that channel `channel` delivers, whose Y plane
// then gets one byte flipped (corrupt): a program's --verify must catch it. Unset: never.
bool corrupted(uint32_t channel, uint64_t picture);

// Flips the first byte of the picture in `out` and forgets its content tag (a later write of the
// same picture there rewrites it).
void corrupt(const Target& out);

}  // namespace sim::vdec

#endif  // ACL_SIM_SRC_VDEC_PICTURE_H_
