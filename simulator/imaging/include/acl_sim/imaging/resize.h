// The VPC pixel model: crop, resize and paste of NV12 frames.
//
// Interpolation (acldvppSetResizeConfigInterpolation, Ascend 310 values):
//   0 Huawei's high-order filter (the default): modelled by bilinear below.
//   1 "OpenCV-like" bilinear, 3 "TF-like" bilinear: cv::resize INTER_LINEAR,
//     half-pixel centres: src = (dst + 0.5) * scale - 0.5, clamped at the
//     edges, 11-bit fixed-point weights, rounded. (3 is modelled like 1.)
//   2 "OpenCV-like" nearest, 4 "TF-like" nearest: cv::resize INTER_NEAREST,
//     src = min(floor(dst * scale), size - 1). (4 is modelled like 2.)
// Coordinates are computed exactly in integers (cv::resize uses floating
// point, so it can differ by one source pixel where dst * scale is an integer).
// Other values are rejected. Luma is resampled on the full-resolution grid,
// the interleaved U,V plane on the half-resolution grid with the same rule
// (as cv::resize of the 2-channel UV plane), with scale = src / dst extent of
// the ROI in that plane.
//
// ROIs are inclusive pixel coordinates as in acldvppSetRoiConfig: left and top
// even, right and bottom odd, so every ROI has even width and height. Only the
// destination ROI is written (CropAndPaste: the canvas is not cleared); the
// strides of both frames are honoured. Source and destination must not overlap.
#pragma once

#include <cstdint>

#include "acl_sim/imaging/nv12.h"

namespace acl_sim::imaging {

struct Roi {
  uint32_t left = 0;
  uint32_t top = 0;
  uint32_t right = 0;   // inclusive
  uint32_t bottom = 0;  // inclusive
  uint32_t width() const { return right - left + 1; }
  uint32_t height() const { return bottom - top + 1; }
};

// The whole picture as a ROI; odd sizes lose their last column/row, as VPC
// rounds odd input sizes down to even.
Roi full_roi(uint32_t width, uint32_t height);

// DVPP parity rules (left/top even, right/bottom odd, right >= left) and the
// ROI inside the width x height picture.
bool is_valid_roi(const Roi& roi, uint32_t width, uint32_t height);

enum class Interpolation : uint32_t {
  kDefault = 0,     // Huawei high-order filter, modelled as bilinear
  kBilinear = 1,    // OpenCV-like
  kNearest = 2,     // OpenCV-like
  kTfBilinear = 3,  // modelled as kBilinear
  kTfNearest = 4,   // modelled as kNearest
};

enum class ResizeStatus : uint8_t {
  kOk = 0,
  kBadSource,       // !is_valid_nv12(src)
  kBadDestination,  // !is_valid_nv12(dst)
  kBadSourceRoi,
  kBadDestinationRoi,
  kBadInterpolation,
};

const char* to_string(ResizeStatus status);

// Resamples src_roi of src onto dst_roi of dst. Pure function of its inputs;
// writes nothing outside dst_roi (both planes).
ResizeStatus resize_nv12(const Nv12ConstView& src, const Roi& src_roi, const Nv12View& dst,
                         const Roi& dst_roi, Interpolation interpolation);

}  // namespace acl_sim::imaging
