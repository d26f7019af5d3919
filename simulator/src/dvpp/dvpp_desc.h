// DVPP descriptor objects behind the opaque acldvpp* types, and the parameter
// checks the device applies to them before it accepts a JPEGD or VPC task.
//
// Pure data and validation: no timing, no memory ownership (descriptors point
// at memory, they never own it). The asynchronous operations (dvpp ops, wired
// onto the runtime) call the validate_* functions below and fail the call
// with the returned code, logging the returned message.
//
// Alignment and size figures are never hard-coded here: they come from the
// device profile through `Limits`, which the caller fills (see
// limits_from_profile for the flat keys).
#ifndef ACL_SIM_SRC_DVPP_DESC_H_
#define ACL_SIM_SRC_DVPP_DESC_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#ifndef ENABLE_DVPP_INTERFACE
#define ENABLE_DVPP_INTERFACE  // the simulator always builds the DVPP API
#endif
#include "acl/acl_base.h"
#include "acl/ops/acl_dvpp.h"
#include "rules/rule_table.h"

// The structs behind CANN's opaque typedefs (global scope, like the typedefs).
struct acldvppPicDesc {
  void* data = nullptr;
  uint32_t size = 0;
  acldvppPixelFormat format = PIXEL_FORMAT_YUV_400;  // CANN's documented default
  uint32_t width = 0;
  uint32_t height = 0;
  uint32_t widthStride = 0;   // bytes per row
  uint32_t heightStride = 0;  // rows
  uint32_t retCode = 0;       // written by the engine; 0 = success
};

struct acldvppBatchPicDesc {
  std::vector<acldvppPicDesc> pics;  // fixed size after creation
};

// Inclusive pixel coordinates.
struct acldvppRoiConfig {
  uint32_t left = 0;
  uint32_t right = 0;
  uint32_t top = 0;
  uint32_t bottom = 0;
};

struct acldvppResizeConfig {
  uint32_t interpolation = 0;
};

struct acldvppChannelDesc {
  uint32_t mode = 0;  // OR of acldvppChannelMode; 0 = every engine
  uint64_t channelId = 0;
  bool created = false;  // between acldvppCreateChannel and acldvppDestroyChannel
};

namespace sim::dvpp {

// Closed range of a picture (or ROI) size in pixels.
struct SizeRange {
  uint32_t min_width = 0;
  uint32_t min_height = 0;
  uint32_t max_width = 0;
  uint32_t max_height = 0;
};

// Device figures the checks need, each from one flat profile key (named in
// the comment). limits_from_profile fills it; tests may fill it by hand.
struct Limits {
  uint32_t vpc_in_align_w = 0;     // align.vpc_in.width   (widthStride multiple, bytes)
  uint32_t vpc_in_align_h = 0;     // align.vpc_in.height  (heightStride multiple)
  uint32_t vpc_out_align_w = 0;    // align.vpc_out.width
  uint32_t vpc_out_align_h = 0;    // align.vpc_out.height
  uint32_t jpegd_out_align_w = 0;  // align.jpegd_out.width
  uint32_t jpegd_out_align_h = 0;  // align.jpegd_out.height
  uint32_t dvpp_addr_align = 0;    // align.dvpp_addr (picture start address; 0 = no check)
  uint32_t vpc_paste_left = 1;     // align.vpc_paste_left (optional: paste ROI left multiple)
  SizeRange vpc_stride;            // limits.vpc_stride.{min,max}_{width,height}
  SizeRange vpc_in;                // limits.vpc_in.*
  SizeRange vpc_out;               // limits.vpc_out.*   (also bounds crop/paste ROIs)
  SizeRange jpegd_in;              // limits.jpegd_in.*
  double resize_ratio_min = 0.0;   // limits.resize_ratio.min (output / input, per axis)
  double resize_ratio_max = 0.0;   // limits.resize_ratio.max
  uint32_t max_interpolation = 4;  // dvpp.resize.max_interpolation (optional; 310: 0..4)
  // dvpp.vpc_out.formats (optional, comma-separated acldvppPixelFormat numbers;
  // the Ascend 310 VPC writes only NV12/NV21, the default).
  std::vector<acldvppPixelFormat> vpc_out_formats;
};

// Returns the numeric value of a flat profile key, or nullopt when absent.
using FlatLookup = std::function<std::optional<double>(const std::string& key)>;
using FlatStrLookup = std::function<std::optional<std::string>(const std::string& key)>;

// Fills `out` from the flat profile. Returns false and names the first missing
// key in `error` when a required key is absent.
bool limits_from_profile(const FlatLookup& num, const FlatStrLookup& str, Limits* out,
                         std::string* error);

// Outcome of a check: code ACL_SUCCESS, or the error the device call returns
// plus a message naming the rule that failed.
// Regions (and source pictures) one VPC batch call takes at most (rule vpc.batch_regions).
constexpr uint64_t kMaxBatchRegions = 256;

struct Check {
  aclError code = ACL_SUCCESS;
  std::string message;
  // The rule the failure breaks when it is not the call's argument check (rule_table.yaml).
  std::optional<Rule> rule = std::nullopt;
  bool ok() const { return code == ACL_SUCCESS; }
};

// ---- pixel-format geometry -------------------------------------------------

// Planar layout class of a format.
enum class Layout { kYuv400, kYuv420sp, kYuv422sp, kYuv444sp, kYuv440sp, kPacked, kOther };
Layout layout_of(acldvppPixelFormat format);
// Bytes per pixel in a row of a packed format (2, 3 or 4); 1 for semi-planar.
uint32_t bytes_per_pixel(acldvppPixelFormat format);
// Buffer bytes for a picture of this format with these strides:
// ws*hs*3/2 (420SP, 400), ws*hs*2 (422SP, 440SP), ws*hs*3 (444SP), ws*hs (packed).
uint64_t buffer_bytes(acldvppPixelFormat format, uint32_t widthStride, uint32_t heightStride);
// Rounds v up to a multiple of a (a == 0 leaves v unchanged).
uint32_t align_up(uint32_t v, uint32_t a);
const char* format_name(acldvppPixelFormat format);

// ---- checks the device applies --------------------------------------------

// VPC input picture: data set (and aligned), format readable by VPC, w/h even
// for subsampled formats, w/h within limits.vpc_in, widthStride a multiple of
// align.vpc_in.width and >= width*bytes_per_pixel, heightStride a multiple of
// align.vpc_in.height and >= height, strides within limits.vpc_stride (8K
// NV12/NV21 inputs may go up to limits.vpc_in), size >= buffer_bytes.
Check validate_vpc_input(const acldvppPicDesc& pic, const Limits& lim);
// VPC output picture: as the input but with align.vpc_out / limits.vpc_out
// and a format in limits.vpc_out_formats.
Check validate_vpc_output(const acldvppPicDesc& pic, const Limits& lim);
// JPEGD output descriptor as set before the decode: data set, format one
// JPEGD can write (NV12, NV21, or UNKNOWN = keep the source subsampling).
Check validate_jpegd_output(const acldvppPicDesc& pic, const Limits& lim);
// JPEGD output against the decoded image (known once the stream is parsed):
// image size within limits.jpegd_in; when strides are set they must be
// multiples of align.jpegd_out (128x16 on the Ascend 310) covering the image;
// size >= buffer_bytes(format, ALIGN(w), ALIGN(h)). `format` is the format
// that will be written (the source's when the descriptor says UNKNOWN).
Check validate_jpegd_result(const acldvppPicDesc& pic, uint32_t image_width, uint32_t image_height,
                            acldvppPixelFormat format, const Limits& lim);
// Geometry JPEGD writes for an image: strides aligned per align.jpegd_out.
struct JpegdGeometry {
  uint32_t widthStride = 0;
  uint32_t heightStride = 0;
  uint64_t bytes = 0;
};
JpegdGeometry jpegd_output_geometry(uint32_t image_width, uint32_t image_height,
                                    acldvppPixelFormat format, const Limits& lim);

// ROI: left/top even, right/bottom odd, right >= left, bottom >= top, size
// within limits.vpc_out (10x6..4096x4096 on the 310), inside the picture's
// width x height. `what` names the ROI in messages ("crop area", "paste area").
Check validate_roi(const acldvppRoiConfig& roi, const acldvppPicDesc& pic, const Limits& lim,
                   const char* what);
// Interpolation value accepted by this device.
Check validate_resize_config(const acldvppResizeConfig& cfg, const Limits& lim);
// Scale factor per axis within [limits.resize_ratio.min, max].
Check validate_scale(uint32_t in_w, uint32_t in_h, uint32_t out_w, uint32_t out_h,
                     const Limits& lim);
// Channel usable for a task of engine `mode` (one acldvppChannelMode bit).
Check validate_channel(const acldvppChannelDesc* channel, uint32_t mode);
// Batch arguments: src holds `size` pictures, roiNums[i] > 0, dst holds
// sum(roiNums) pictures, every ROI pointer set. Does not check the pictures.
Check validate_batch(const acldvppBatchPicDesc* src, const uint32_t* roiNums, uint32_t size,
                     const acldvppBatchPicDesc* dst, acldvppRoiConfig* const* areas,
                     const char* what);

// ---- whole-operation checks: what each acldvpp*Async entry point validates ----
// Same arguments as the public call minus the stream; checks the channel, the
// pointers, every picture, ROI, resize config and scale the call involves.
// The first failed rule wins. (dvpp_op_check.cpp)

// JPEGD, before the bitstream is parsed; after parsing, the op also calls
// validate_jpegd_result with the image size and the format it will write.
Check check_jpeg_decode(const acldvppChannelDesc* channel, const void* data, uint32_t size,
                        const acldvppPicDesc* output, const Limits& lim);
Check check_vpc_resize(const acldvppChannelDesc* channel, const acldvppPicDesc* input,
                       const acldvppPicDesc* output, const acldvppResizeConfig* resize,
                       const Limits& lim);
// crop and resize may be NULL where the public call has no such argument;
// paste NULL means "the whole output picture".
Check check_vpc_crop(const acldvppChannelDesc* channel, const acldvppPicDesc* input,
                     const acldvppPicDesc* output, const acldvppRoiConfig* crop,
                     const acldvppRoiConfig* paste, const acldvppResizeConfig* resize,
                     bool needs_resize_config, bool needs_paste, const Limits& lim);
// Batch variants: pasteAreas may be NULL for the non-paste calls.
Check check_vpc_batch(const acldvppChannelDesc* channel, const acldvppBatchPicDesc* src,
                      const uint32_t* roiNums, uint32_t size, const acldvppBatchPicDesc* dst,
                      acldvppRoiConfig* const* cropAreas, acldvppRoiConfig* const* pasteAreas,
                      const acldvppResizeConfig* resize, bool needs_resize_config, bool needs_paste,
                      const Limits& lim);

// Number of descriptors of each kind alive now (for leak checks in tests).
struct LiveCounts {
  long pic = 0, batch = 0, roi = 0, resize = 0, channel_desc = 0, channels = 0;
};
LiveCounts live_counts();

}  // namespace sim::dvpp

#endif  // ACL_SIM_SRC_DVPP_DESC_H_
