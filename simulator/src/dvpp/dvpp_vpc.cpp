// VPC: resize, crop, crop-and-paste and their batch forms (acldvppVpc*Async).
//
// Each call is one task on engine kVpc (one unit, dvpp_vpc.h: the V2 calls share it) with
//   service_us = engines.vpc.base_us + engines.vpc.per_roi_us * (regions - 1)
//                + engines.vpc.per_mpixel_us * output Mpixels
// where the output is what VPC writes: the output picture (width x height) for
// resize/crop, the paste area for the paste forms, summed over the ROIs of a
// batch call (one base_us per call, which covers its first region; per_roi_us is
// each further region's own set-up: an assumption, docs/vpc_batch_time.md). Descriptors, ROIs and
// the interpolation are copied at submit; the source bytes are read at completion. Only the
// destination ROI is written (for resize/crop: the output picture, not its
// stride padding). Sources tagged by JPEGD (dvpp_content.h) go through the
// resize cache; others are resampled directly (cheaper than hashing them).
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl_sim/imaging/nv12.h"
#include "acl_sim/imaging/resize.h"
#include "api/api.h"
#include "api/runtime.h"
#include "core/memory.h"
#include "core/task.h"
#include "dvpp/dvpp_content.h"
#include "dvpp/dvpp_desc.h"
#include "dvpp/dvpp_rules.h"
#include "dvpp/dvpp_vpc.h"
#include "report/log.h"
#include "rules/rules.h"
#include "vdec/vdec_mix.h"

using namespace sim;
namespace img = acl_sim::imaging;

namespace {

// A failed check: the rule it names (the device rules dvpp.paste_left_align and vpc.batch_*:
// RULE line, the run fails), else the argument check vpc.args.
aclError refuse(const char* api, const dvpp::Check& c) {
  const Rule named = c.rule.value_or(Rule::kVpcArgs);
  // Spelled out so that the rule table's scan (tools/sim_rules) sees every rule raised here.
  return raise_rule(named == Rule::kDvppPasteLeftAlign     ? Rule::kDvppPasteLeftAlign
                    : named == Rule::kVpcBatchRegions      ? Rule::kVpcBatchRegions
                    : named == Rule::kVpcBatchTotal        ? Rule::kVpcBatchTotal
                    : named == Rule::kVpcBatchRoiParity    ? Rule::kVpcBatchRoiParity
                    : named == Rule::kVpcBatchRoiSize      ? Rule::kVpcBatchRoiSize
                    : named == Rule::kVpcBatchOutputStride ? Rule::kVpcBatchOutputStride
                                                           : Rule::kVpcArgs,
                    c.code, api, "%s", c.message.c_str());
}

using dvpp::VpcItem;
using dvpp::VpcJob;

img::Roi to_roi(const acldvppRoiConfig& r) {
  return img::Roi{r.left, r.top, r.right, r.bottom};
}

bool semi_planar_420(acldvppPixelFormat f) {
  return f == PIXEL_FORMAT_YUV_SEMIPLANAR_420 || f == PIXEL_FORMAT_YVU_SEMIPLANAR_420;
}

void swap_roi_chroma(const img::Nv12View& v, const img::Roi& roi) {
  uint8_t* uv = v.data + static_cast<size_t>(v.width_stride) * v.height_stride;
  for (uint32_t y = roi.top / 2; y <= roi.bottom / 2; ++y) {
    uint8_t* row = uv + static_cast<size_t>(y) * v.width_stride;
    for (uint32_t x = roi.left; x + 1 <= roi.right; x += 2) std::swap(row[x], row[x + 1]);
  }
}

void run_item(const VpcJob& job, const VpcItem& it) {
  const acldvppPicDesc& in = it.in;
  const acldvppPicDesc& out = it.out;
  if (!semi_planar_420(in.format) || !semi_planar_420(out.format)) {
    raise_rule(Rule::kVpcFormatNotSimulated, ACL_SUCCESS, job.api,
               "the simulator resamples NV12/NV21 only (%s -> %s): output left unwritten",
               dvpp::format_name(in.format), dvpp::format_name(out.format));
    return;
  }
  img::Nv12ConstView src(static_cast<const uint8_t*>(in.data), in.width, in.height, in.widthStride,
                         in.heightStride);
  img::Nv12View dst{static_cast<uint8_t*>(out.data), out.width, out.height, out.widthStride,
                    out.heightStride};
  uint64_t id = 0;
  bool tagged = dvpp::tag_get(in.data, img::nv12_bytes(in.widthStride, in.heightStride), &id);
  img::ResizeStatus st =
      tagged ? dvpp::resize_cache().resize_into(id, src, it.src_roi, dst, it.dst_roi,
                                                job.interpolation)
             : img::resize_nv12(src, it.src_roi, dst, it.dst_roi, job.interpolation);
  dvpp::count_resize(!tagged);
  if (st != img::ResizeStatus::kOk) {
    raise_rule(Rule::kVpcResample, ACL_ERROR_INVALID_PARAM, job.api, "%s", img::to_string(st));
    return;
  }
  if (in.format != out.format) swap_roi_chroma(dst, it.dst_roi);
  dvpp::tag_clear(out.data, out.size);
}

aclError check_memory(const char* api, const acldvppPicDesc& pic, const char* role) {
  if (classify(pic.data, pic.size) == MemKind::kDvpp) return ACL_SUCCESS;
  return raise_rule(Rule::kVpcMemory, ACL_ERROR_INVALID_PARAM, api,
                    "%s %p (+%u bytes) is not inside one acldvppMalloc block", role, pic.data,
                    pic.size);
}

aclError submit_job(const char* api, acldvppChannelDesc* channel, aclrtStream stream, VpcJob job) {
  for (const VpcItem& it : job.items) {
    if (aclError rc = check_memory(api, it.in, "input")) return rc;
    if (aclError rc = check_memory(api, it.out, "output")) return rc;
    dvpp::check_sub_buffer(api, it.out);
  }
  return dvpp::submit_on_channel(api, channel, stream, dvpp::vpc_task(api, std::move(job)));
}

// One crop/resize/paste; crop or paste NULL means the whole picture.
aclError single(const char* api, acldvppChannelDesc* channel, acldvppPicDesc* in,
                acldvppPicDesc* out, acldvppRoiConfig* crop, acldvppRoiConfig* paste,
                acldvppResizeConfig* resize, bool needs_resize, bool needs_paste,
                aclrtStream stream) {
  if (aclError rc = require_context(api)) return rc;
  if (aclError rc = vdec::use(vdec::DvppApi::kV1, api, ACL_ERROR_FEATURE_UNSUPPORTED)) return rc;
  dvpp::Limits lim;
  const char* err = "";
  if (!dvpp::current_limits(&lim, &err))
    return raise_rule(Rule::kProfileDvpp, ACL_ERROR_UNINITIALIZE, api, "%s", err);
  dvpp::Check c = needs_resize && crop == nullptr
                      ? dvpp::check_vpc_resize(channel, in, out, resize, lim)
                      : dvpp::check_vpc_crop(channel, in, out, crop, paste, resize, needs_resize,
                                             needs_paste, lim);
  if (!c.ok()) return refuse(api, c);
  VpcJob job;
  VpcItem it{dvpp::snapshot(*in), dvpp::snapshot(*out), {}, {}};
  it.src_roi = crop != nullptr ? to_roi(*crop) : img::full_roi(in->width, in->height);
  it.dst_roi = paste != nullptr ? to_roi(*paste) : img::full_roi(out->width, out->height);
  job.items.push_back(it);
  if (resize != nullptr) job.interpolation = static_cast<img::Interpolation>(resize->interpolation);
  return submit_job(api, channel, stream, std::move(job));
}

aclError batch(const char* api, acldvppChannelDesc* channel, acldvppBatchPicDesc* src,
               uint32_t* roiNums, uint32_t size, acldvppBatchPicDesc* dst,
               acldvppRoiConfig* cropAreas[], acldvppRoiConfig* pasteAreas[],
               acldvppResizeConfig* resize, bool needs_resize, bool needs_paste,
               aclrtStream stream) {
  if (aclError rc = require_context(api)) return rc;
  if (aclError rc = vdec::use(vdec::DvppApi::kV1, api, ACL_ERROR_FEATURE_UNSUPPORTED)) return rc;
  dvpp::Limits lim;
  const char* err = "";
  if (!dvpp::current_limits(&lim, &err))
    return raise_rule(Rule::kProfileDvpp, ACL_ERROR_UNINITIALIZE, api, "%s", err);
  dvpp::Check c = dvpp::check_vpc_batch(channel, src, roiNums, size, dst, cropAreas, pasteAreas,
                                        resize, needs_resize, needs_paste, lim);
  if (!c.ok()) return refuse(api, c);
  VpcJob job;
  uint32_t k = 0;
  for (uint32_t i = 0; i < size; ++i) {
    for (uint32_t n = 0; n < roiNums[i]; ++n, ++k) {
      const acldvppPicDesc& out = dst->pics[k];
      VpcItem it{src->pics[i], out, to_roi(*cropAreas[k]), img::full_roi(out.width, out.height)};
      if (needs_paste) it.dst_roi = to_roi(*pasteAreas[k]);
      job.items.push_back(it);
    }
  }
  if (resize != nullptr) job.interpolation = static_cast<img::Interpolation>(resize->interpolation);
  return submit_job(api, channel, stream, std::move(job));
}

}  // namespace

TaskSpec dvpp::vpc_task(const char* api, VpcJob job) {
  double mpixels = 0;
  TaskSpec spec;
  for (const VpcItem& it : job.items) {
    mpixels += static_cast<double>(it.dst_roi.width()) * it.dst_roi.height() / 1e6;
    spec.reads.push_back({it.in.data, it.in.size});
    spec.writes.push_back({it.out.data, it.out.size});
  }
  job.api = api;
  spec.engine = Engine::kVpc;
  const double further_regions = static_cast<double>(job.items.size()) - 1.0;
  spec.service_us = engine_param(Engine::kVpc, "base_us") +
                    engine_param(Engine::kVpc, "per_roi_us", 0.0) * further_regions +
                    engine_param(Engine::kVpc, "per_mpixel_us") * mpixels;
  spec.work = [job = std::move(job)] {
    for (const VpcItem& it : job.items) run_item(job, it);
  };
  spec.name = "vpc";
  return spec;
}

extern "C" {

aclError acldvppVpcResizeAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc,
                               acldvppPicDesc* outputDesc, acldvppResizeConfig* resizeConfig,
                               aclrtStream stream) {
  SIM_API_ENTER();
  return single(__func__, channelDesc, inputDesc, outputDesc, nullptr, nullptr, resizeConfig, true,
                false, stream);
}

aclError acldvppVpcCropAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc,
                             acldvppPicDesc* outputDesc, acldvppRoiConfig* cropArea,
                             aclrtStream stream) {
  SIM_API_ENTER();
  if (cropArea == nullptr)
    return raise_rule(Rule::kVpcArgs, ACL_ERROR_INVALID_PARAM, __func__, "cropArea is NULL");
  return single(__func__, channelDesc, inputDesc, outputDesc, cropArea, nullptr, nullptr, false,
                false, stream);
}

aclError acldvppVpcCropResizeAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc,
                                   acldvppPicDesc* outputDesc, acldvppRoiConfig* cropArea,
                                   acldvppResizeConfig* resizeConfig, aclrtStream stream) {
  SIM_API_ENTER();
  if (cropArea == nullptr)
    return raise_rule(Rule::kVpcArgs, ACL_ERROR_INVALID_PARAM, __func__, "cropArea is NULL");
  return single(__func__, channelDesc, inputDesc, outputDesc, cropArea, nullptr, resizeConfig, true,
                false, stream);
}

aclError acldvppVpcCropAndPasteAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc,
                                     acldvppPicDesc* outputDesc, acldvppRoiConfig* cropArea,
                                     acldvppRoiConfig* pasteArea, aclrtStream stream) {
  SIM_API_ENTER();
  if (cropArea == nullptr)
    return raise_rule(Rule::kVpcArgs, ACL_ERROR_INVALID_PARAM, __func__, "cropArea is NULL");
  return single(__func__, channelDesc, inputDesc, outputDesc, cropArea, pasteArea, nullptr, false,
                true, stream);
}

aclError acldvppVpcCropResizePasteAsync(acldvppChannelDesc* channelDesc, acldvppPicDesc* inputDesc,
                                        acldvppPicDesc* outputDesc, acldvppRoiConfig* cropArea,
                                        acldvppRoiConfig* pasteArea,
                                        acldvppResizeConfig* resizeConfig, aclrtStream stream) {
  SIM_API_ENTER();
  if (cropArea == nullptr)
    return raise_rule(Rule::kVpcArgs, ACL_ERROR_INVALID_PARAM, __func__, "cropArea is NULL");
  return single(__func__, channelDesc, inputDesc, outputDesc, cropArea, pasteArea, resizeConfig,
                true, true, stream);
}

aclError acldvppVpcBatchCropAsync(acldvppChannelDesc* channelDesc,
                                  acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
                                  uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs,
                                  acldvppRoiConfig* cropAreas[], aclrtStream stream) {
  SIM_API_ENTER();
  return batch(__func__, channelDesc, srcBatchPicDescs, roiNums, size, dstBatchPicDescs, cropAreas,
               nullptr, nullptr, false, false, stream);
}

aclError acldvppVpcBatchCropResizeAsync(acldvppChannelDesc* channelDesc,
                                        acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
                                        uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs,
                                        acldvppRoiConfig* cropAreas[],
                                        acldvppResizeConfig* resizeConfig, aclrtStream stream) {
  SIM_API_ENTER();
  return batch(__func__, channelDesc, srcBatchPicDescs, roiNums, size, dstBatchPicDescs, cropAreas,
               nullptr, resizeConfig, true, false, stream);
}

aclError acldvppVpcBatchCropAndPasteAsync(acldvppChannelDesc* channelDesc,
                                          acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
                                          uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs,
                                          acldvppRoiConfig* cropAreas[],
                                          acldvppRoiConfig* pasteAreas[], aclrtStream stream) {
  SIM_API_ENTER();
  return batch(__func__, channelDesc, srcBatchPicDescs, roiNums, size, dstBatchPicDescs, cropAreas,
               pasteAreas, nullptr, false, true, stream);
}

aclError acldvppVpcBatchCropResizePasteAsync(
    acldvppChannelDesc* channelDesc, acldvppBatchPicDesc* srcBatchPicDescs, uint32_t* roiNums,
    uint32_t size, acldvppBatchPicDesc* dstBatchPicDescs, acldvppRoiConfig* cropAreas[],
    acldvppRoiConfig* pasteAreas[], acldvppResizeConfig* resizeConfig, aclrtStream stream) {
  SIM_API_ENTER();
  return batch(__func__, channelDesc, srcBatchPicDescs, roiNums, size, dstBatchPicDescs, cropAreas,
               pasteAreas, resizeConfig, true, true, stream);
}

}  // extern "C"
