// ascgen_dvpp.h: the DVPP descriptors the VPC and JPEGD stages share: a picture as the plan
// laid it out, picture descriptors over a pool's slots, ROIs and resize configurations.
// Emitted verbatim by ascgen; hand-written, reviewed once.
#ifndef ASCGEN_DVPP_H_
#define ASCGEN_DVPP_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ascgen_pools.h"

namespace ascgen {

// A YUV420SP picture as the plan laid it out (strides and bytes are the planner's).
struct Picture {
  acldvppPixelFormat format;
  uint32_t width, height, width_stride, height_stride;
  size_t bytes;
};

acldvppPicDesc* new_pic_desc(const char* stage, Cleanup& cleanup);

void set_pic_desc(const char* stage, acldvppPicDesc* d, void* data, uint32_t size,
                  acldvppPixelFormat format, uint32_t width, uint32_t height, uint32_t width_stride,
                  uint32_t height_stride);

// Descriptors of `picture` at item `item` of every slot of `pool` (items > 1: frames laid
// side by side in a batch slot), in the order slot * items + item.
std::vector<acldvppPicDesc*> picture_descs(const char* stage, const Pool& pool, int items,
                                           const Picture& picture, Cleanup& cleanup);

acldvppRoiConfig* new_roi(const char* stage, uint32_t left, uint32_t right, uint32_t top,
                          uint32_t bottom, Cleanup& cleanup);

acldvppResizeConfig* new_resize_config(const char* stage, uint32_t interpolation, Cleanup& cleanup);

}  // namespace ascgen

#endif  // ASCGEN_DVPP_H_
