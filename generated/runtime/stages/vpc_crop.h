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
#include <cstddef>
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

// --verify's reference for one crop: an NV12 picture (luma rows of `stride` bytes, `rows` of them,
// then the interleaved chroma plane) as the plane it lies in.
struct Plane {
  const uint8_t* data;
  uint32_t stride, rows;  // the picture's width and height strides
};

namespace detail {

// Bilinear sample of `channels`-interleaved plane p (channel c) at (x, y), half-pixel centres.
inline float sample(const uint8_t* p, uint32_t stride, int channels, int c, uint32_t w, uint32_t h,
                    float x, float y) {
  x = std::min(std::max(x, 0.0f), static_cast<float>(w - 1));
  y = std::min(std::max(y, 0.0f), static_cast<float>(h - 1));
  const uint32_t x0 = static_cast<uint32_t>(x), y0 = static_cast<uint32_t>(y);
  const uint32_t x1 = std::min(x0 + 1, w - 1), y1 = std::min(y0 + 1, h - 1);
  const float fx = x - static_cast<float>(x0), fy = y - static_cast<float>(y0);
  auto at = [&](uint32_t xx, uint32_t yy) {
    return static_cast<float>(p[static_cast<size_t>(yy) * stride + xx * channels + c]);
  };
  return (at(x0, y0) * (1 - fx) + at(x1, y0) * fx) * (1 - fy) +
         (at(x0, y1) * (1 - fx) + at(x1, y1) * fx) * fy;
}

// Mean |difference| of one plane of `out` (ow x oh items of `channels` bytes) from region
// (left, top, w, h) of `src` resized bilinearly into it, with half-pixel centres.
inline double plane_error(const uint8_t* src, uint32_t src_stride, uint32_t left, uint32_t top,
                          uint32_t w, uint32_t h, const uint8_t* out, uint32_t out_stride,
                          uint32_t ow, uint32_t oh, int channels) {
  double sum = 0;
  for (uint32_t y = 0; y < oh; ++y) {
    const float sy = (static_cast<float>(y) + 0.5f) * static_cast<float>(h) / oh - 0.5f;
    for (uint32_t x = 0; x < ow; ++x) {
      const float sx = (static_cast<float>(x) + 0.5f) * static_cast<float>(w) / ow - 0.5f;
      for (int c = 0; c < channels; ++c) {
        const uint8_t* region = src + static_cast<size_t>(top) * src_stride + left * channels;
        const float want = sample(region, src_stride, channels, c, w, h, sx, sy);
        const float got = out[static_cast<size_t>(y) * out_stride + x * channels + c];
        sum += std::fabs(static_cast<double>(got) - static_cast<double>(want));
      }
    }
  }
  return sum / (static_cast<double>(ow) * oh * channels);
}

}  // namespace detail

// How far a crop (`out`: ow x oh NV12) is from region `roi` of picture `src` cut out and resized
// bilinearly on the CPU: the mean absolute difference in levels over its luma and chroma samples.
// The simulator's VPC resamples in fixed point with half-pixel centres (within a level of this);
// the device's filter differs more, hence --verify's tolerance (kCropTolerance).
inline double crop_error(const Plane& src, const Roi& roi, const Plane& out, uint32_t ow,
                         uint32_t oh) {
  const double luma = detail::plane_error(src.data, src.stride, roi.left, roi.top, roi.width(),
                                          roi.height(), out.data, out.stride, ow, oh, 1);
  const uint8_t* src_uv = src.data + static_cast<size_t>(src.stride) * src.rows;
  const uint8_t* out_uv = out.data + static_cast<size_t>(out.stride) * out.rows;
  const double chroma =
      detail::plane_error(src_uv, src.stride, roi.left / 2, roi.top / 2, roi.width() / 2,
                          roi.height() / 2, out_uv, out.stride, ow / 2, oh / 2, 2);
  return (2 * luma + chroma) / 3;  // luma has twice the chroma plane's samples
}

// --verify: a crop within this of its CPU reference (mean |difference|, levels of 255).
constexpr double kCropTolerance = 2.0;

}  // namespace ascgen::crop

#endif  // ASCGEN_STAGES_VPC_CROP_H_
