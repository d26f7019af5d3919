// ascgen_vpc_v2.h: VPC through the V2 media API (hi_mpi_vpc_*: 310P, 910B, A3), for the programs
// whose video is V2 (a process never mixes V1 acldvpp* and V2 hi_mpi_* media calls: HA 900
// maintenref troubleshooting_0161). A channel per thread (hi_mpi_vpc_sys_create_chn, destroyed
// at teardown), a hi_vpc_pic_info per picture slot made at set-up, and a task per picture whose
// result the thread awaits (hi_mpi_vpc_get_process_result) before it submits the frame's next
// step: V2 has no stream to chain it by event. Buffers are the pools' (hi_mpi_dvpp_malloc once
// the V2 system is open: ascgen_video_v2.h). HIA 900 aclcppdevg_03_0637; HIA zh 80RC1alpha002
// aclcppdevg_03_0564 (310P strides 16 x 2).
// Emitted verbatim by ascgen into V2 video programs; hand-written, reviewed once.
#ifndef ASCGEN_VPC_V2_H_
#define ASCGEN_VPC_V2_H_

#include <cstdint>
#include <string>
#include <vector>

#include "acl/dvpp/hi_dvpp.h"
#include "ascgen_dvpp.h"

namespace ascgen {
namespace vpc2 {

// This thread's V2 VPC channel for pictures up to `largest`; destroyed at teardown.
inline hi_vpc_chn open_channel(const char* stage, const Picture& largest, Cleanup& cleanup) {
  hi_vpc_chn_attr attr{};
  attr.pic_width = largest.width;
  attr.pic_height = largest.height;
  hi_vpc_chn chn = 0;
  check(hi_mpi_vpc_sys_create_chn(&chn, &attr), stage, "hi_mpi_vpc_sys_create_chn");
  cleanup.add("hi_mpi_vpc_destroy_chn",
              [chn] { return static_cast<aclError>(hi_mpi_vpc_destroy_chn(chn)); });
  return chn;
}

// How long a thread waits for one task's result (ms; device time on the simulator): a 1080p
// picture takes VPC well under 10 ms, so 5 s is a VPC that stopped answering, the bound a video
// program gives every media answer (kAnswerBoundS, ascgen_video_feed.h). The documented timeout
// mode (milli_sec > 0: HA 800 aclpythondevg_01_0454) returns an error code instead of blocking for
// ever.
constexpr hi_s32 kTaskBoundMs = 5000;

// Awaits `task` of `chn`: its result, or an AclFailure naming the stage, the call and the bound
// (no result within kTaskBoundMs: the run fails, exit 3, instead of hanging).
inline void await(const char* stage, hi_vpc_chn chn, hi_u32 task) {
  const hi_s32 ret = hi_mpi_vpc_get_process_result(chn, task, kTaskBoundMs);
  if (ret != HI_SUCCESS)
    throw AclFailure(stage,
                     "hi_mpi_vpc_get_process_result (task " + std::to_string(task) +
                         ", awaited at most " + std::to_string(kTaskBoundMs) + " ms)",
                     static_cast<aclError>(ret));
}

// `picture` at item `item` of every slot of `pool` (items > 1: frames side by side in a batch
// slot), in the order slot * items + item: what ascgen::picture_descs describes for V1.
inline std::vector<hi_vpc_pic_info> pictures(const Pool& pool, int items, const Picture& picture) {
  std::vector<hi_vpc_pic_info> out;
  for (int slot = 0; slot < pool.slots(); ++slot) {
    for (int item = 0; item < items; ++item) {
      hi_vpc_pic_info p{};
      p.picture_address =
          static_cast<uint8_t*>(pool.slot(slot)) + static_cast<size_t>(item) * picture.bytes;
      p.picture_buffer_size = static_cast<hi_u32>(picture.bytes);
      p.picture_width = picture.width;
      p.picture_height = picture.height;
      p.picture_width_stride = picture.width_stride;
      p.picture_height_stride = picture.height_stride;
      p.picture_format = static_cast<hi_pixel_format>(picture.format);  // the same numbering
      out.push_back(p);
    }
  }
  return out;
}

// The crop [left, right] x [top, bottom] (inclusive, as the V1 ROI) of `in`, resized to the whole
// of `out`: one hi_mpi_vpc_crop_resize region.
inline hi_vpc_crop_resize_region crop_region(const hi_vpc_pic_info& out, uint32_t left,
                                             uint32_t right, uint32_t top, uint32_t bottom,
                                             hi_u32 interpolation) {
  hi_vpc_crop_resize_region r{};
  r.dest_pic_info = out;
  r.crop_region = {top, left, right - left + 1, bottom - top + 1};
  r.resize_info = {out.picture_width, out.picture_height, interpolation};
  return r;
}

// `source` whole, resized into [left, right] x [top, bottom] (inclusive, as the V1 paste ROI) of
// `out`, whose other pixels VPC leaves as they are: one hi_mpi_vpc_crop_resize_paste region.
inline hi_vpc_crop_resize_paste_region paste_region(const hi_vpc_pic_info& out,
                                                    const Picture& source, uint32_t left,
                                                    uint32_t right, uint32_t top, uint32_t bottom,
                                                    hi_u32 interpolation) {
  hi_vpc_crop_resize_paste_region r{};
  r.dest_pic_info = out;
  r.crop_region = {0, 0, source.width & ~1u, source.height & ~1u};  // YUV420SP: even
  r.resize_info = {right - left + 1, bottom - top + 1, interpolation};
  r.dest_top_offset = top;
  r.dest_left_offset = left;
  return r;
}

// Paints `pic` one colour (luma plane, then the interleaved chroma plane), synchronously: at
// set-up, for a canvas whose border no task writes afterwards.
inline void paint(const char* stage, const hi_vpc_pic_info& pic, int32_t luma, int32_t chroma) {
  auto* data = static_cast<uint8_t*>(pic.picture_address);
  const size_t luma_bytes =
      static_cast<size_t>(pic.picture_width_stride) * pic.picture_height_stride;
  const size_t chroma_bytes = pic.picture_buffer_size - luma_bytes;
  check(aclrtMemset(data, luma_bytes, luma, luma_bytes), stage, "aclrtMemset");
  check(aclrtMemset(data + luma_bytes, chroma_bytes, chroma, chroma_bytes), stage, "aclrtMemset");
}

}  // namespace vpc2
}  // namespace ascgen

#endif  // ASCGEN_VPC_V2_H_
