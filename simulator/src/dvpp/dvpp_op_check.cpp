// Whole-operation checks for the acldvpp*Async entry points: each combines
// the descriptor checks of dvpp_check.cpp in the order the device applies
// them, so every op validates the same way.
#include <string>
#include <utility>

#include "dvpp/dvpp_desc.h"

namespace sim::dvpp {
namespace {

Check fail(const std::string& message) {
  return Check{ACL_ERROR_INVALID_PARAM, message};
}

Check prefixed(const Check& c, const std::string& prefix) {
  return c.ok() ? c : Check{c.code, prefix + c.message, c.rule};
}

uint32_t roi_width(const acldvppRoiConfig& r) {
  return r.right - r.left + 1;
}
uint32_t roi_height(const acldvppRoiConfig& r) {
  return r.bottom - r.top + 1;
}

// One crop (and optional paste) of `in` into `out`.
Check check_one_crop(const acldvppPicDesc& in, const acldvppPicDesc& out,
                     const acldvppRoiConfig* crop, const acldvppRoiConfig* paste,
                     const Limits& lim) {
  Check c = validate_vpc_input(in, lim);
  if (!c.ok()) return c;
  if (!(c = validate_vpc_output(out, lim)).ok()) return c;
  uint32_t src_w = in.width, src_h = in.height;
  if (crop != nullptr) {
    if (!(c = validate_roi(*crop, in, lim, "crop area")).ok()) return c;
    src_w = roi_width(*crop);
    src_h = roi_height(*crop);
  }
  uint32_t dst_w = out.width, dst_h = out.height;
  if (paste != nullptr) {
    if (!(c = validate_roi(*paste, out, lim, "paste area")).ok()) return c;
    if (lim.vpc_paste_left > 1 && paste->left % lim.vpc_paste_left != 0) {
      return Check{ACL_ERROR_INVALID_PARAM,
                   "paste area left offset " + std::to_string(paste->left) +
                       " is not a multiple of " + std::to_string(lim.vpc_paste_left) +
                       " (align.vpc_paste_left): round it to one",
                   Rule::kDvppPasteLeftAlign};
    }
    dst_w = roi_width(*paste);
    dst_h = roi_height(*paste);
  }
  return validate_scale(src_w, src_h, dst_w, dst_h, lim);
}

// The documented rules of one region of a batch call, each its own device rule (rule_table.yaml
// vpc.batch_*): the output picture VPC writes, then each area's parity and size.
Check check_batch_region(const acldvppPicDesc& out, const acldvppRoiConfig* crop,
                         const acldvppRoiConfig* paste, const Limits& lim) {
  Check c = validate_vpc_output(out, lim);
  if (!c.ok()) return Check{c.code, c.message, Rule::kVpcBatchOutputStride};
  const std::pair<const acldvppRoiConfig*, const char*> areas[] = {{crop, "crop area"},
                                                                   {paste, "paste area"}};
  for (const auto& [roi, what] : areas) {
    if (roi == nullptr) continue;
    const std::string who = std::string(what) + " [left " + std::to_string(roi->left) + ", right " +
                            std::to_string(roi->right) + ", top " + std::to_string(roi->top) +
                            ", bottom " + std::to_string(roi->bottom) + "]";
    if (roi->left % 2 != 0 || roi->top % 2 != 0 || roi->right % 2 != 1 || roi->bottom % 2 != 1)
      return Check{ACL_ERROR_INVALID_PARAM,
                   who + ": left and top must be even, right and bottom odd",
                   Rule::kVpcBatchRoiParity};
    const SizeRange& r = lim.vpc_out;
    const uint32_t w = roi->right >= roi->left ? roi_width(*roi) : 0;
    const uint32_t h = roi->bottom >= roi->top ? roi_height(*roi) : 0;
    if (w < r.min_width || h < r.min_height || w > r.max_width || h > r.max_height)
      return Check{ACL_ERROR_INVALID_PARAM,
                   who + ": size " + std::to_string(w) + "x" + std::to_string(h) + " outside " +
                       std::to_string(r.min_width) + "x" + std::to_string(r.min_height) + ".." +
                       std::to_string(r.max_width) + "x" + std::to_string(r.max_height),
                   Rule::kVpcBatchRoiSize};
  }
  return Check{};
}

Check check_resize_config(const acldvppResizeConfig* resize, bool needed, const Limits& lim) {
  if (resize == nullptr) {
    return needed ? fail("resize config is NULL (acldvppCreateResizeConfig)") : Check{};
  }
  return validate_resize_config(*resize, lim);
}

}  // namespace

Check check_jpeg_decode(const acldvppChannelDesc* channel, const void* data, uint32_t size,
                        const acldvppPicDesc* output, const Limits& lim) {
  Check c = validate_channel(channel, DVPP_CHNMODE_JPEGD);
  if (!c.ok()) return c;
  if (data == nullptr || size == 0) return fail("JPEG input: data is NULL or size is 0");
  if (output == nullptr) return fail("JPEGD output description is NULL");
  return validate_jpegd_output(*output, lim);
}

Check check_vpc_resize(const acldvppChannelDesc* channel, const acldvppPicDesc* input,
                       const acldvppPicDesc* output, const acldvppResizeConfig* resize,
                       const Limits& lim) {
  return check_vpc_crop(channel, input, output, nullptr, nullptr, resize, true, false, lim);
}

Check check_vpc_crop(const acldvppChannelDesc* channel, const acldvppPicDesc* input,
                     const acldvppPicDesc* output, const acldvppRoiConfig* crop,
                     const acldvppRoiConfig* paste, const acldvppResizeConfig* resize,
                     bool needs_resize_config, bool needs_paste, const Limits& lim) {
  Check c = validate_channel(channel, DVPP_CHNMODE_VPC);
  if (!c.ok()) return c;
  if (input == nullptr || output == nullptr) return fail("VPC input or output description is NULL");
  if (needs_paste && paste == nullptr) return fail("paste area is NULL");
  if (!(c = check_resize_config(resize, needs_resize_config, lim)).ok()) return c;
  return check_one_crop(*input, *output, crop, paste, lim);
}

Check check_vpc_batch(const acldvppChannelDesc* channel, const acldvppBatchPicDesc* src,
                      const uint32_t* roiNums, uint32_t size, const acldvppBatchPicDesc* dst,
                      acldvppRoiConfig* const* cropAreas, acldvppRoiConfig* const* pasteAreas,
                      const acldvppResizeConfig* resize, bool needs_resize_config, bool needs_paste,
                      const Limits& lim) {
  Check c = validate_channel(channel, DVPP_CHNMODE_VPC);
  if (!c.ok()) return c;
  if (!(c = validate_batch(src, roiNums, size, dst, cropAreas, "cropAreas")).ok()) return c;
  if (needs_paste) {
    c = validate_batch(src, roiNums, size, dst, pasteAreas, "pasteAreas");
    if (!c.ok()) return c;
  }
  if (!(c = check_resize_config(resize, needs_resize_config, lim)).ok()) return c;
  uint32_t k = 0;  // index of the ROI, and of its destination picture
  for (uint32_t i = 0; i < size; ++i) {
    for (uint32_t n = 0; n < roiNums[i]; ++n, ++k) {
      const acldvppRoiConfig* paste = needs_paste ? pasteAreas[k] : nullptr;
      c = check_batch_region(dst->pics[k], cropAreas[k], paste, lim);
      if (c.ok()) c = check_one_crop(src->pics[i], dst->pics[k], cropAreas[k], paste, lim);
      if (!c.ok()) {
        return prefixed(
            c, "source picture " + std::to_string(i) + ", ROI " + std::to_string(k) + ": ");
      }
    }
  }
  return Check{};
}

}  // namespace sim::dvpp
