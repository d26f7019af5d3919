// vpc_crop (ascgen/stages/vpc_crop.py): where each detected box is cut out of its picture.
// No AscendCL here, and no allocation: plain arithmetic the crop stage runs per object before
// its batch crop call (acldvppVpcBatchCropResizePasteAsync), tested on its own
// (tests/stages/vpc_crop.cpp).
//
// A box comes in the detector input's pixels (detections.h). snap_roi makes it a crop region
// of the picture the device accepts, in this order:
//  1. mapped to the picture's pixels: picture = (model - offset) / scale, where the detector's
//     input was the picture stretched (stretch) or letterboxed into a paste area (letterboxed);
//     a coordinate that is not a finite number counts as 0;
//  2. grown about its centre by `expand` (1: as detected);
//  3. each side brought into [min, max] (the ROI range 10x6 .. 4096x4096, narrowed so that
//     resizing the region into the output stays within the resize ratio range, ACL_FACTS 4)
//     and to at most the picture (its width and height rounded down to even: VPC reads an odd
//     size as the even one below it, ACL_FACTS 4);
//  4. rounded up to an even width and height, then placed on its centre and moved inside the
//     picture, its left and top rounded down to even: left/top even, right/bottom odd, as the
//     310 and 910 require (ACL_FACTS 8, aclcppdevg_03_0344..0347) and the 310P accepts.
// The result never leaves the picture and always has the even size it was given in 4, so a
// box at an edge keeps its size and shifts inward rather than shrinking.
#ifndef ASCGEN_STAGES_VPC_CROP_H_
#define ASCGEN_STAGES_VPC_CROP_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ascgen::crop {

// A DVPP region: inclusive bounds (acldvppCreateRoiConfig's left, right, top, bottom).
struct Roi {
  uint32_t left, right, top, bottom;
  uint32_t width() const { return right - left + 1; }
  uint32_t height() const { return bottom - top + 1; }
};

// How the detector's input was drawn from the picture: model = picture * scale + offset.
struct Mapping {
  float scale_x, scale_y, offset_x, offset_y;
};

// The picture stretched to the detector's whole input (vpc_resize).
inline Mapping stretch(uint32_t pic_w, uint32_t pic_h, uint32_t net_w, uint32_t net_h) {
  return {static_cast<float>(net_w) / static_cast<float>(pic_w),
          static_cast<float>(net_h) / static_cast<float>(pic_h), 0.0f, 0.0f};
}

// The picture resized into the paste area `area` of the detector's input (vpc_letterbox's).
inline Mapping letterboxed(uint32_t pic_w, uint32_t pic_h, const Roi& area) {
  return {static_cast<float>(area.width()) / static_cast<float>(pic_w),
          static_cast<float>(area.height()) / static_cast<float>(pic_h),
          static_cast<float>(area.left), static_cast<float>(area.top)};
}

struct Rules {
  uint32_t min_w = 10, min_h = 6;       // the smallest region (even)
  uint32_t max_w = 4096, max_h = 4096;  // the largest (even)
  float expand = 1.0f;                  // growth about the centre, >= 1
};

namespace detail {

inline float finite_or_zero(float v) {
  return std::isfinite(v) ? v : 0.0f;
}

// One axis: the even size of the region and its even start inside [0, limit) (limit even).
inline void place(float lo, float hi, float expand, uint32_t min_size, uint32_t max_size,
                  uint32_t limit, uint32_t* start, uint32_t* size) {
  const float centre = (lo + hi) / 2.0f;
  float want = std::max(hi - lo, 0.0f) * expand;
  want = std::min(std::max(want, static_cast<float>(min_size)), static_cast<float>(max_size));
  // rounded up, forgiving float error (100 x 1.2f is 120.000005, a width of 120)
  const float capped = std::min(want, static_cast<float>(limit));
  const uint32_t whole = static_cast<uint32_t>(std::ceil(capped - 1e-3f));
  const uint32_t even = std::min(std::max((whole + 1u) & ~1u, 2u), limit);
  const float first = std::floor(centre - static_cast<float>(even) / 2.0f);
  const float last = static_cast<float>(limit - even);
  const uint32_t at = static_cast<uint32_t>(std::min(std::max(first, 0.0f), last));
  *start = at & ~1u;
  *size = even;
}

}  // namespace detail

// The crop region of box (x1, y1)-(x2, y2), in the detector input's pixels, in a pic_w x pic_h
// picture (at least 2x2). See the top of the file for the steps.
inline Roi snap_roi(float x1, float y1, float x2, float y2, const Mapping& m, uint32_t pic_w,
                    uint32_t pic_h, const Rules& rules) {
  using detail::finite_or_zero;
  const float px1 = (finite_or_zero(x1) - m.offset_x) / m.scale_x;
  const float px2 = (finite_or_zero(x2) - m.offset_x) / m.scale_x;
  const float py1 = (finite_or_zero(y1) - m.offset_y) / m.scale_y;
  const float py2 = (finite_or_zero(y2) - m.offset_y) / m.scale_y;
  uint32_t left = 0, width = 0, top = 0, height = 0;
  detail::place(std::min(px1, px2), std::max(px1, px2), rules.expand, rules.min_w, rules.max_w,
                pic_w & ~1u, &left, &width);
  detail::place(std::min(py1, py2), std::max(py1, py2), rules.expand, rules.min_h, rules.max_h,
                pic_h & ~1u, &top, &height);
  return {left, left + width - 1, top, top + height - 1};
}

}  // namespace ascgen::crop

#endif  // ASCGEN_STAGES_VPC_CROP_H_
