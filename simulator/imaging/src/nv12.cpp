#include "acl_sim/imaging/nv12.h"

#include <cstring>

#include "acl_sim/imaging/content_hash.h"

namespace acl_sim::imaging {

bool is_valid_nv12(const Nv12ConstView& v) {
  return v.data != nullptr && v.width > 0 && v.height > 0 && v.width <= v.width_stride &&
         v.height <= v.height_stride && v.height_stride % 2 == 0;
}

bool paste_nv12(const Nv12ConstView& src, const Nv12View& dst, uint32_t left, uint32_t top) {
  if (!is_valid_nv12(src) || !is_valid_nv12(dst) || left % 2 || top % 2 || src.width % 2 ||
      src.height % 2 || left + src.width > dst.width || top + src.height > dst.height) {
    return false;
  }
  const size_t sws = src.width_stride;
  const size_t dws = dst.width_stride;
  for (uint32_t y = 0; y < src.height; ++y) {
    std::memcpy(dst.data + (top + y) * dws + left, src.data + y * sws, src.width);
  }
  const uint8_t* suv = src.data + sws * src.height_stride;
  uint8_t* duv = dst.data + dws * dst.height_stride;
  for (uint32_t y = 0; y < src.height / 2; ++y) {
    std::memcpy(duv + (top / 2 + y) * dws + left, suv + y * sws, src.width);
  }
  return true;
}

uint64_t hash_nv12_picture(const Nv12ConstView& v) {
  uint64_t h = hash_combine(hash_combine(0, v.width), v.height);
  const size_t ws = v.width_stride;
  for (uint32_t y = 0; y < v.height; ++y) h = hash64(v.data + y * ws, v.width, h);
  const uint8_t* uv = v.data + ws * v.height_stride;
  for (uint32_t y = 0; y < v.height / 2; ++y) h = hash64(uv + y * ws, v.width, h);
  return h;
}

}  // namespace acl_sim::imaging
