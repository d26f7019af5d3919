// ascgen_dvpp.cpp: what ascgen_dvpp.h declares (README.md: how it is compiled).

#include "ascgen_dvpp.h"

namespace ascgen {

acldvppPicDesc* new_pic_desc(const char* stage, Cleanup& cleanup) {
  acldvppPicDesc* desc = require(acldvppCreatePicDesc(), stage, "acldvppCreatePicDesc");
  cleanup.add("acldvppDestroyPicDesc", [desc] { return acldvppDestroyPicDesc(desc); });
  return desc;
}

void set_pic_desc(const char* stage, acldvppPicDesc* d, void* data, uint32_t size,
                  acldvppPixelFormat format, uint32_t width, uint32_t height, uint32_t width_stride,
                  uint32_t height_stride) {
  check(acldvppSetPicDescData(d, data), stage, "acldvppSetPicDescData");
  check(acldvppSetPicDescSize(d, size), stage, "acldvppSetPicDescSize");
  check(acldvppSetPicDescFormat(d, format), stage, "acldvppSetPicDescFormat");
  check(acldvppSetPicDescWidth(d, width), stage, "acldvppSetPicDescWidth");
  check(acldvppSetPicDescHeight(d, height), stage, "acldvppSetPicDescHeight");
  check(acldvppSetPicDescWidthStride(d, width_stride), stage, "acldvppSetPicDescWidthStride");
  check(acldvppSetPicDescHeightStride(d, height_stride), stage, "acldvppSetPicDescHeightStride");
}

std::vector<acldvppPicDesc*> picture_descs(const char* stage, const Pool& pool, int items,
                                           const Picture& picture, Cleanup& cleanup) {
  std::vector<acldvppPicDesc*> descs;
  for (int slot = 0; slot < pool.slots(); ++slot) {
    for (int item = 0; item < items; ++item) {
      acldvppPicDesc* desc = new_pic_desc(stage, cleanup);
      uint8_t* data =
          static_cast<uint8_t*>(pool.slot(slot)) + static_cast<size_t>(item) * picture.bytes;
      set_pic_desc(stage, desc, data, static_cast<uint32_t>(picture.bytes), picture.format,
                   picture.width, picture.height, picture.width_stride, picture.height_stride);
      descs.push_back(desc);
    }
  }
  return descs;
}

acldvppRoiConfig* new_roi(const char* stage, uint32_t left, uint32_t right, uint32_t top,
                          uint32_t bottom, Cleanup& cleanup) {
  acldvppRoiConfig* roi =
      require(acldvppCreateRoiConfig(left, right, top, bottom), stage, "acldvppCreateRoiConfig");
  cleanup.add("acldvppDestroyRoiConfig", [roi] { return acldvppDestroyRoiConfig(roi); });
  return roi;
}

acldvppResizeConfig* new_resize_config(const char* stage, uint32_t interpolation,
                                       Cleanup& cleanup) {
  acldvppResizeConfig* c = require(acldvppCreateResizeConfig(), stage, "acldvppCreateResizeConfig");
  cleanup.add("acldvppDestroyResizeConfig", [c] { return acldvppDestroyResizeConfig(c); });
  check(acldvppSetResizeConfigInterpolation(c, interpolation), stage,
        "acldvppSetResizeConfigInterpolation");
  return c;
}

}  // namespace ascgen
