// The parameter checks a DVPP engine applies before it accepts a task, and
// the picture geometry they rest on. Every figure comes from `Limits`, i.e.
// from the device profile; the messages name the rule and the profile key.
#include <cstdlib>
#include <sstream>

#include "dvpp/dvpp_desc.h"

namespace sim::dvpp {
namespace {

Check fail(const std::string& message) {
  return Check{ACL_ERROR_INVALID_PARAM, message};
}

bool is_multiple(uint32_t v, uint32_t a) {
  return a == 0 || v % a == 0;
}

std::string describe(const char* role, const acldvppPicDesc& pic) {
  std::ostringstream os;
  os << role << " picture (" << format_name(pic.format) << " " << pic.width << "x" << pic.height
     << ", strides " << pic.widthStride << "x" << pic.heightStride << ", size " << pic.size << ")";
  return os.str();
}

// Which side of VPC a picture is on: the figures that apply to it.
struct Side {
  const char* role;
  const char* key;  // profile key prefix naming the alignment rule
  uint32_t align_w, align_h;
  SizeRange size;
};

// Checks shared by VPC input and output pictures.
Check check_vpc_picture(const acldvppPicDesc& pic, const Side& side, const Limits& lim) {
  const std::string who = describe(side.role, pic);
  if (pic.data == nullptr) return fail(who + ": data is NULL (set it with acldvppSetPicDescData)");
  if (lim.dvpp_addr_align != 0 &&
      reinterpret_cast<uintptr_t>(pic.data) % lim.dvpp_addr_align != 0) {
    return fail(who + ": data address not aligned to align.dvpp_addr=" +
                std::to_string(lim.dvpp_addr_align) + " bytes (use acldvppMalloc)");
  }
  const Layout layout = layout_of(pic.format);
  if (layout == Layout::kOther || layout == Layout::kYuv440sp) {
    return fail(who + ": pixel format not supported by VPC");
  }
  if (pic.width < side.size.min_width || pic.height < side.size.min_height ||
      pic.width > side.size.max_width || pic.height > side.size.max_height) {
    return fail(who + ": width x height outside " + std::to_string(side.size.min_width) + "x" +
                std::to_string(side.size.min_height) + ".." + std::to_string(side.size.max_width) +
                "x" + std::to_string(side.size.max_height));
  }
  const bool even_w = layout == Layout::kYuv400 || layout == Layout::kYuv420sp ||
                      layout == Layout::kYuv422sp ||
                      (layout == Layout::kPacked && bytes_per_pixel(pic.format) == 2);
  const bool even_h = layout == Layout::kYuv400 || layout == Layout::kYuv420sp;
  if ((even_w && pic.width % 2 != 0) || (even_h && pic.height % 2 != 0)) {
    return fail(who + ": width and height must be even for this format");
  }
  const uint64_t row_bytes = uint64_t{pic.width} * bytes_per_pixel(pic.format);
  if (!is_multiple(pic.widthStride, side.align_w) || pic.widthStride < row_bytes) {
    return fail(who + ": widthStride must be a multiple of " + side.key +
                ".width=" + std::to_string(side.align_w) + " and >= width*" +
                std::to_string(bytes_per_pixel(pic.format)));
  }
  if (!is_multiple(pic.heightStride, side.align_h) || pic.heightStride < pic.height) {
    return fail(who + ": heightStride must be a multiple of " + side.key +
                ".height=" + std::to_string(side.align_h) + " and >= height");
  }
  // Stride range: the minimum applies to the stride in bytes, the maximum to
  // the stride in pixels (CANN: "minimum 32, maximum 4096 * 4 for ARGB").
  // Pictures wider or taller than 4096 ("8K") are NV12/NV21 inputs only.
  SizeRange range = lim.vpc_stride;
  const bool is_nv = pic.format == PIXEL_FORMAT_YUV_SEMIPLANAR_420 ||
                     pic.format == PIXEL_FORMAT_YVU_SEMIPLANAR_420;
  if (is_nv && side.size.max_width > range.max_width) range.max_width = side.size.max_width;
  if (is_nv && side.size.max_height > range.max_height) range.max_height = side.size.max_height;
  const uint32_t stride_px = pic.widthStride / bytes_per_pixel(pic.format);
  if (pic.widthStride < range.min_width || stride_px > range.max_width) {
    return fail(who + ": widthStride outside limits.vpc_stride [" +
                std::to_string(range.min_width) + ", " + std::to_string(range.max_width) + "]");
  }
  if (pic.heightStride < range.min_height || pic.heightStride > range.max_height) {
    return fail(who + ": heightStride outside limits.vpc_stride [" +
                std::to_string(range.min_height) + ", " + std::to_string(range.max_height) + "]");
  }
  const uint64_t need = buffer_bytes(pic.format, pic.widthStride, pic.heightStride);
  if (pic.size < need) {
    return fail(who + ": size must be >= " + std::to_string(need) +
                " (widthStride*heightStride*factor of the format)");
  }
  return Check{};
}

bool lookup(const FlatLookup& num, const std::string& key, double* v, std::string* missing) {
  std::optional<double> got = num(key);
  if (!got) {
    if (missing->empty()) *missing = key;
    return false;
  }
  *v = *got;
  return true;
}

void read_u32(const FlatLookup& num, const std::string& key, uint32_t* out, std::string* miss) {
  double v = 0;
  if (lookup(num, key, &v, miss)) *out = static_cast<uint32_t>(v);
}

void read_range(const FlatLookup& num, const std::string& prefix, SizeRange* r, std::string* m) {
  read_u32(num, prefix + ".min_width", &r->min_width, m);
  read_u32(num, prefix + ".min_height", &r->min_height, m);
  read_u32(num, prefix + ".max_width", &r->max_width, m);
  read_u32(num, prefix + ".max_height", &r->max_height, m);
}

}  // namespace

bool limits_from_profile(const FlatLookup& num, const FlatStrLookup& str, Limits* out,
                         std::string* error) {
  Limits lim;
  std::string missing;
  read_u32(num, "align.vpc_in.width", &lim.vpc_in_align_w, &missing);
  read_u32(num, "align.vpc_in.height", &lim.vpc_in_align_h, &missing);
  read_u32(num, "align.vpc_out.width", &lim.vpc_out_align_w, &missing);
  read_u32(num, "align.vpc_out.height", &lim.vpc_out_align_h, &missing);
  read_u32(num, "align.jpegd_out.width", &lim.jpegd_out_align_w, &missing);
  read_u32(num, "align.jpegd_out.height", &lim.jpegd_out_align_h, &missing);
  read_u32(num, "align.dvpp_addr", &lim.dvpp_addr_align, &missing);
  read_range(num, "limits.vpc_stride", &lim.vpc_stride, &missing);
  read_range(num, "limits.vpc_in", &lim.vpc_in, &missing);
  read_range(num, "limits.vpc_out", &lim.vpc_out, &missing);
  read_range(num, "limits.jpegd_in", &lim.jpegd_in, &missing);
  lookup(num, "limits.resize_ratio.min", &lim.resize_ratio_min, &missing);
  lookup(num, "limits.resize_ratio.max", &lim.resize_ratio_max, &missing);
  if (!missing.empty()) {
    if (error != nullptr) *error = "device profile lacks key '" + missing + "'";
    return false;
  }
  // Optional keys (not in every profile yet), with Ascend 310 defaults.
  if (std::optional<double> v = num("align.vpc_paste_left")) {
    lim.vpc_paste_left = static_cast<uint32_t>(*v);
  }
  if (std::optional<double> v = num("dvpp.resize.max_interpolation")) {
    lim.max_interpolation = static_cast<uint32_t>(*v);
  }
  std::optional<std::string> formats = str ? str("dvpp.vpc_out.formats") : std::nullopt;
  if (formats) {
    std::stringstream ss(*formats);
    for (std::string item; std::getline(ss, item, ',');) {
      lim.vpc_out_formats.push_back(static_cast<acldvppPixelFormat>(std::atoi(item.c_str())));
    }
  } else {
    lim.vpc_out_formats = {PIXEL_FORMAT_YUV_SEMIPLANAR_420, PIXEL_FORMAT_YVU_SEMIPLANAR_420};
  }
  *out = lim;
  return true;
}

// ---- geometry -------------------------------------------------------------------

Layout layout_of(acldvppPixelFormat format) {
  switch (format) {
    case PIXEL_FORMAT_YUV_400:
      return Layout::kYuv400;
    case PIXEL_FORMAT_YUV_SEMIPLANAR_420:
    case PIXEL_FORMAT_YVU_SEMIPLANAR_420:
      return Layout::kYuv420sp;
    case PIXEL_FORMAT_YUV_SEMIPLANAR_422:
    case PIXEL_FORMAT_YVU_SEMIPLANAR_422:
      return Layout::kYuv422sp;
    case PIXEL_FORMAT_YUV_SEMIPLANAR_444:
    case PIXEL_FORMAT_YVU_SEMIPLANAR_444:
      return Layout::kYuv444sp;
    case PIXEL_FORMAT_YUV_SEMIPLANAR_440:
    case PIXEL_FORMAT_YVU_SEMIPLANAR_440:
      return Layout::kYuv440sp;
    case PIXEL_FORMAT_YUYV_PACKED_422:
    case PIXEL_FORMAT_UYVY_PACKED_422:
    case PIXEL_FORMAT_YVYU_PACKED_422:
    case PIXEL_FORMAT_VYUY_PACKED_422:
    case PIXEL_FORMAT_YUV_PACKED_444:
    case PIXEL_FORMAT_RGB_888:
    case PIXEL_FORMAT_BGR_888:
    case PIXEL_FORMAT_ARGB_8888:
    case PIXEL_FORMAT_ABGR_8888:
    case PIXEL_FORMAT_RGBA_8888:
    case PIXEL_FORMAT_BGRA_8888:
      return Layout::kPacked;
    default:
      return Layout::kOther;
  }
}

uint32_t bytes_per_pixel(acldvppPixelFormat format) {
  if (layout_of(format) != Layout::kPacked) return 1;
  if (format >= PIXEL_FORMAT_YUYV_PACKED_422 && format <= PIXEL_FORMAT_VYUY_PACKED_422) return 2;
  if (format >= PIXEL_FORMAT_ARGB_8888 && format <= PIXEL_FORMAT_BGRA_8888) return 4;
  return 3;
}

uint64_t buffer_bytes(acldvppPixelFormat format, uint32_t widthStride, uint32_t heightStride) {
  const uint64_t plane = uint64_t{widthStride} * heightStride;
  switch (layout_of(format)) {
    case Layout::kYuv400:
    case Layout::kYuv420sp:
      return plane * 3 / 2;
    case Layout::kYuv422sp:
    case Layout::kYuv440sp:
      return plane * 2;
    case Layout::kYuv444sp:
      return plane * 3;
    case Layout::kPacked:
    case Layout::kOther:
      break;
  }
  return plane;
}

uint32_t align_up(uint32_t v, uint32_t a) {
  return a == 0 ? v : (v + a - 1) / a * a;
}

const char* format_name(acldvppPixelFormat format) {
  switch (format) {
    case PIXEL_FORMAT_YUV_400:
      return "YUV400";
    case PIXEL_FORMAT_YUV_SEMIPLANAR_420:
      return "NV12";
    case PIXEL_FORMAT_YVU_SEMIPLANAR_420:
      return "NV21";
    case PIXEL_FORMAT_YUV_SEMIPLANAR_422:
      return "YUV422SP";
    case PIXEL_FORMAT_YVU_SEMIPLANAR_422:
      return "YVU422SP";
    case PIXEL_FORMAT_YUV_SEMIPLANAR_444:
      return "YUV444SP";
    case PIXEL_FORMAT_YVU_SEMIPLANAR_444:
      return "YVU444SP";
    case PIXEL_FORMAT_YUV_SEMIPLANAR_440:
      return "YUV440SP";
    case PIXEL_FORMAT_YVU_SEMIPLANAR_440:
      return "YVU440SP";
    case PIXEL_FORMAT_RGB_888:
      return "RGB888";
    case PIXEL_FORMAT_BGR_888:
      return "BGR888";
    case PIXEL_FORMAT_UNKNOWN:
      return "UNKNOWN";
    default:
      return layout_of(format) == Layout::kPacked ? "packed" : "unsupported-format";
  }
}

// ---- checks -----------------------------------------------------------------------

Check validate_vpc_input(const acldvppPicDesc& pic, const Limits& lim) {
  return check_vpc_picture(
      pic, Side{"VPC input", "align.vpc_in", lim.vpc_in_align_w, lim.vpc_in_align_h, lim.vpc_in},
      lim);
}

Check validate_vpc_output(const acldvppPicDesc& pic, const Limits& lim) {
  bool supported = false;
  for (acldvppPixelFormat f : lim.vpc_out_formats) supported = supported || f == pic.format;
  if (!supported) {
    return fail(describe("VPC output", pic) + ": output format not supported on this device" +
                " (dvpp.vpc_out.formats)");
  }
  return check_vpc_picture(
      pic,
      Side{"VPC output", "align.vpc_out", lim.vpc_out_align_w, lim.vpc_out_align_h, lim.vpc_out},
      lim);
}

Check validate_jpegd_output(const acldvppPicDesc& pic, const Limits& lim) {
  const std::string who = describe("JPEGD output", pic);
  if (pic.data == nullptr) return fail(who + ": data is NULL (set it with acldvppSetPicDescData)");
  if (lim.dvpp_addr_align != 0 &&
      reinterpret_cast<uintptr_t>(pic.data) % lim.dvpp_addr_align != 0) {
    return fail(who + ": data address not aligned to align.dvpp_addr=" +
                std::to_string(lim.dvpp_addr_align) + " bytes (use acldvppMalloc)");
  }
  if (pic.format != PIXEL_FORMAT_YUV_SEMIPLANAR_420 &&
      pic.format != PIXEL_FORMAT_YVU_SEMIPLANAR_420 && pic.format != PIXEL_FORMAT_UNKNOWN) {
    return fail(who + ": JPEGD writes NV12, NV21 or UNKNOWN (keep the source subsampling)");
  }
  if (pic.size == 0) return fail(who + ": size is 0 (use acldvppJpegPredictDecSize)");
  return Check{};
}

JpegdGeometry jpegd_output_geometry(uint32_t image_width, uint32_t image_height,
                                    acldvppPixelFormat format, const Limits& lim) {
  JpegdGeometry g;
  g.widthStride = align_up(image_width, lim.jpegd_out_align_w);
  g.heightStride = align_up(image_height, lim.jpegd_out_align_h);
  g.bytes = buffer_bytes(format, g.widthStride, g.heightStride);
  return g;
}

Check validate_jpegd_result(const acldvppPicDesc& pic, uint32_t image_width, uint32_t image_height,
                            acldvppPixelFormat format, const Limits& lim) {
  const std::string who = describe("JPEGD output", pic);
  const SizeRange& in = lim.jpegd_in;
  if (image_width < in.min_width || image_height < in.min_height || image_width > in.max_width ||
      image_height > in.max_height) {
    return fail(who + ": JPEG image " + std::to_string(image_width) + "x" +
                std::to_string(image_height) + " outside limits.jpegd_in " +
                std::to_string(in.min_width) + "x" + std::to_string(in.min_height) + ".." +
                std::to_string(in.max_width) + "x" + std::to_string(in.max_height));
  }
  const JpegdGeometry g = jpegd_output_geometry(image_width, image_height, format, lim);
  if (pic.widthStride != 0 &&
      (!is_multiple(pic.widthStride, lim.jpegd_out_align_w) || pic.widthStride < g.widthStride)) {
    return fail(who + ": widthStride must be a multiple of align.jpegd_out.width=" +
                std::to_string(lim.jpegd_out_align_w) + " and >= " + std::to_string(g.widthStride));
  }
  if (pic.heightStride != 0 && (!is_multiple(pic.heightStride, lim.jpegd_out_align_h) ||
                                pic.heightStride < g.heightStride)) {
    return fail(who + ": heightStride must be a multiple of align.jpegd_out.height=" +
                std::to_string(lim.jpegd_out_align_h) +
                " and >= " + std::to_string(g.heightStride));
  }
  if (pic.size < g.bytes) {
    return fail(who + ": size must be >= " + std::to_string(g.bytes) + " for a " +
                std::to_string(image_width) + "x" + std::to_string(image_height) + " " +
                format_name(format) + " image (strides aligned to align.jpegd_out)");
  }
  return Check{};
}

Check validate_roi(const acldvppRoiConfig& roi, const acldvppPicDesc& pic, const Limits& lim,
                   const char* what) {
  std::ostringstream os;
  os << what << " [left " << roi.left << ", right " << roi.right << ", top " << roi.top
     << ", bottom " << roi.bottom << "]";
  const std::string who = os.str();
  if (roi.left % 2 != 0 || roi.top % 2 != 0) return fail(who + ": left and top must be even");
  if (roi.right % 2 != 1 || roi.bottom % 2 != 1)
    return fail(who + ": right and bottom must be odd");
  if (roi.right < roi.left || roi.bottom < roi.top) {
    return fail(who + ": right must be > left and bottom > top");
  }
  const uint32_t w = roi.right - roi.left + 1;
  const uint32_t h = roi.bottom - roi.top + 1;
  const SizeRange& r = lim.vpc_out;
  if (w < r.min_width || h < r.min_height || w > r.max_width || h > r.max_height) {
    return fail(who + ": size " + std::to_string(w) + "x" + std::to_string(h) + " outside " +
                std::to_string(r.min_width) + "x" + std::to_string(r.min_height) + ".." +
                std::to_string(r.max_width) + "x" + std::to_string(r.max_height));
  }
  if (roi.right >= pic.width || roi.bottom >= pic.height) {
    return fail(who + ": not inside the " + std::to_string(pic.width) + "x" +
                std::to_string(pic.height) + " picture");
  }
  return Check{};
}

Check validate_resize_config(const acldvppResizeConfig& cfg, const Limits& lim) {
  if (cfg.interpolation > lim.max_interpolation) {
    return fail("resize config: interpolation " + std::to_string(cfg.interpolation) +
                " not supported (0.." + std::to_string(lim.max_interpolation) + ")");
  }
  return Check{};
}

Check validate_scale(uint32_t in_w, uint32_t in_h, uint32_t out_w, uint32_t out_h,
                     const Limits& lim) {
  if (in_w == 0 || in_h == 0) return fail("resize: input size is 0");
  const double rw = static_cast<double>(out_w) / in_w;
  const double rh = static_cast<double>(out_h) / in_h;
  if (rw < lim.resize_ratio_min || rw > lim.resize_ratio_max || rh < lim.resize_ratio_min ||
      rh > lim.resize_ratio_max) {
    std::ostringstream os;
    os << "resize " << in_w << "x" << in_h << " -> " << out_w << "x" << out_h
       << ": scale outside limits.resize_ratio [" << lim.resize_ratio_min << ", "
       << lim.resize_ratio_max << "]";
    return fail(os.str());
  }
  return Check{};
}

Check validate_channel(const acldvppChannelDesc* channel, uint32_t mode) {
  if (channel == nullptr) return fail("channel description is NULL");
  if (!channel->created) return fail("channel not created (call acldvppCreateChannel first)");
  if (channel->mode != 0 && (channel->mode & mode) == 0) {
    return fail("channel mode " + std::to_string(channel->mode) + " does not include engine " +
                std::to_string(mode) + " (acldvppSetChannelDescMode)");
  }
  return Check{};
}

// The exact batch rules are our reading of CANN's header (ACL_FACTS 7.7):
// one roiNums entry per source picture, one destination per ROI.
Check validate_batch(const acldvppBatchPicDesc* src, const uint32_t* roiNums, uint32_t size,
                     const acldvppBatchPicDesc* dst, acldvppRoiConfig* const* areas,
                     const char* what) {
  if (src == nullptr || dst == nullptr || roiNums == nullptr || areas == nullptr) {
    return fail(std::string("batch: src, dst, roiNums and ") + what + " must not be NULL");
  }
  if (size == 0 || size != src->pics.size()) {
    return fail("batch: size " + std::to_string(size) + " must equal the " +
                std::to_string(src->pics.size()) + " source pictures");
  }
  uint64_t total = 0;
  for (uint32_t i = 0; i < size; ++i) {
    if (roiNums[i] == 0) return fail("batch: roiNums[" + std::to_string(i) + "] is 0");
    total += roiNums[i];
  }
  if (total > kMaxBatchRegions || size > kMaxBatchRegions) {
    return Check{ACL_ERROR_INVALID_PARAM,
                 "batch: " + std::to_string(total) + " regions from " + std::to_string(size) +
                     " pictures: one call takes at most " + std::to_string(kMaxBatchRegions) +
                     " (sum of roiNums and size): split it into several calls",
                 Rule::kVpcBatchRegions};
  }
  if (total != dst->pics.size()) {
    return Check{ACL_ERROR_INVALID_PARAM,
                 "batch: sum(roiNums) = " + std::to_string(total) +
                     " but the destination batch holds " + std::to_string(dst->pics.size()) +
                     " pictures: one output picture per region",
                 Rule::kVpcBatchTotal};
  }
  for (uint64_t k = 0; k < total; ++k) {
    if (areas[k] == nullptr) {
      return fail(std::string("batch: ") + what + "[" + std::to_string(k) + "] is NULL");
    }
  }
  return Check{};
}

}  // namespace sim::dvpp
