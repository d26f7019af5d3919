// VDEC V2 (hi_mpi_vdec_*): a fetch thread gets every frame (equal to the ffmpeg command's
// reference decode), back-pressure with HI_ERR_VDEC_BUF_FULL, and the 310 refusing V2.
// Its own ctest group (process): V1 and V2 must not be mixed in one process.
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "acl/dvpp/hi_dvpp.h"
#include "acl_sim/acl_sim.h"
#include "check.h"
#include "session.h"
#include "vdec_clip.h"

using namespace vdec_test;

namespace {

// The default profile made a V2 device (the 310P's VDEC figures).
void use_v2_profile() {
  testing_sim::use_profile(
      testing_sim::write_profile("vdec_v2", {{"features.dvpp_v2", "1"},
                                             {"limits.vdec_channels", "256"},
                                             {"engines.vdec.units", "12"},
                                             {"engines.vdec.per_block_us", "8.17"}}));
}

hi_vdec_chn_attr attr_for(const Clip& clip, hi_payload_type type, hi_u32 frames) {
  hi_vdec_chn_attr a{};
  a.type = type;
  a.mode = HI_VDEC_SEND_MODE_FRAME;
  a.pic_width = clip.width;
  a.pic_height = clip.height;
  a.frame_buf_cnt = frames;
  a.video_attr.ref_frame_num = 4;
  return a;
}

hi_vdec_pic_info picture(const Clip& clip, void* data) {
  hi_vdec_pic_info p{};
  p.width = clip.width;
  p.height = clip.height;
  p.width_stride = align(clip.width, 16);
  p.height_stride = align(clip.height, 2);
  p.pixel_format = HI_PIXEL_FORMAT_YUV_SEMIPLANAR_420;
  p.vir_addr = reinterpret_cast<hi_u64>(data);
  p.buffer_size = p.width_stride * p.height_stride * 3 / 2;
  return p;
}

hi_vdec_stream unit(const Clip& clip, size_t i, void* data) {
  hi_vdec_stream s{};
  s.addr = static_cast<hi_u8*>(data);
  s.len = static_cast<hi_u32>(clip.units[i].second);
  s.pts = i;
  s.end_of_frame = HI_TRUE;
  s.need_display = HI_TRUE;
  return s;
}

bool same_picture(const Clip& clip, size_t frame, const hi_video_frame& f) {
  const auto* ref = clip.reference.data() + frame * clip.frame_bytes();
  const auto* y = static_cast<const uint8_t*>(f.virt_addr[0]);
  const auto* uv = static_cast<const uint8_t*>(f.virt_addr[1]);
  for (uint32_t r = 0; r < clip.height; ++r)
    if (std::memcmp(ref + r * clip.width, y + r * f.width_stride[0], clip.width) != 0) return false;
  const uint8_t* ref_uv = ref + clip.width * clip.height;
  for (uint32_t r = 0; r < clip.height / 2; ++r)
    if (std::memcmp(ref_uv + r * clip.width, uv + r * f.width_stride[1], clip.width) != 0)
      return false;
  return f.width == clip.width && f.height == clip.height;
}

}  // namespace

TEST(vdec_v2, fetch_thread_gets_every_frame) {
  use_v2_profile();
  Clip clip = load_clip("qvga_h264", "h264");
  CHECK(clip.ok);
  CHECK_OK(testing_sim::open_device());
  CHECK_OK(hi_mpi_sys_init());
  const hi_vdec_chn_attr attr = attr_for(clip, HI_PT_H264, 6);
  CHECK_OK(hi_mpi_vdec_create_chn(200, &attr));
  CHECK_OK(hi_mpi_vdec_start_recv_stream(200));
  std::vector<void*> in(clip.frames), out(clip.frames);
  for (size_t i = 0; i < clip.frames; ++i) {
    CHECK_OK(hi_mpi_dvpp_malloc(0, &in[i], clip.units[i].second));
    CHECK_OK(aclrtMemcpy(in[i], clip.units[i].second, clip.stream.data() + clip.units[i].first,
                         clip.units[i].second, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(hi_mpi_dvpp_malloc(0, &out[i], clip.frame_bytes()));
  }
  std::atomic<int> got{0}, wrong{0};
  std::thread fetch([&] {
    while (got < static_cast<int>(clip.frames)) {
      hi_video_frame_info f{};
      hi_vdec_stream s{};
      if (hi_mpi_vdec_get_frame(200, &f, nullptr, &s, 100) != HI_SUCCESS) continue;
      const size_t i = static_cast<size_t>(got++);
      if (s.pts != i || f.v_frame.virt_addr[0] != out[i] || !same_picture(clip, i, f.v_frame))
        ++wrong;
      hi_mpi_vdec_release_frame(200, &f);
    }
  });
  for (size_t i = 0; i < clip.frames; ++i) {
    hi_vdec_stream s = unit(clip, i, in[i]);
    hi_vdec_pic_info p = picture(clip, out[i]);
    CHECK_OK(hi_mpi_vdec_send_stream(200, &s, &p, -1));  // blocks while 6 frames are out
  }
  hi_vdec_stream eos{};
  eos.end_of_stream = HI_TRUE;
  CHECK_OK(hi_mpi_vdec_send_stream(200, &eos, nullptr, -1));
  fetch.join();
  CHECK_EQ(wrong.load(), 0);
  CHECK_OK(hi_mpi_vdec_stop_recv_stream(200));
  CHECK_OK(hi_mpi_vdec_destroy_chn(200));
  for (size_t i = 0; i < clip.frames; ++i) {
    CHECK_OK(hi_mpi_dvpp_free(in[i]));
    CHECK_OK(hi_mpi_dvpp_free(out[i]));
  }
  CHECK_OK(hi_mpi_sys_exit());
  CHECK_EQ(aclsimRuleCount(), uint64_t{0});
}

TEST(vdec_v2, buffer_full_until_a_frame_is_released) {
  use_v2_profile();
  Clip clip = load_clip("hd_h264", "h264", false);  // no B-frames: a picture per unit
  CHECK(clip.ok);
  CHECK_OK(testing_sim::open_device());
  CHECK_OK(hi_mpi_sys_init());
  const hi_vdec_chn_attr attr = attr_for(clip, HI_PT_H264, 2);
  CHECK_OK(hi_mpi_vdec_create_chn(1, &attr));
  CHECK_OK(hi_mpi_vdec_start_recv_stream(1));
  std::vector<void*> in(3), out(3);
  std::vector<hi_vdec_stream> s(3);
  std::vector<hi_vdec_pic_info> p(3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK_OK(hi_mpi_dvpp_malloc(0, &in[i], clip.units[i].second));
    CHECK_OK(aclrtMemcpy(in[i], clip.units[i].second, clip.stream.data() + clip.units[i].first,
                         clip.units[i].second, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(hi_mpi_dvpp_malloc(0, &out[i], clip.frame_bytes()));
    s[i] = unit(clip, i, in[i]);
    p[i] = picture(clip, out[i]);
  }
  const auto full = static_cast<hi_s32>(HI_ERR_VDEC_BUF_FULL);
  CHECK_OK(hi_mpi_vdec_send_stream(1, &s[0], &p[0], 0));
  CHECK_OK(hi_mpi_vdec_send_stream(1, &s[1], &p[1], 0));
  CHECK_EQ(hi_mpi_vdec_send_stream(1, &s[2], &p[2], 0), full);  // 2 frames out: no room
  CHECK_EQ(hi_mpi_vdec_send_stream(1, &s[2], &p[2], 5), full);  // nor after 5 ms
  hi_video_frame_info f{};
  hi_vdec_stream got{};
  CHECK_OK(hi_mpi_vdec_get_frame(1, &f, nullptr, &got, -1));
  CHECK_EQ(got.pts, hi_u64{0});
  CHECK_EQ(hi_mpi_vdec_send_stream(1, &s[2], &p[2], 0), full);  // fetched, not yet released
  CHECK_OK(hi_mpi_vdec_release_frame(1, &f));
  CHECK_OK(hi_mpi_vdec_send_stream(1, &s[2], &p[2], 0));  // room again
  for (hi_u64 pts = 1; pts < 3; ++pts) {
    CHECK_OK(hi_mpi_vdec_get_frame(1, &f, nullptr, &got, -1));
    CHECK_EQ(got.pts, pts);
    CHECK_OK(hi_mpi_vdec_release_frame(1, &f));
  }
  CHECK_EQ(hi_mpi_vdec_get_frame(1, &f, nullptr, nullptr, 0),
           static_cast<hi_s32>(HI_ERR_VDEC_BUF_EMPTY));
  CHECK_OK(hi_mpi_vdec_stop_recv_stream(1));
  CHECK_OK(hi_mpi_vdec_destroy_chn(1));
  for (size_t i = 0; i < 3; ++i) {
    CHECK_OK(hi_mpi_dvpp_free(in[i]));
    CHECK_OK(hi_mpi_dvpp_free(out[i]));
  }
  CHECK_OK(hi_mpi_sys_exit());
  CHECK_EQ(aclsimRuleCount(), uint64_t{0});
}

TEST(vdec_v2, call_order) {
  use_v2_profile();
  CHECK_OK(testing_sim::open_device());
  hi_vdec_chn_attr attr{};
  attr.type = HI_PT_H264;
  attr.mode = HI_VDEC_SEND_MODE_FRAME;
  attr.pic_width = 320;
  attr.pic_height = 240;
  CHECK_RULE(hi_mpi_vdec_create_chn(0, &attr), static_cast<hi_s32>(HI_ERR_VDEC_SYS_NOT_READY),
             "vdec.mpi_args");
  CHECK_OK(hi_mpi_sys_init());
  CHECK_RULE(hi_mpi_vdec_create_chn(256, &attr), static_cast<hi_s32>(HI_ERR_VDEC_INVALID_CHN_ID),
             "vdec.channel_id");
  attr.mode = HI_VDEC_SEND_MODE_STREAM;
  CHECK_RULE(hi_mpi_vdec_create_chn(0, &attr), static_cast<hi_s32>(HI_ERR_VDEC_NOT_SUPPORT),
             "vdec.mpi_args");
  attr.mode = HI_VDEC_SEND_MODE_FRAME;
  CHECK_OK(hi_mpi_vdec_create_chn(0, &attr));
  CHECK_RULE(hi_mpi_vdec_create_chn(0, &attr), static_cast<hi_s32>(HI_ERR_VDEC_EXIST),
             "vdec.channel_id");
  hi_vdec_stream s{};
  CHECK_RULE(hi_mpi_vdec_send_stream(0, &s, nullptr, 0), static_cast<hi_s32>(HI_ERR_VDEC_NOT_PERM),
             "vdec.mpi_args");
  CHECK_OK(hi_mpi_vdec_start_recv_stream(0));
  std::vector<uint8_t> host(64, 0);
  s.addr = host.data();
  s.len = 64;
  CHECK_RULE(hi_mpi_vdec_send_stream(0, &s, nullptr, 0),
             static_cast<hi_s32>(HI_ERR_VDEC_ILLEGAL_PARAM), "vdec.input_memory");
  CHECK_RULE(hi_mpi_vdec_destroy_chn(0), static_cast<hi_s32>(HI_ERR_VDEC_NOT_PERM),
             "vdec.mpi_args");
  CHECK_OK(hi_mpi_vdec_stop_recv_stream(0));
  CHECK_OK(hi_mpi_vdec_destroy_chn(0));
  CHECK_RULE(hi_mpi_vdec_destroy_chn(0), static_cast<hi_s32>(HI_ERR_VDEC_UNEXIST), "vdec.mpi_args");
  CHECK_OK(hi_mpi_sys_exit());
}

TEST(vdec_v2, not_on_the_310) {
  CHECK_OK(testing_sim::open_device());  // the default profile: ascend310
  CHECK_RULE(hi_mpi_sys_init(), static_cast<hi_s32>(HI_ERR_VDEC_NOT_SUPPORT),
             "vdec.v2_unsupported");
}
