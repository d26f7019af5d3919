// ascgen_video_v2.h: a stream's VDEC channel through the V2 media API (hi_mpi_vdec_*: 310P, 910B,
// A3; never mixed with V1's aclvdec* in one process): the system once per process, a channel
// per stream (frame mode, display order), sends that retry on HI_ERR_VDEC_BUF_FULL (back-
// pressure) within a bound (send_gave_up), and a fetch thread per stream that gets each decoded
// frame with a timeout, hands it on (ascgen_video.h's decoded) and releases it. No callback, no
// report thread (HA 900 acldevg aclcppdevg_000062; 03_0319; 850 03_0686; ACL_FACTS 8;
// Ascend/samples 7_dvpp/vdec_sample).
// Emitted verbatim by ascgen into V2 video programs; hand-written, reviewed once.
#ifndef ASCGEN_VIDEO_V2_H_
#define ASCGEN_VIDEO_V2_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "acl/dvpp/hi_dvpp.h"
#include "ascgen_dvpp.h"
#include "ascgen_video.h"

namespace ascgen {
namespace video {

constexpr hi_s32 kFetchTimeoutMs = 100;  // a fetch thread looks at its stop flag this often
constexpr hi_s32 kSendTimeoutMs = 100;   // a send waits this long for room, then retries
// A fixed bound, in device time: a send gives up after 50 waits of kSendTimeoutMs (5 s) with no
// room. A working channel frees a room each time the decoder finishes a frame (the fetch thread
// releases it at once): ~8 ms for a 4K frame at the 310's documented 120 frames/s, ~0.5 s with
// 64 such streams sharing the decoder, so 5 s is ten times that load; a channel full that long
// keeps frames it will not give back (a field-coded stream on the simulator: docs/video.md).
constexpr int kSendAttempts = 50;

inline void check_mpi(hi_s32 ret, const char* stage, const char* call) {
  check(static_cast<aclError>(ret), stage, call);
}

// hi_mpi_sys_init once per process (after aclrtSetDevice, before any DVPP buffer), hi_mpi_sys_exit
// at teardown; DVPP buffers from then on from hi_mpi_dvpp_malloc (ascgen_pools.h's allocator).
inline void open_v2_system(const char* stage, Cleanup& cleanup) {
  check_mpi(hi_mpi_sys_init(), stage, "hi_mpi_sys_init");
  cleanup.add("hi_mpi_sys_exit", [] { return static_cast<aclError>(hi_mpi_sys_exit()); });
  dvpp_allocator() = DvppAllocator{
      [](void** p, size_t n) { return static_cast<aclError>(hi_mpi_dvpp_malloc(0, p, n)); },
      [](void* p) { return static_cast<aclError>(hi_mpi_dvpp_free(p)); }, "hi_mpi_dvpp_malloc",
      "hi_mpi_dvpp_free"};
}

// Channel `chn` decoding `type` pictures of width x height into `frames` output pictures at most
// (the stream's picture slots), receiving; stopped and destroyed at teardown.
inline void open_v2_channel(const char* stage, hi_vdec_chn chn, hi_payload_type type,
                            uint32_t width, uint32_t height, uint32_t frames, Cleanup& cleanup) {
  hi_vdec_chn_attr attr{};
  attr.type = type;
  attr.mode = HI_VDEC_SEND_MODE_FRAME;
  attr.pic_width = width;
  attr.pic_height = height;
  attr.frame_buf_cnt = frames;
  attr.video_attr.ref_frame_num = 16;  // the most a level 5.1 stream refers to
  check_mpi(hi_mpi_vdec_create_chn(chn, &attr), stage, "hi_mpi_vdec_create_chn");
  cleanup.add("hi_mpi_vdec_destroy_chn",
              [chn] { return static_cast<aclError>(hi_mpi_vdec_destroy_chn(chn)); });
  check_mpi(hi_mpi_vdec_start_recv_stream(chn), stage, "hi_mpi_vdec_start_recv_stream");
  cleanup.add("hi_mpi_vdec_stop_recv_stream",
              [chn] { return static_cast<aclError>(hi_mpi_vdec_stop_recv_stream(chn)); });
}

// One access unit into `picture`, retried while the channel has no room (the fetch thread frees
// it); gives up when the stream is aborted. False: the channel had no room for kSendAttempts
// waits (send_gave_up says so and fails the frame).
inline bool send_v2(const char* stage, hi_vdec_chn chn, Stream& v, const uint8_t* data, size_t size,
                    uint64_t pts, hi_vdec_pic_info& picture) {
  hi_vdec_stream unit{};
  unit.addr = const_cast<uint8_t*>(data);
  unit.len = static_cast<hi_u32>(size);
  unit.pts = pts;
  unit.end_of_frame = HI_TRUE;
  unit.need_display = HI_TRUE;
  hi_s32 ret = HI_ERR_VDEC_BUF_FULL;
  for (int k = 0; k < kSendAttempts && ret == static_cast<hi_s32>(HI_ERR_VDEC_BUF_FULL); ++k) {
    if (v.aborted()) return true;  // the run stops: nothing to send
    ret = hi_mpi_vdec_send_stream(chn, &unit, &picture, kSendTimeoutMs);
  }
  if (ret == static_cast<hi_s32>(HI_ERR_VDEC_BUF_FULL)) return false;
  check_mpi(ret, stage, "hi_mpi_vdec_send_stream");
  return true;
}

// A send that found no room for kSendAttempts waits: the frame failed with HI_ERR_VDEC_BUF_FULL
// and the stream ends (stream_stuck: its channel keeps sends it will not answer).
template <class W>
void send_gave_up(W& t, const char* stage, const Send& send) {
  stream_stuck(t,
               "frame " + std::to_string(send.f) + ": " + stage +
                   ": hi_mpi_vdec_send_stream found the channel full (HI_ERR_VDEC_BUF_FULL) for " +
                   std::to_string(kSendAttempts * kSendTimeoutMs) + " ms (send " +
                   std::to_string(send.seq) + ")",
               1, send.measured, static_cast<uint32_t>(HI_ERR_VDEC_BUF_FULL));
}

// The output picture of each slot of `pool` for hi_mpi_vdec_send_stream (made at set-up).
inline std::vector<hi_vdec_pic_info> v2_pictures(const Pool& pool, const Picture& picture,
                                                 hi_pixel_format format) {
  std::vector<hi_vdec_pic_info> out(static_cast<size_t>(pool.slots()));
  for (int slot = 0; slot < pool.slots(); ++slot) {
    hi_vdec_pic_info& p = out[static_cast<size_t>(slot)];
    p.width = picture.width;
    p.height = picture.height;
    p.width_stride = picture.width_stride;
    p.height_stride = picture.height_stride;
    p.pixel_format = format;
    p.vir_addr = reinterpret_cast<hi_u64>(pool.slot(slot));
    p.buffer_size = static_cast<hi_u32>(picture.bytes);
  }
  return out;
}

// A stream's fetch thread: each decoded frame (display order) to `on_frame` with the send its pts
// names, then released; until `stop` once every send has come back. A failure stops the run.
template <class W>
class Fetcher {
 public:
  void start(W& t, const char* stage, hi_vdec_chn chn, aclrtContext context) {
    thread_ = std::thread([this, &t, stage, chn, context] { loop(t, stage, chn, context); });
  }
  // The end of stream (every frame it holds comes out), every send back, the thread joined. Sends
  // the decoder has not answered kAnswerBoundS after its last answer count as failed (it keeps
  // them: stream_stuck).
  void finish(W& t, const char* stage, hi_vdec_chn chn) {
    hi_vdec_stream eos{};
    eos.end_of_stream = HI_TRUE;
    hi_s32 ret = hi_mpi_vdec_send_stream(chn, &eos, nullptr, -1);
    const bool all = ret != HI_SUCCESS || t.video.wait_all_returned(kAnswerBoundS * time_scale());
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    check_mpi(ret, stage, "hi_mpi_vdec_send_stream (end of stream)");
    if (!all) {
      const int64_t n = t.video.unanswered();
      stream_stuck(t,
                   "at its end: " + std::to_string(n) + " send(s) had no answer from VDEC for " +
                       std::to_string(kAnswerBoundS) + " s (device time) after the end of stream",
                   n, true, kNoAnswer);
    }
  }
  ~Fetcher() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void loop(W& t, const char* stage, hi_vdec_chn chn, aclrtContext context) {
    current_run() = t.run;
    Run& run = run_state();
    try {
      check(aclrtSetCurrentContext(context), stage, "aclrtSetCurrentContext");
      while (!stop_) {
        hi_video_frame_info frame{};
        hi_vdec_stream unit{};
        const hi_s32 ret = hi_mpi_vdec_get_frame(chn, &frame, nullptr, &unit, kFetchTimeoutMs);
        if (ret == static_cast<hi_s32>(HI_ERR_VDEC_BUF_EMPTY)) continue;
        check_mpi(ret, stage, "hi_mpi_vdec_get_frame");
        decoded<W>(t.video.sent(static_cast<int64_t>(unit.pts)), true, 0);
        check_mpi(hi_mpi_vdec_release_frame(chn, &frame), stage, "hi_mpi_vdec_release_frame");
      }
    } catch (const std::exception& e) {
      run.error.set(e.what());
      run.stop = true;
      t.video.abort();
      t.completions.abort();
    }
  }
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace video
}  // namespace ascgen

#endif  // ASCGEN_VIDEO_V2_H_
