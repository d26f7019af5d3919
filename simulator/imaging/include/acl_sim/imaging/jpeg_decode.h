// The JPEGD pixel model: output geometry, acldvppJpegPredictDecSize, and a
// real libjpeg-turbo decode into NV12 on the JPEGD strides.
//
// Output size: for NV12 the decoder rounds odd source dimensions DOWN to even
// (CANN's default ACL_YUVOUT_ALIGN_DOWN_COMPAT of acldvppJpegdPrecisionMode), so
// a 333x211 JPEG decodes to a 332x210 picture; the dropped last column/row is
// simply not output.
//
// Padding: every byte of the ws x hs frame is written. Right of the picture each
// row repeats its last pixel (Y) or last U,V pair (chroma); below the picture
// the last row is repeated over the full stride. This mimics the edge-replicated
// MCU padding a hardware decoder leaves there, and makes the output a
// deterministic function of (JPEG bytes, strides).
//
// Chroma: the source's native chroma planes (libjpeg-turbo raw output, no color
// conversion, no upsampling) are mapped onto the 4:2:0 grid. Each output chroma
// sample covers a 2x2 luma block; it is the rounded mean of the source chroma
// samples covering the block's four pixels: 4:2:0 is copied, 4:2:2 averages two
// rows, 4:4:0 two columns, 4:4:4 a 2x2 box, 4:1:1 two rows; grayscale gets
// U = V = 128.
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl_sim/imaging/jpeg_info.h"

namespace acl_sim::imaging {

// Output stride alignment of JPEGD (Ascend 310/910: 128 x 16; 310P: 64 x 16).
struct DecodeAlign {
  uint32_t width = 128;
  uint32_t height = 16;
};

struct DecodeGeometry {
  uint32_t width = 0;  // picture, even
  uint32_t height = 0;
  uint32_t width_stride = 0;  // align_up(width, align.width)
  uint32_t height_stride = 0;
  uint64_t bytes = 0;  // ws * hs * 3 / 2: what acldvppJpegPredictDecSize reports for NV12
};

// NV12 output geometry of a (valid) stream; all zero when !info.valid.
DecodeGeometry decode_geometry(const JpegInfo& info, const DecodeAlign& align);

// acldvppJpegPredictDecSize for NV12 output: decode_geometry(info, align).bytes.
uint64_t predict_dec_size(const JpegInfo& info, const DecodeAlign& align);

enum class DecodeStatus : uint8_t {
  kOk = 0,
  kInvalidStream,   // header unparsable, or libjpeg-turbo reported an error or a
                    // warning (truncated or corrupt data): JPEGD is strict
  kUnsupported,     // a stream libjpeg-turbo cannot decode to planes (e.g. CMYK)
  kBadGeometry,     // strides too small for the picture, or odd height stride
  kBufferTooSmall,  // dst_size < ws * hs * 3 / 2
};

const char* to_string(DecodeStatus status);

// Decodes into dst laid out as NV12 on (width_stride, height_stride); the
// picture size is decode_geometry()'s width x height. Thread-safe (one
// libjpeg-turbo handle per thread). Does not apply jpegd_accepts(): it also
// decodes streams the hardware would refuse, e.g. progressive ones.
DecodeStatus decode_jpeg_nv12(const uint8_t* data, size_t size, uint8_t* dst, size_t dst_size,
                              uint32_t width_stride, uint32_t height_stride);

}  // namespace acl_sim::imaging
