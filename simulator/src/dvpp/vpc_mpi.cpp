// VPC V2 (hi_mpi_vpc_*, acl/dvpp/hi_dvpp.h) on the device timeline.
//
// A channel (hi_mpi_vpc_sys_create_chn: the lowest free id below limits.vpc_channels, 256 on
// the 310P, 910B and A3 [HIA zh 80RC1alpha002 aclcppdevg_03_0255; ACL_FACTS 4]) has a stream of
// the calling thread's context: its tasks run in submission order. Each hi_mpi_vpc_resize /
// crop_resize / crop_resize_paste call is one task of the VPC engine that the V1 calls use
// (dvpp_vpc.h: the same time, the same resampling), and returns its id; the output is the
// program's once hi_mpi_vpc_get_process_result has seen the task done (within its timeout, model
// time; -1 blocks). No stream, event or callback orders a V2 task: the host does, by that call.
// Pictures are checked against the profile's VPC figures as V1's (align.vpc_in/out, limits.vpc_*:
// on the 310P YUV420SP width_stride = ALIGN(width, 16) in [32, 16384], height_stride =
// ALIGN(height, 2), ws * hs * 3 / 2 bytes of hi_mpi_dvpp_malloc memory [HIA zh 80RC1alpha002
// aclcppdevg_03_0564; HIA 900 aclcppdevg_03_0637]).
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "acl/dvpp/hi_dvpp.h"
#include "api/api.h"
#include "api/runtime.h"
#include "core/device.h"
#include "core/memory.h"
#include "core/profile.h"
#include "dvpp/dvpp_content.h"
#include "dvpp/dvpp_desc.h"
#include "dvpp/dvpp_vpc.h"
#include "rules/hazard.h"
#include "rules/rules.h"
#include "vdec/vdec_mix.h"

using namespace sim;
namespace img = acl_sim::imaging;

namespace {

struct Channel {
  hi_vpc_chn id = 0;
  Stream* stream = nullptr;
  std::map<hi_u32, std::shared_ptr<Task>> tasks;  // submitted, result not fetched (g_mu)
  hi_u32 next_task = 1;
};

std::mutex g_mu;
std::map<hi_vpc_chn, std::shared_ptr<Channel>> g_channels;

// One region of a call: crop of the source, resized to resize_w x resize_h, written at (left,
// top) of dst.
struct Region {
  const hi_vpc_pic_info* dst = nullptr;
  hi_vpc_crop_region crop{};
  uint32_t resize_w = 0, resize_h = 0;
  uint32_t left = 0, top = 0;
};

hi_s32 args(const char* api, hi_s32 code, const std::string& why) {
  return raise_rule(Rule::kVpcV2Args, code, api, "%s", why.c_str());
}

// The channel, or the code: system not open, no such channel.
hi_s32 find(const char* api, hi_vpc_chn chn, std::shared_ptr<Channel>* out) {
  if (!vdec::v2_system()) return args(api, HI_ERR_VPC_SYS_NOT_READY, "hi_mpi_sys_init first");
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_channels.find(chn);
  if (it == g_channels.end())
    return args(
        api, HI_ERR_VPC_UNEXIST,
        "VPC channel " + std::to_string(chn) + " does not exist (hi_mpi_vpc_sys_create_chn)");
  *out = it->second;
  return HI_SUCCESS;
}

acldvppPicDesc to_desc(const hi_vpc_pic_info& p) {
  acldvppPicDesc d{};
  d.data = p.picture_address;
  d.size = p.picture_buffer_size;
  d.format = static_cast<acldvppPixelFormat>(p.picture_format);  // the same numbering
  d.width = p.picture_width;
  d.height = p.picture_height;
  d.widthStride = p.picture_width_stride;
  d.heightStride = p.picture_height_stride;
  return d;
}

bool nv12_or_nv21(hi_pixel_format f) {
  return f == HI_PIXEL_FORMAT_YUV_SEMIPLANAR_420 || f == HI_PIXEL_FORMAT_YVU_SEMIPLANAR_420;
}

// Why the w x h rectangle at (left, top), `what`, does not fit a picture of pic_w x pic_h
// (YUV420SP: even offsets and sizes; at least limits.vpc_out's minimum), or "".
std::string misfit(const char* what, uint32_t left, uint32_t top, uint32_t w, uint32_t h,
                   uint32_t pic_w, uint32_t pic_h, const char* pic, const dvpp::Limits& lim) {
  const std::string name = std::string(what) + " " + std::to_string(w) + "x" + std::to_string(h) +
                           " at (" + std::to_string(left) + ", " + std::to_string(top) + ")";
  if (left % 2 || top % 2 || w % 2 || h % 2)
    return name + ": offsets and sizes must be even (YUV420SP)";
  if (w < lim.vpc_out.min_width || h < lim.vpc_out.min_height || uint64_t{left} + w > pic_w ||
      uint64_t{top} + h > pic_h)
    return name + ": at least " + std::to_string(lim.vpc_out.min_width) + "x" +
           std::to_string(lim.vpc_out.min_height) + " and inside the " + std::to_string(pic_w) +
           "x" + std::to_string(pic_h) + " " + pic;
  return "";
}

// A picture of the call: the profile's VPC rules (rule vpc.v2_picture), then its memory (rule
// vpc.v2_memory). The simulator resamples YUV420SP (NV12, NV21) only.
hi_s32 check_picture(const char* api, const hi_vpc_pic_info& pic, bool input,
                     const dvpp::Limits& lim) {
  if (!nv12_or_nv21(pic.picture_format))
    return raise_rule(Rule::kVpcV2Picture, HI_ERR_VPC_NOT_SUPPORT, api,
                      "%s picture: pixel format %d: the simulator's VPC reads and writes YUV420SP "
                      "(HI_PIXEL_FORMAT_YUV_SEMIPLANAR_420, HI_PIXEL_FORMAT_YVU_SEMIPLANAR_420)",
                      input ? "source" : "destination", static_cast<int>(pic.picture_format));
  const acldvppPicDesc d = to_desc(pic);
  const dvpp::Check c =
      input ? dvpp::validate_vpc_input(d, lim) : dvpp::validate_vpc_output(d, lim);
  if (!c.ok())
    return raise_rule(Rule::kVpcV2Picture, HI_ERR_VPC_ILLEGAL_PARAM, api, "hi_vpc_pic_info: %s",
                      c.message.c_str());
  if (classify(pic.picture_address, pic.picture_buffer_size) != MemKind::kDvpp)
    return raise_rule(Rule::kVpcV2Memory, HI_ERR_VPC_ILLEGAL_PARAM, api,
                      "%s picture %p (+%u bytes) is not inside one hi_mpi_dvpp_malloc block",
                      input ? "source" : "destination", pic.picture_address,
                      pic.picture_buffer_size);
  return HI_SUCCESS;
}

// A region against its pictures (rule vpc.v2_region): the crop inside the source, the pasted
// picture inside the destination, both even (YUV420SP) and at least 10x6, the scale within
// limits.resize_ratio.
hi_s32 check_region(const char* api, const hi_vpc_pic_info& src, const Region& r,
                    const dvpp::Limits& lim) {
  const hi_vpc_crop_region& c = r.crop;
  std::string why = misfit("crop", c.left_offset, c.top_offset, c.crop_width, c.crop_height,
                           src.picture_width, src.picture_height, "source", lim);
  if (why.empty())
    why = misfit("resized", r.left, r.top, r.resize_w, r.resize_h, r.dst->picture_width,
                 r.dst->picture_height, "destination", lim);
  if (why.empty()) {
    const dvpp::Check s =
        dvpp::validate_scale(c.crop_width, c.crop_height, r.resize_w, r.resize_h, lim);
    why = s.message;
  }
  if (why.empty()) return HI_SUCCESS;
  return raise_rule(Rule::kVpcV2Region, HI_ERR_VPC_ILLEGAL_PARAM, api, "%s", why.c_str());
}

// Checks and queues one call's regions as one VPC task of channel chn; its id into *task_id.
hi_s32 submit(const char* api, hi_vpc_chn chn, const hi_vpc_pic_info* src,
              const std::vector<Region>& regions, hi_u32 interpolation, hi_u32* task_id) {
  std::shared_ptr<Channel> ch;
  if (hi_s32 rc = find(api, chn, &ch)) return rc;
  if (src == nullptr || task_id == nullptr)
    return args(api, HI_ERR_VPC_NULL_PTR, "source_pic and task_id must not be NULL");
  if (aclError rc = vdec::use(vdec::DvppApi::kV2, api, HI_ERR_VPC_NOT_PERM)) return rc;
  // 0: bilinear, 1: nearest neighbour (HIA 900beta2 aclpythondevg_01_0712; 81RC1
  // aclcppdevg_03_1057)
  if (interpolation > 1)
    return raise_rule(Rule::kVpcV2Region, HI_ERR_VPC_ILLEGAL_PARAM, api,
                      "interpolation %u: 0 (bilinear) or 1 (nearest neighbour)", interpolation);
  dvpp::Limits lim;
  const char* err = "";
  if (!dvpp::current_limits(&lim, &err))
    return raise_rule(Rule::kProfileDvpp, HI_ERR_VPC_SYS_NOT_READY, api, "%s", err);
  if (hi_s32 rc = check_picture(api, *src, true, lim)) return rc;
  dvpp::VpcJob job;
  job.interpolation =
      interpolation == 0 ? img::Interpolation::kBilinear : img::Interpolation::kNearest;
  for (const Region& r : regions) {
    if (r.dst == nullptr) return args(api, HI_ERR_VPC_NULL_PTR, "a destination picture is NULL");
    if (hi_s32 rc = check_picture(api, *r.dst, false, lim)) return rc;
    if (hi_s32 rc = check_region(api, *src, r, lim)) return rc;
    const hi_vpc_crop_region& c = r.crop;
    job.items.push_back({to_desc(*src), to_desc(*r.dst),
                         img::Roi{c.left_offset, c.top_offset, c.left_offset + c.crop_width - 1,
                                  c.top_offset + c.crop_height - 1},
                         img::Roi{r.left, r.top, r.left + r.resize_w - 1, r.top + r.resize_h - 1}});
  }
  TaskSpec spec = dvpp::vpc_task(api, std::move(job));
  const double stamp = charge_host();
  Device& dev = device();
  std::shared_ptr<Task> task;
  {
    std::unique_lock<std::mutex> lk(dev.mu());
    hold_task_memory(api, &spec, dev.id());
    task = dev.enqueue(lk, ch->stream, TaskKind::kWork, std::move(spec), stamp, nullptr, api);
  }
  std::lock_guard<std::mutex> lock(g_mu);
  *task_id = ch->next_task++;
  if (ch->next_task == 0) ch->next_task = 1;
  ch->tasks[*task_id] = std::move(task);
  return HI_SUCCESS;
}

// The regions of a crop_resize or crop_resize_paste call (the paste offsets are the caller's). One
// task has one interpolation: the first region's.
template <class R>
hi_s32 regions_of(const char* api, R info[], hi_u32 count, std::vector<Region>* out) {
  if (info == nullptr) return args(api, HI_ERR_VPC_NULL_PTR, "the region array is NULL");
  if (count == 0 || count > dvpp::kMaxBatchRegions)
    return raise_rule(Rule::kVpcV2Region, HI_ERR_VPC_ILLEGAL_PARAM, api,
                      "count %u: 1 .. %llu regions per call", count,
                      static_cast<unsigned long long>(dvpp::kMaxBatchRegions));
  for (hi_u32 i = 0; i < count; ++i) {
    Region r;
    r.dst = &info[i].dest_pic_info;
    r.crop = info[i].crop_region;
    r.resize_w = info[i].resize_info.resize_width;
    r.resize_h = info[i].resize_info.resize_height;
    out->push_back(r);
  }
  return HI_SUCCESS;
}

}  // namespace

extern "C" {

hi_s32 hi_mpi_vpc_sys_create_chn(hi_vpc_chn* chnl, const hi_vpc_chn_attr* attr) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  if (aclError rc = require_context(__func__)) return rc;
  if (chnl == nullptr || attr == nullptr)
    return args(__func__, HI_ERR_VPC_NULL_PTR, "chnl and attr must not be NULL");
  if (aclError rc = vdec::use(vdec::DvppApi::kV2, __func__, HI_ERR_VPC_NOT_PERM)) return rc;
  if (!vdec::v2_system()) return args(__func__, HI_ERR_VPC_SYS_NOT_READY, "hi_mpi_sys_init first");
  const auto limit = static_cast<hi_vpc_chn>(profile().num("limits.vpc_channels", 0));
  auto ch = std::make_shared<Channel>();
  {
    std::lock_guard<std::mutex> lock(g_mu);
    while (ch->id < limit && g_channels.count(ch->id) != 0) ++ch->id;
    if (ch->id >= limit)
      return raise_rule(Rule::kVpcV2Channels, HI_ERR_VPC_NOT_PERM, __func__,
                        "the process has %d VPC channels, all the %s has (limits.vpc_channels): "
                        "destroy one first (hi_mpi_vpc_destroy_chn)",
                        static_cast<int>(g_channels.size()), profile().str("soc").c_str());
    g_channels[ch->id] = ch;  // taken; its stream follows before the id goes back
  }
  {
    Device& dev = device();
    std::lock_guard<std::mutex> lock(dev.mu());
    ch->stream = dev.create_stream(current_context(), false);
  }
  *chnl = ch->id;
  return HI_SUCCESS;
}

hi_s32 hi_mpi_vpc_destroy_chn(hi_vpc_chn chn) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  std::shared_ptr<Channel> ch;
  if (hi_s32 rc = find(__func__, chn, &ch)) return rc;
  {
    // The channel's tasks finish first (their results, not fetched, are dropped).
    Device& dev = device();
    std::unique_lock<std::mutex> lk(dev.mu());
    if (ch->stream->last) dev.wait_done(lk, ch->stream->last, nullptr);
    dev.destroy_stream(ch->stream);
  }
  std::lock_guard<std::mutex> lock(g_mu);
  g_channels.erase(chn);
  return HI_SUCCESS;
}

hi_s32 hi_mpi_vpc_resize(hi_vpc_chn chn, const hi_vpc_pic_info* source_pic,
                         hi_vpc_pic_info* dest_pic, hi_double fx, hi_double fy,
                         hi_u32 interpolation, hi_u32* task_id, hi_s32 milli_sec) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  (void)milli_sec;  // the simulator's task queue never fills
  if (source_pic == nullptr || dest_pic == nullptr)
    return args(__func__, HI_ERR_VPC_NULL_PTR, "source_pic and dest_pic must not be NULL");
  if (fx != 0.0 || fy != 0.0)
    return args(__func__, HI_ERR_VPC_NOT_SUPPORT,
                "fx and fy: the simulator takes the scale from the destination's size (0, 0)");
  Region r;
  r.dst = dest_pic;
  r.crop = {0, 0, source_pic->picture_width & ~1u, source_pic->picture_height & ~1u};
  r.resize_w = dest_pic->picture_width;
  r.resize_h = dest_pic->picture_height;
  return submit(__func__, chn, source_pic, {r}, interpolation, task_id);
}

hi_s32 hi_mpi_vpc_crop_resize(hi_vpc_chn chn, const hi_vpc_pic_info* source_pic,
                              hi_vpc_crop_resize_region crop_resize_info[], hi_u32 count,
                              hi_u32* task_id, hi_s32 milli_sec) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  (void)milli_sec;  // the simulator's task queue never fills
  std::vector<Region> regions;
  if (hi_s32 rc = regions_of(__func__, crop_resize_info, count, &regions)) return rc;
  // The destination is the resized crop: its own size (HIA aclcppdevg_03_0637 900: crop_resize).
  for (Region& r : regions)
    if (r.resize_w != r.dst->picture_width || r.resize_h != r.dst->picture_height)
      return raise_rule(Rule::kVpcV2Region, HI_ERR_VPC_ILLEGAL_PARAM, __func__,
                        "resize_info %ux%u: crop_resize writes the whole destination (%ux%u); "
                        "hi_mpi_vpc_crop_resize_paste places a smaller one",
                        r.resize_w, r.resize_h, r.dst->picture_width, r.dst->picture_height);
  return submit(__func__, chn, source_pic, regions, crop_resize_info[0].resize_info.interpolation,
                task_id);
}

hi_s32 hi_mpi_vpc_crop_resize_paste(hi_vpc_chn chn, const hi_vpc_pic_info* source_pic,
                                    hi_vpc_crop_resize_paste_region crop_resize_paste_info[],
                                    hi_u32 count, hi_u32* task_id, hi_s32 milli_sec) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  (void)milli_sec;  // the simulator's task queue never fills
  std::vector<Region> regions;
  if (hi_s32 rc = regions_of(__func__, crop_resize_paste_info, count, &regions)) return rc;
  for (hi_u32 i = 0; i < count; ++i) {
    regions[i].left = crop_resize_paste_info[i].dest_left_offset;
    regions[i].top = crop_resize_paste_info[i].dest_top_offset;
  }
  return submit(__func__, chn, source_pic, regions,
                crop_resize_paste_info[0].resize_info.interpolation, task_id);
}

hi_s32 hi_mpi_vpc_get_process_result(hi_vpc_chn chn, hi_u32 task_id, hi_s32 milli_sec) {
  SIM_API_ENTER();  // ACL_SIM_FAIL and aclsimCallCount count it
  std::shared_ptr<Channel> ch;
  if (hi_s32 rc = find(__func__, chn, &ch)) return rc;
  std::shared_ptr<Task> task;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = ch->tasks.find(task_id);
    if (it == ch->tasks.end())
      return args(__func__, HI_ERR_VPC_ILLEGAL_PARAM,
                  "channel " + std::to_string(chn) + " has no task " + std::to_string(task_id) +
                      " (never submitted, or its result was fetched already)");
    task = it->second;
  }
  {
    Device& dev = device();
    std::unique_lock<std::mutex> lk(dev.mu());
    if (!dev.wait_done_for(lk, task, milli_sec))
      return HI_ERR_VPC_BUF_EMPTY;  // not done within the timeout: not a violation, ask again
  }
  // The host has the result: what the task wrote is ordered before what it does next.
  if (hazard::enabled()) hazard::observe(*task);
  std::lock_guard<std::mutex> lock(g_mu);
  ch->tasks.erase(task_id);
  return HI_SUCCESS;
}

}  // extern "C"
