// VPC V2 (hi_mpi_vpc_*): resize, crop_resize and crop_resize_paste give the imaging kernel's
// bytes (the destination's other bytes untouched), a task per call awaited by its id, the VPC
// engine's time, and the rules; and dvpp.api_mix: a process's first media call decides its
// generation, the other one's calls fail. Groups vpc_v2, dvpp_mix_v1_first, dvpp_mix_v2_first:
// each its own process (the generation is the process's).
#include <cstring>
#include <vector>

#include "acl/dvpp/hi_dvpp.h"
#include "acl_sim/imaging/resize.h"
#include "check.h"
#include "dvpp_helpers.h"
#include "session.h"

using namespace testing_sim;
namespace img = acl_sim::imaging;

namespace {

constexpr double kFast = 0.05;  // ACL_SIM_TIME_SCALE for the tests that do not time
const hi_vpc_chn_attr kAttr = {0, 4096, 4096};

// The default profile (the 310's VPC figures: strides 16 x 2) with the V2 media API and
// `channels` V2 VPC channels.
void use_v2_profile(int channels = 4) {
  use_profile(write_profile(
      "vpc_v2", {{"features.dvpp_v2", "1"}, {"limits.vpc_channels", std::to_string(channels)}}));
}

// A w x h NV12 picture on strides ws x hs in a fresh hi_mpi_dvpp_malloc block, its bytes a
// pattern or 0xAB everywhere (`host` keeps them).
struct Picture {
  hi_vpc_pic_info info{};
  std::vector<uint8_t> host;
};

Picture picture(uint32_t w, uint32_t h, uint32_t ws, uint32_t hs, bool pattern) {
  Picture p;
  p.host.assign(static_cast<size_t>(ws) * hs * 3 / 2, 0xAB);
  if (pattern)
    for (size_t i = 0; i < p.host.size(); ++i)
      p.host[i] = static_cast<uint8_t>((i * 7 + i / ws) & 0xFF);
  void* data = nullptr;
  if (hi_mpi_dvpp_malloc(0, &data, p.host.size()) != HI_SUCCESS ||
      aclrtMemcpy(data, p.host.size(), p.host.data(), p.host.size(), ACL_MEMCPY_HOST_TO_DEVICE) !=
          ACL_SUCCESS)
    return p;
  p.info.picture_address = data;
  p.info.picture_buffer_size = static_cast<hi_u32>(p.host.size());
  p.info.picture_width = w;
  p.info.picture_height = h;
  p.info.picture_width_stride = ws;
  p.info.picture_height_stride = hs;
  p.info.picture_format = HI_PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  return p;
}

img::Nv12ConstView view(const Picture& p) {
  const hi_vpc_pic_info& i = p.info;
  return img::Nv12ConstView(p.host.data(), i.picture_width, i.picture_height,
                            i.picture_width_stride, i.picture_height_stride);
}

// What the kernel makes of src's `from` in dst's `to` (the rest of dst as it is).
std::vector<uint8_t> kernel(const Picture& src, img::Roi from, const Picture& dst, img::Roi to,
                            img::Interpolation how) {
  std::vector<uint8_t> out = dst.host;
  const hi_vpc_pic_info& d = dst.info;
  img::Nv12View v{out.data(), d.picture_width, d.picture_height, d.picture_width_stride,
                  d.picture_height_stride};
  if (img::resize_nv12(view(src), from, v, to, how) != img::ResizeStatus::kOk) out.clear();
  return out;
}

bool open_v2(hi_vpc_chn* chn, double scale = kFast) {
  use_v2_profile();
  return open_device(scale) == ACL_SUCCESS && hi_mpi_sys_init() == HI_SUCCESS &&
         hi_mpi_vpc_sys_create_chn(chn, &kAttr) == HI_SUCCESS;
}

void close_v2(hi_vpc_chn chn, std::vector<Picture*> pictures) {
  for (Picture* p : pictures) hi_mpi_dvpp_free(p->info.picture_address);
  hi_mpi_vpc_destroy_chn(chn);
  hi_mpi_sys_exit();
}

}  // namespace

TEST(vpc_v2, resize_matches_kernel_padding_untouched) {
  hi_vpc_chn chn = -1;
  CHECK(open_v2(&chn));
  CHECK_EQ(chn, 0);
  Picture src = picture(640, 480, 640, 480, true);
  Picture dst = picture(224, 224, 240, 226, false);  // padding beyond 224x224 stays 0xAB
  CHECK(src.info.picture_address != nullptr && dst.info.picture_address != nullptr);
  const hi_u32 modes[] = {0, 1};
  const img::Interpolation kernels[] = {img::Interpolation::kBilinear,
                                        img::Interpolation::kNearest};
  for (int k = 0; k < 2; ++k) {
    CHECK_OK(aclrtMemset(dst.info.picture_address, dst.host.size(), 0xAB, dst.host.size()));
    hi_u32 task = 0;
    CHECK_OK(hi_mpi_vpc_resize(chn, &src.info, &dst.info, 0, 0, modes[k], &task, -1));
    CHECK_OK(hi_mpi_vpc_get_process_result(chn, task, -1));
    const std::vector<uint8_t> want =
        kernel(src, img::full_roi(640, 480), dst, img::full_roi(224, 224), kernels[k]);
    CHECK(!want.empty());
    CHECK(download(dst.info.picture_address, dst.host.size()) == want);
    // Its result is fetched once.
    CHECK_RULE(hi_mpi_vpc_get_process_result(chn, task, 0),
               static_cast<hi_s32>(HI_ERR_VPC_ILLEGAL_PARAM), "vpc.v2_args");
  }
  close_v2(chn, {&src, &dst});
  CHECK_EQ(aclsimRuleCount(), uint64_t{0});
}

TEST(vpc_v2, crop_resize_and_paste_match_kernel) {
  hi_vpc_chn chn = -1;
  CHECK(open_v2(&chn));
  Picture src = picture(320, 240, 320, 240, true);
  Picture a = picture(64, 32, 64, 32, false);
  Picture b = picture(100, 50, 112, 50, false);
  Picture canvas = picture(256, 128, 256, 128, false);  // the paste leaves the rest as it is
  // Two crops of one source, each resized into its own picture: one task.
  hi_vpc_crop_resize_region two[2] = {};
  two[0].dest_pic_info = a.info;
  two[0].crop_region = {20, 10, 200, 100};  // top, left, width, height
  two[0].resize_info = {64, 32, 0};
  two[1].dest_pic_info = b.info;
  two[1].crop_region = {0, 0, 320, 240};
  two[1].resize_info = {100, 50, 0};
  hi_u32 task = 0;
  CHECK_OK(hi_mpi_vpc_crop_resize(chn, &src.info, two, 2, &task, -1));
  CHECK_OK(hi_mpi_vpc_get_process_result(chn, task, -1));
  const auto bilinear = img::Interpolation::kBilinear;
  CHECK(download(a.info.picture_address, a.host.size()) ==
        kernel(src, img::Roi{10, 20, 209, 119}, a, img::full_roi(64, 32), bilinear));
  CHECK(download(b.info.picture_address, b.host.size()) ==
        kernel(src, img::full_roi(320, 240), b, img::full_roi(100, 50), bilinear));
  // A crop resized to 100x50 and pasted at (32, 16) of the canvas.
  hi_vpc_crop_resize_paste_region paste{};
  paste.dest_pic_info = canvas.info;
  paste.crop_region = {20, 10, 200, 100};
  paste.resize_info = {100, 50, 1};
  paste.dest_left_offset = 32;
  paste.dest_top_offset = 16;
  CHECK_OK(hi_mpi_vpc_crop_resize_paste(chn, &src.info, &paste, 1, &task, -1));
  CHECK_OK(hi_mpi_vpc_get_process_result(chn, task, -1));
  CHECK(download(canvas.info.picture_address, canvas.host.size()) ==
        kernel(src, img::Roi{10, 20, 209, 119}, canvas, img::Roi{32, 16, 131, 65},
               img::Interpolation::kNearest));
  close_v2(chn, {&src, &a, &b, &canvas});
  CHECK_EQ(aclsimRuleCount(), uint64_t{0});
}

// A task takes the VPC engine's time (engines.vpc: 300 us + 1196 us per output Mpixel on the
// default profile, as the V1 calls); its result is not there before it is done.
TEST(vpc_v2, task_time_and_result_timeout) {
  hi_vpc_chn chn = -1;
  CHECK(open_v2(&chn, 10.0));  // the device 10 x slower than its profile: no race with the host
  Picture src = picture(1920, 1080, 1920, 1080, true);
  Picture dst = picture(4096, 2160, 4096, 2160, false);
  hi_u32 task = 0;
  const double t0 = aclsimNowUs();
  CHECK_OK(hi_mpi_vpc_resize(chn, &src.info, &dst.info, 0, 0, 0, &task, -1));
  CHECK_EQ(hi_mpi_vpc_get_process_result(chn, task, 0), static_cast<hi_s32>(HI_ERR_VPC_BUF_EMPTY));
  CHECK_OK(hi_mpi_vpc_get_process_result(chn, task, -1));
  const double took = aclsimNowUs() - t0;
  const double want = 300 + 1196 * 4096.0 * 2160 / 1e6;
  std::fprintf(stderr, "vpc_v2: a 4096x2160 resize took %.0f us of model time (service %.0f)\n",
               took, want);
  CHECK(took >= want);
  close_v2(chn, {&src, &dst});
  CHECK_EQ(aclsimRuleCount(), uint64_t{0});
}

TEST(vpc_v2, channels_and_call_order) {
  use_v2_profile(2);
  CHECK_OK(open_device(kFast));
  hi_vpc_chn a = -1, b = -1, c = -1;
  CHECK_RULE(hi_mpi_vpc_sys_create_chn(&a, &kAttr), static_cast<hi_s32>(HI_ERR_VPC_SYS_NOT_READY),
             "vpc.v2_args");
  CHECK_OK(hi_mpi_sys_init());
  CHECK_RULE(hi_mpi_vpc_sys_create_chn(nullptr, &kAttr), static_cast<hi_s32>(HI_ERR_VPC_NULL_PTR),
             "vpc.v2_args");
  CHECK_OK(hi_mpi_vpc_sys_create_chn(&a, &kAttr));
  CHECK_OK(hi_mpi_vpc_sys_create_chn(&b, &kAttr));
  CHECK_EQ(a, 0);
  CHECK_EQ(b, 1);
  CHECK_RULE(hi_mpi_vpc_sys_create_chn(&c, &kAttr), static_cast<hi_s32>(HI_ERR_VPC_NOT_PERM),
             "vpc.v2_channels");  // limits.vpc_channels = 2
  CHECK_OK(hi_mpi_vpc_destroy_chn(a));
  CHECK_OK(hi_mpi_vpc_sys_create_chn(&c, &kAttr));
  CHECK_EQ(c, 0);  // the lowest free id again
  Picture src = picture(64, 64, 64, 64, true);
  Picture dst = picture(32, 32, 32, 32, false);
  hi_u32 task = 0;
  CHECK_RULE(hi_mpi_vpc_resize(7, &src.info, &dst.info, 0, 0, 0, &task, -1),
             static_cast<hi_s32>(HI_ERR_VPC_UNEXIST), "vpc.v2_args");
  CHECK_RULE(hi_mpi_vpc_resize(b, &src.info, &dst.info, 0, 0, 0, nullptr, -1),
             static_cast<hi_s32>(HI_ERR_VPC_NULL_PTR), "vpc.v2_args");
  CHECK_RULE(hi_mpi_vpc_resize(b, &src.info, &dst.info, 0.5, 0.5, 0, &task, -1),
             static_cast<hi_s32>(HI_ERR_VPC_NOT_SUPPORT), "vpc.v2_args");
  CHECK_RULE(hi_mpi_vpc_get_process_result(b, 12345, 0),
             static_cast<hi_s32>(HI_ERR_VPC_ILLEGAL_PARAM), "vpc.v2_args");
  // Destroying a channel waits for its tasks.
  CHECK_OK(hi_mpi_vpc_resize(b, &src.info, &dst.info, 0, 0, 0, &task, -1));
  CHECK_OK(hi_mpi_vpc_destroy_chn(b));
  CHECK_RULE(hi_mpi_vpc_get_process_result(b, task, 0), static_cast<hi_s32>(HI_ERR_VPC_UNEXIST),
             "vpc.v2_args");
  close_v2(c, {&src, &dst});
  CHECK_RULE(hi_mpi_vpc_destroy_chn(c), static_cast<hi_s32>(HI_ERR_VPC_SYS_NOT_READY),
             "vpc.v2_args");
  CHECK_EQ(aclsimRuleCount(), uint64_t{0});
}

TEST(vpc_v2, picture_rules) {
  hi_vpc_chn chn = -1;
  CHECK(open_v2(&chn));
  Picture src = picture(640, 480, 640, 480, true);
  Picture dst = picture(224, 224, 224, 224, false);
  hi_u32 task = 0;
  auto resize = [&] { return hi_mpi_vpc_resize(chn, &src.info, &dst.info, 0, 0, 0, &task, -1); };
  const auto illegal = static_cast<hi_s32>(HI_ERR_VPC_ILLEGAL_PARAM);
  // The source's width stride not a multiple of 16 (align.vpc_in.width).
  src.info.picture_width_stride = 632;
  src.info.picture_width = 630;
  CHECK_RULE(resize(), illegal, "vpc.v2_picture");
  src.info.picture_width_stride = 640;
  // An odd width (YUV420SP).
  src.info.picture_width = 639;
  CHECK_RULE(resize(), illegal, "vpc.v2_picture");
  src.info.picture_width = 640;
  // A buffer smaller than ws * hs * 3 / 2.
  dst.info.picture_buffer_size = 224 * 224;
  CHECK_RULE(resize(), illegal, "vpc.v2_picture");
  dst.info.picture_buffer_size = 224 * 224 * 3 / 2;
  // A destination below VPC's smallest output (limits.vpc_out: 10x6).
  dst.info.picture_width = 8;
  dst.info.picture_width_stride = 32;
  CHECK_RULE(resize(), illegal, "vpc.v2_picture");
  dst.info.picture_width = 224;
  dst.info.picture_width_stride = 224;
  // RGB: not simulated.
  dst.info.picture_format = static_cast<hi_pixel_format>(12);
  CHECK_RULE(resize(), static_cast<hi_s32>(HI_ERR_VPC_NOT_SUPPORT), "vpc.v2_picture");
  dst.info.picture_format = HI_PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  // Memory that is not hi_mpi_dvpp_malloc's: the host's, then the device's (aclrtMalloc).
  std::vector<uint8_t> host(224 * 224 * 3 / 2 + 256);
  void* aligned =
      reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(host.data()) + 127) & ~uintptr_t{127});
  void* device = nullptr;
  CHECK_OK(aclrtMalloc(&device, 224 * 224 * 3 / 2, ACL_MEM_MALLOC_HUGE_FIRST));
  void* good = dst.info.picture_address;
  for (void* p : {aligned, device}) {
    dst.info.picture_address = p;
    CHECK_RULE(resize(), illegal, "vpc.v2_memory");
  }
  dst.info.picture_address = good;
  CHECK_OK(resize());
  CHECK_OK(hi_mpi_vpc_get_process_result(chn, task, -1));
  CHECK_OK(aclrtFree(device));
  close_v2(chn, {&src, &dst});
  CHECK_EQ(aclsimRuleCount(), uint64_t{0});
}

TEST(vpc_v2, region_rules) {
  hi_vpc_chn chn = -1;
  CHECK(open_v2(&chn));
  Picture src = picture(320, 240, 320, 240, true);
  Picture dst = picture(64, 32, 64, 32, false);
  const auto illegal = static_cast<hi_s32>(HI_ERR_VPC_ILLEGAL_PARAM);
  hi_vpc_crop_resize_paste_region r{};
  r.dest_pic_info = dst.info;
  r.crop_region = {0, 0, 200, 100};
  r.resize_info = {64, 32, 0};
  hi_u32 task = 0;
  auto call = [&](hi_u32 count = 1) {
    return hi_mpi_vpc_crop_resize_paste(chn, &src.info, &r, count, &task, -1);
  };
  r.crop_region = {0, 200, 200, 100};  // left 200 + 200 > 320
  CHECK_RULE(call(), illegal, "vpc.v2_region");
  r.crop_region = {0, 3, 200, 100};  // odd left
  CHECK_RULE(call(), illegal, "vpc.v2_region");
  r.crop_region = {0, 0, 200, 100};
  r.dest_left_offset = 2;  // 2 + 64 > 64
  CHECK_RULE(call(), illegal, "vpc.v2_region");
  r.dest_left_offset = 0;
  r.resize_info.interpolation = 2;
  CHECK_RULE(call(), illegal, "vpc.v2_region");
  r.resize_info.interpolation = 0;
  CHECK_RULE(call(0), illegal, "vpc.v2_region");
  r.crop_region = {0, 0, 10, 6};  // 10x6 -> 64x32: 6.4 x, within 16 x
  CHECK_OK(call());
  CHECK_OK(hi_mpi_vpc_get_process_result(chn, task, -1));
  Picture big = picture(320, 192, 320, 192, false);
  r.dest_pic_info = big.info;
  r.resize_info = {320, 192, 0};  // 10x6 -> 320x192: 32 x, beyond limits.resize_ratio
  CHECK_RULE(call(), illegal, "vpc.v2_region");
  // crop_resize writes the whole destination.
  hi_vpc_crop_resize_region cr{};
  cr.dest_pic_info = dst.info;
  cr.crop_region = {0, 0, 200, 100};
  cr.resize_info = {32, 32, 0};
  CHECK_RULE(hi_mpi_vpc_crop_resize(chn, &src.info, &cr, 1, &task, -1), illegal, "vpc.v2_region");
  close_v2(chn, {&src, &dst, &big});
  CHECK_EQ(aclsimRuleCount(), uint64_t{0});
}

TEST(vpc_v2, not_on_the_310) {
  CHECK_OK(open_device(kFast));  // the default profile: ascend310, no V2
  CHECK_RULE(hi_mpi_sys_init(), static_cast<hi_s32>(HI_ERR_VDEC_NOT_SUPPORT),
             "vdec.v2_unsupported");
  hi_vpc_chn chn = -1;
  CHECK_RULE(hi_mpi_vpc_sys_create_chn(&chn, &kAttr), static_cast<hi_s32>(HI_ERR_VPC_SYS_NOT_READY),
             "vpc.v2_args");
}

// V1 first: the process's V2 calls fail (the first one reported as the device rule).
TEST(dvpp_mix_v1_first, v2_calls_fail) {
  use_v2_profile();
  CHECK_OK(open_device(kFast));
  void* p = nullptr;
  CHECK_OK(acldvppMalloc(&p, 4096));
  CHECK_DEVICE_RULE(hi_mpi_sys_init(), static_cast<hi_s32>(HI_ERR_VDEC_NOT_PERM), "dvpp.api_mix");
  void* q = nullptr;
  CHECK_DEVICE_RULE(hi_mpi_dvpp_malloc(0, &q, 4096), static_cast<hi_s32>(HI_ERR_VDEC_NOT_PERM),
                    "dvpp.api_mix");
  CHECK(q == nullptr);
  hi_vpc_chn chn = -1;
  CHECK_DEVICE_RULE(hi_mpi_vpc_sys_create_chn(&chn, &kAttr),
                    static_cast<hi_s32>(HI_ERR_VPC_NOT_PERM), "dvpp.api_mix");
  acldvppChannelDesc* ch = make_channel();  // V1 goes on
  CHECK(ch != nullptr);
  destroy_channel(ch);
  CHECK_OK(acldvppFree(p));
}

// V2 first: the process's V1 media calls fail; its descriptors (no engine) do not count.
TEST(dvpp_mix_v2_first, v1_calls_fail) {
  hi_vpc_chn chn = -1;
  CHECK(open_v2(&chn));
  void* p = nullptr;
  CHECK_DEVICE_RULE(acldvppMalloc(&p, 4096), ACL_ERROR_FEATURE_UNSUPPORTED, "dvpp.api_mix");
  acldvppChannelDesc* desc = acldvppCreateChannelDesc();
  CHECK(desc != nullptr);
  CHECK_DEVICE_RULE(acldvppCreateChannel(desc), ACL_ERROR_FEATURE_UNSUPPORTED, "dvpp.api_mix");
  CHECK_OK(acldvppDestroyChannelDesc(desc));
  Picture src = picture(64, 64, 64, 64, true);
  Picture dst = picture(32, 32, 32, 32, false);
  hi_u32 task = 0;
  CHECK_OK(hi_mpi_vpc_resize(chn, &src.info, &dst.info, 0, 0, 0, &task, -1));  // V2 goes on
  CHECK_OK(hi_mpi_vpc_get_process_result(chn, task, -1));
  close_v2(chn, {&src, &dst});
}
