// ascgen_video_stream.h: one camera stream of a video program (ascgen_video.h): its access
// units (Annex-B), the state of its sends to the decoder (a ring of Send records, counts of
// arrived, decoded, late, dropped and skipped frames, the answers still due), and what a decoded
// picture does next (decoded(): the picture handed to the pipeline's steps, or its frame counted
// as skipped or failed). The decoder's API (V1 aclvdec*, V2 hi_mpi_vdec_*) lives in
// templates/stages/vdec.j2.
// Emitted verbatim by ascgen; hand-written, reviewed once.
#ifndef ASCGEN_VIDEO_STREAM_H_
#define ASCGEN_VIDEO_STREAM_H_

#include <array>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "ascgen_frames.h"
#include "ascgen_video_verify.h"

namespace ascgen {
namespace video {

// What main() sets from the spec's source.
struct Config {
  double fps = 30;
  bool loop = true;       // replay the file at its end
  bool realtime = true;   // send each frame at its presentation time (else as fast as it goes)
  bool drop_late = true;  // realtime: a frame with no free picture at its time is dropped
  const char* codec = "h264";
  // --verify: after the stop, the feeders go on to the next key frame, so that the pictures
  // decoded are the first ones of the file in display order (a B-frame sent last would leave
  // out a picture the host has)
  bool whole_groups = false;
};

// The steps of a decode-only program (a vdec stage alone): none; each picture is done, and its
// slot free again, when the decoder delivers it.
template <class W>
using NoSteps = std::array<StepFn<W>, 0>;

template <class W>
constexpr bool decode_only() {
  return std::size(W::kSteps) == 0;
}

// A stream misses its fps when it completes fewer than this share of it in the measured period.
constexpr double kFpsTolerance = 0.05;
// VDEC's result code for one field of an interlaced frame: no picture, normal (HA
// canncommercial/601 aclcppdevg_03_0208; ACL_FACTS 8).
constexpr uint32_t kFieldOnly = 0x20000;

// ---------------------------------------------------------------- Annex-B access units

// One access unit (a frame's NAL units): bytes [offset, offset + size) of the stream; key: an IDR
// (H.264) or IRAP (H.265) picture, which refers to no earlier one.
struct Unit {
  size_t offset = 0, size = 0;
  bool key = false;
};

// The access units of an Annex-B elementary stream (ITU-T H.264 7.4.1.2.3 and B.1, H.265
// 7.4.2.4.4): a unit starts at the start code of an access unit delimiter, parameter set or SEI
// that follows a picture's slices, or of a slice that begins a picture (first_mb_in_slice 0,
// first_slice_segment_in_pic_flag 1) after one; it ends where the next starts.
inline std::vector<Unit> access_units(const std::vector<uint8_t>& b, bool h265) {
  std::vector<Unit> out;
  const size_t n = b.size();
  size_t unit_start = 0;
  bool has_slice = false, key = false;
  for (size_t i = 0; i + 3 < n; ++i) {
    if (b[i] != 0 || b[i + 1] != 0 || b[i + 2] != 1) continue;
    const size_t code = i > 0 && b[i - 1] == 0 ? i - 1 : i;  // a 4-byte start code's first zero
    const size_t p = i + 3;                                  // the NAL unit header
    const int type = h265 ? (b[p] >> 1) & 0x3F : b[p] & 0x1F;
    const bool slice = h265 ? type <= 31 : type >= 1 && type <= 5;
    const size_t first_byte = p + (h265 ? 2 : 1);
    const bool first_slice = slice && first_byte < n && (b[first_byte] & 0x80) != 0;
    const bool prefix = h265
                            ? (type >= 32 && type <= 35) || type == 39 || (type >= 41 && type <= 44)
                            : (type >= 6 && type <= 9) || (type >= 14 && type <= 18);
    if (has_slice && (prefix || first_slice)) {
      out.push_back({unit_start, code - unit_start, key});
      unit_start = code;
      has_slice = key = false;
    }
    has_slice = has_slice || slice;
    key = key || (h265 ? type >= 16 && type <= 21 : type == 5);
    i = p;
  }
  if (has_slice) out.push_back({unit_start, n - unit_start, key});
  return out;
}

// The start-up check of an input: an Annex-B stream with at least one picture. Its pictures are
// the spec's size (VDEC writes no other into the stage's output pictures), which the stages
// after the decoder read as the input's size (a letterbox's crop and paste areas).
inline void inspect_stream(const char* stage, Input& in, bool h265, uint32_t width,
                           uint32_t height) {
  if (in.bytes.size() < 4 || in.bytes[0] != 0 || in.bytes[1] != 0)
    throw BadFlags(
        std::string(stage) + ": input '" + in.name +
        "' is not an Annex-B elementary stream (it does not open with a start code); "
        "extract the video stream: ffmpeg -i IN -c:v copy -bsf:v " +
        (h265 ? "hevc_mp4toannexb -f hevc OUT.h265" : "h264_mp4toannexb -f h264 OUT.h264"));
  if (access_units(in.bytes, h265).empty())
    throw BadFlags(std::string(stage) + ": input '" + in.name + "' holds no " +
                   (h265 ? "H.265" : "H.264") + " picture (is the codec right?)");
  in.width = width;
  in.height = height;
}

// ---------------------------------------------------------------- one stream's state

// One send in flight: the frame it decodes into, when the frame arrived, and the worker; the
// decoder hands it back to the callback (user data, or V2's pts).
struct Send {
  void* worker = nullptr;
  int64_t seq = 0;  // the stream's send count: its place in the ring
  int64_t f = 0;    // the pipeline frame (its picture slot and batch)
  double arrival = 0;
  bool measured = false;  // it arrived in the measured period
};

// What a stream's report says.
struct Counts {
  std::atomic<int64_t> arrived{0}, decoded{0}, late{0}, dropped{0}, skipped{0}, failed{0};
};

// A stream: the ring of its sends in flight (the feeder waits for an entry the callback has
// returned), each picture slot's result code, its counters.
class Stream {
 public:
  void prepare(int picture_slots) {
    status_.assign(static_cast<size_t>(picture_slots), 0);
    picture_.assign(static_cast<size_t>(picture_slots), -1);
    sends_.assign(static_cast<size_t>(picture_slots) + kExtraSends, Send{});
  }
  int ring_size() const { return static_cast<int>(sends_.size()); }
  // The next send's entry, once the callback has returned the send that used it before.
  Send& next(int64_t seq) {
    std::unique_lock<std::mutex> lock(mu_);
    if (returned_ >= issued_) answered_at_ = now_s();  // none outstanding: the wait starts now
    issued_ = seq + 1;
    const int64_t size = static_cast<int64_t>(sends_.size());
    while (returned_ <= seq - size && !aborted_) {
      if (!cv_.wait_for(lock, std::chrono::seconds(60),
                        [&] { return returned_ > seq - size || aborted_; }))
        throw std::runtime_error("no decoded frame for 60 s: the decoder or its callback is stuck");
    }
    Send& s = sends_[static_cast<size_t>(seq % size)];
    s.seq = seq;
    return s;
  }
  void returned() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++returned_;
      answered_at_ = now_s();
    }
    cv_.notify_all();
  }
  void abort() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      aborted_ = true;
    }
    cv_.notify_all();
  }
  bool aborted() {
    std::lock_guard<std::mutex> lock(mu_);
    return aborted_;
  }
  // Sends are at the decoder and none has come back for `seconds` (host time).
  bool stalled(double seconds) {
    std::lock_guard<std::mutex> lock(mu_);
    return returned_ < issued_ && now_s() - answered_at_ > seconds;
  }
  // The entry of send `seq` (V2: a fetched frame's pts).
  Send& sent(int64_t seq) {
    return sends_[static_cast<size_t>(seq % static_cast<int64_t>(sends_.size()))];
  }
  // Until every send has come back from the decoder (after its end of stream): false when some
  // have not and none has come back for `seconds` (the decoder keeps them).
  bool wait_all_returned(double seconds) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(100),
                         [&] { return returned_ >= issued_ || aborted_; }))
      if (now_s() - answered_at_ > seconds) return false;
    return true;
  }
  // Sends that have not come back from the decoder.
  int64_t unanswered() {
    std::lock_guard<std::mutex> lock(mu_);
    return issued_ - returned_;
  }

  void set_status(int64_t f, uint32_t code) { status_[slot(f)] = code; }
  uint32_t status(int64_t f) const { return status_[slot(f)]; }
  // --verify: the stream's picture number of frame f (-1: it got no picture)
  void set_picture(int64_t f, int64_t n) { picture_[slot(f)] = n; }
  int64_t picture(int64_t f) const { return picture_[slot(f)]; }
  Counts counts;
  bool open = false;  // its channel exists: the end of stream is sent at the end
  // --verify: the host's pictures of the stream's file, the pictures delivered so far, a host
  // copy of one Y plane
  const HostPictures* reference = nullptr;
  int64_t pictures = 0;
  std::vector<uint8_t> host_y;
  // --verify: what the host stages found in each picture of the file, as JSON ("": not yet)
  std::vector<std::string> found;

 private:
  static constexpr int kExtraSends = 4;  // sends whose callback has not yet run beside the slots
  size_t slot(int64_t f) const {
    return static_cast<size_t>(f % static_cast<int64_t>(status_.size()));
  }
  std::vector<uint32_t> status_;
  std::vector<int64_t> picture_;
  std::vector<Send> sends_;
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t returned_ = 0, issued_ = 0;
  double answered_at_ = 0;  // the last send back (or the first out after none was)
  bool aborted_ = false;
};

// How many times slower the simulated device runs than the host (ACL_SIM_TIME_SCALE; 1 on a
// real device): a camera's period is in the device's time, so the feeders pace at fps / scale
// of the host's clock and the report's rates are the host's (a bench multiplies them back).
inline double time_scale() {
#if ASCGEN_BACKEND_SIM
  const char* s = std::getenv("ACL_SIM_TIME_SCALE");
  const double v = s != nullptr ? std::atof(s) : 1.0;
  return v > 0 ? v : 1.0;
#else
  return 1.0;
#endif
}

inline bool measured(double t) {
  const Run& run = run_state();
  return t >= run.measure_start && t < run.measure_end;
}

// --verify: frame f's picture, the stream's n-th, against the host's n-th picture (Y plane);
// returns n.
template <class W>
int64_t verify_picture(W& t, int64_t f) {
  Stream& v = t.video;
  Run& run = run_state();
  check(aclrtMemcpy(v.host_y.data(), v.host_y.size(), t.video_picture(f), v.host_y.size(),
                    ACL_MEMCPY_DEVICE_TO_HOST),
        "verify", "aclrtMemcpy");
  const int64_t n = v.pictures++;
  if (same_y(*v.reference, static_cast<size_t>(n), v.host_y.data(), t.video_stride())) return n;
  if (run.mismatches.fetch_add(1) < 5)
    std::fprintf(stderr,
                 "verify: stream %d picture %" PRId64 " (frame %" PRId64
                 " of its file): Y plane differs from the host decode\n",
                 t.id, n, n % static_cast<int64_t>(v.reference->y.size()));
  return n;
}

// --verify: what the host stages found in each picture of batch b (W::describe), kept the first
// time the stream shows that picture of its file: the report's "results". Runs before the batch
// completes, while its picture slots still hold its frames.
template <class W>
void describe_batch(W& t, int64_t b) {
  Stream& v = t.video;
  const uint8_t* out = t.output(b);
  if (v.reference == nullptr || out == nullptr || v.found.empty()) return;
  const int batch = run_state().info->batch;
  for (int i = 0; i < batch; ++i) {
    const int64_t n = v.picture(b * batch + i);
    if (n < 0) continue;
    std::string& said = v.found[static_cast<size_t>(n % static_cast<int64_t>(v.found.size()))];
    if (said.empty()) t.describe(out + static_cast<size_t>(i) * t.output_item_bytes(b), b, i, said);
  }
}

// A video batch's completion: what its pictures showed (--verify), then the usual.
template <class W>
struct DescribedBatch {
  static void on_done(void* record) {
    auto* r = static_cast<BatchRecord*>(record);
    W& t = *static_cast<W*>(r->worker);
    current_run() = t.run;
    describe_batch(t, r->batch);
    BatchCallback<W>::on_done(record);
  }
};

// The decoder's result for `send`, on the report thread (V1's callback) or the fetch thread
// (V2): a picture (`picture`, result code `ret`) or none (a skipped frame). A picture goes on
// through the pipeline's steps, its batch's callback queued at the batch's end. A skipped frame's
// status is kNoPicture: its batch's completion neither counts it (frames, fps, latency) nor runs
// the host stages on it. At batch 1 it runs no step either, only its batch's completion (queued
// on the completion stream like any other, so the batches complete in order; the event rings of
// the steps stay paired, since every step skips the same batches). In a larger batch its frame
// steps still run on its slot's older picture: the batch's event chain is recorded by its last
// frame's and awaited by its first frame's steps.
template <class W>
void decoded(Send& send, bool picture, uint32_t ret) {
  W& t = *static_cast<W*>(send.worker);
  current_run() = t.run;
  Run& run = run_state();
  Counts& c = t.video.counts;
  try {
    {
      int64_t n = -1;  // the stream's picture number (--verify)
      const bool none = !picture || ret == kFieldOnly;
      if (none) {
        // VDEC gave no picture (a NULL output; the first field of an interlaced frame, whose
        // picture comes with the second): neither failed nor dropped nor done
        if (send.measured) ++c.skipped;
      } else if (ret == 0) {
        if (send.measured) ++c.decoded;
        if (t.video.reference != nullptr) n = verify_picture(t, send.f);
      } else if (send.measured) {
        ++c.failed;
      }
      t.video.set_status(send.f, none ? kNoPicture : ret);
      t.video.set_picture(send.f, n);
      const std::vector<Input>& inputs = *run.inputs;
      const Input& in = inputs[static_cast<size_t>(t.id) % inputs.size()];
      BatchRecord& r = record_frame(t, send.f, in);
      const Frame at = frame_at(send.f);
      r.submitted[static_cast<size_t>(at.i)] = send.arrival;  // latency from the frame's arrival
      const bool closes = at.i == run.info->batch - 1;
      if constexpr (decode_only<W>()) {
        if (closes) complete_batch(t, at.b, now_s(), inputs);  // the picture is back in its pool
      } else {
        if (!none || run.info->batch > 1) submit_steps(t, at, in, closes);
        if (closes) {
          check(aclrtLaunchCallback(DescribedBatch<W>::on_done, &r, ACL_CALLBACK_NO_BLOCK,
                                    t.completion_stream()),
                "completion", "aclrtLaunchCallback");
          ++run.callbacks_launched;
        }
      }
    }
  } catch (const std::exception& e) {
    run.error.set(e.what());
    run.stop = true;
    t.completions.abort();
  }
  t.video.returned();
}

}  // namespace video
}  // namespace ascgen

#endif  // ASCGEN_VIDEO_STREAM_H_
