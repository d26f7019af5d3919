// Rule corpus, part 5 (rules_corpus.h): the rules of VPC batch crops
// (acldvppVpcBatchCropResizePasteAsync, rule_table.yaml vpc.batch_*). Each `bad` cuts regions
// out of one 640x480 picture the way one rule forbids; its twin cuts them the documented way.
#define ENABLE_DVPP_INTERFACE
#include <vector>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "rules_corpus.h"

namespace corpus {
namespace {

constexpr uint32_t kSrcW = 640, kSrcH = 480;
constexpr uint32_t kOutW = 64, kOutH = 64;  // each region resized into a 64x64 picture

struct Region {
  uint32_t left, right, top, bottom;
};

// How a twin departs from the documented call.
struct Plan {
  uint32_t regions = 4;           // roiNums[0]: regions cut from the picture
  uint32_t outputs = 4;           // pictures of the output batch
  Region crop{32, 131, 40, 139};  // region k is this one moved right by 100 x k (wrapping)
  uint32_t out_stride = kOutW;    // each output picture's widthStride
};

void set_nv12(acldvppPicDesc* p, void* data, uint32_t w, uint32_t h, uint32_t ws) {
  acldvppSetPicDescData(p, data);
  acldvppSetPicDescFormat(p, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
  acldvppSetPicDescWidth(p, w);
  acldvppSetPicDescHeight(p, h);
  acldvppSetPicDescWidthStride(p, ws);
  acldvppSetPicDescHeightStride(p, h);
  acldvppSetPicDescSize(p, ws * h * 3 / 2);
}

// One acldvppVpcBatchCropResizePasteAsync as `plan` says; returns what the call returned, or
// -1 when the set-up failed.
int batch_crop(const Plan& plan) {
  aclrtStream s = nullptr;
  if (!open_device(&s)) return -1;
  void* src = nullptr;
  const uint32_t src_bytes = kSrcW * kSrcH * 3 / 2;
  acldvppMalloc(&src, src_bytes);
  aclrtMemset(src, src_bytes, 128, src_bytes);
  acldvppBatchPicDesc* sb = acldvppCreateBatchPicDesc(1);
  set_nv12(acldvppGetPicDesc(sb, 0), src, kSrcW, kSrcH, kSrcW);
  acldvppBatchPicDesc* db = acldvppCreateBatchPicDesc(plan.outputs);
  std::vector<void*> outs(plan.outputs, nullptr);
  for (uint32_t k = 0; k < plan.outputs; ++k) {
    acldvppMalloc(&outs[k], plan.out_stride * kOutH * 3 / 2);
    set_nv12(acldvppGetPicDesc(db, k), outs[k], kOutW, kOutH, plan.out_stride);
  }
  std::vector<acldvppRoiConfig*> crops, pastes;
  for (uint32_t k = 0; k < plan.regions; ++k) {
    const uint32_t dx = 100 * (k % 5);
    crops.push_back(acldvppCreateRoiConfig(plan.crop.left + dx, plan.crop.right + dx, plan.crop.top,
                                           plan.crop.bottom));
    pastes.push_back(acldvppCreateRoiConfig(0, kOutW - 1, 0, kOutH - 1));
  }
  acldvppResizeConfig* cfg = acldvppCreateResizeConfig();
  acldvppChannelDesc* ch = acldvppCreateChannelDesc();
  if (acldvppCreateChannel(ch) != ACL_SUCCESS) return -1;
  uint32_t roi_nums[1] = {plan.regions};
  const aclError rc = acldvppVpcBatchCropResizePasteAsync(ch, sb, roi_nums, 1, db, crops.data(),
                                                          pastes.data(), cfg, s);
  aclrtSynchronizeStream(s);
  acldvppDestroyChannel(ch);
  acldvppDestroyChannelDesc(ch);
  acldvppDestroyResizeConfig(cfg);
  for (acldvppRoiConfig* r : crops) acldvppDestroyRoiConfig(r);
  for (acldvppRoiConfig* r : pastes) acldvppDestroyRoiConfig(r);
  acldvppDestroyBatchPicDesc(sb);
  acldvppDestroyBatchPicDesc(db);
  acldvppFree(src);
  for (void* p : outs) acldvppFree(p);
  const int status = close_device(s);
  return rc == ACL_SUCCESS ? status : (rc == ACL_ERROR_INVALID_PARAM ? 10 + status : -1);
}

// The bad twin's call is refused with ACL_ERROR_INVALID_PARAM and the run fails (10 + status
// 1); the good twin's call succeeds and the run is clean.
int outcome(bool bad, int got) {
  if (bad) return got == 11 ? 1 : 3;
  return got == 0 ? 0 : 3;
}

// 257 regions in one call (the documented most is 256); the twin cuts 256.
int batch_regions(bool bad) {
  Plan p;
  p.regions = p.outputs = bad ? 257 : 256;
  return outcome(bad, batch_crop(p));
}

// 4 regions into an output batch of 5 pictures; the twin's batch holds 4.
int batch_total(bool bad) {
  Plan p;
  p.outputs = bad ? 5 : 4;
  return outcome(bad, batch_crop(p));
}

// A crop area with an odd left (33): left/top even, right/bottom odd on the 310.
int batch_roi_parity(bool bad) {
  Plan p;
  if (bad) p.crop = Region{33, 131, 40, 139};
  return outcome(bad, batch_crop(p));
}

// An 8 pixels wide crop (the least is 10); the twin's is 10 wide.
int batch_roi_size(bool bad) {
  Plan p;
  p.crop = bad ? Region{32, 39, 40, 139} : Region{32, 41, 40, 139};
  return outcome(bad, batch_crop(p));
}

// Output pictures 64 wide on a widthStride of 72 (VPC writes 16-aligned strides); the twin's
// stride is 64.
int batch_output_stride(bool bad) {
  Plan p;
  p.out_stride = bad ? 72 : kOutW;
  return outcome(bad, batch_crop(p));
}

}  // namespace

std::vector<Case> with_crop_cases(std::vector<Case> base) {
  const std::vector<Case> crop = {
      {"vpc_batch_regions", "RULE vpc.batch_regions ", 87, "", "", batch_regions},
      {"vpc_batch_total", "RULE vpc.batch_total ", 87, "", "", batch_total},
      {"vpc_batch_roi_parity", "RULE vpc.batch_roi_parity ", 87, "", "", batch_roi_parity},
      {"vpc_batch_roi_size", "RULE vpc.batch_roi_size ", 87, "", "", batch_roi_size},
      {"vpc_batch_output_stride", "RULE vpc.batch_output_stride ", 87, "", "", batch_output_stride},
  };
  base.insert(base.end(), crop.begin(), crop.end());
  return base;
}

}  // namespace corpus
