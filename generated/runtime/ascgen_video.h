// ascgen_video.h: a video program's mode of the run (ascgen_run.h): each worker is one camera
// stream; its feeder thread sends the stream's access units to its VDEC channel at their
// presentation time (pace realtime) or as fast as the pictures free up (asap), a late frame
// dropped (not sent, nor the stream's frames after it until the next key frame, which refers to
// no dropped one: the decoder never decodes what nobody reads) or queued; each decoded picture
// then goes through the pipeline's next steps from the decoder's callback (ascgen_layouts.h's
// per_stage steps and batch callback). Per stream it counts arrived,
// decoded, late, dropped and skipped frames and the latency from a frame's arrival to its
// result; --require-fps turns a stream that missed its fps or dropped a frame into exit 1.
// The decoder's API (V1 aclvdec*, V2 hi_mpi_vdec_*) lives in templates/stages/vdec.j2.
// Emitted verbatim by ascgen; hand-written, reviewed once.
#ifndef ASCGEN_VIDEO_H_
#define ASCGEN_VIDEO_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <cinttypes>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ascgen_frames.h"
#include "ascgen_layouts.h"
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

// ---------------------------------------------------------------- the feeder

// The stream's clip: its access units and its copy in DVPP memory (uploaded once, read by every
// send of it).
struct Clip {
  const Input* input = nullptr;
  std::vector<Unit> units;
  uint8_t* device = nullptr;
};

inline void sleep_until(double t) {
  const double wait = t - now_s();
  if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
}

// Batches that must be complete before frame f may be decoded: its batch slot's previous batch,
// and the previous frame of its picture slot (read by the next step of that frame's batch).
template <class W>
int64_t batches_before(const W& t, int64_t f) {
  const int64_t batch = run_state().info->batch;
  const int64_t slots = t.video_slots();
  const int64_t by_batch = f / batch - t.batch_slots() + 1;
  const int64_t by_picture = f >= slots ? (f - slots) / batch + 1 : 0;
  return std::max(by_batch, by_picture);
}

// How long a stream's sends may stay at the decoder with none coming back before the stream is
// given up (device time, s): a fixed bound. A working decoder answers each frame within its
// decode time: ~8 ms for a 4K frame at the 310's documented 120 frames/s, ~0.5 s with 64 such
// streams sharing it, so 5 s is ten times that load. A decoder silent that long keeps sends it
// will not answer (a field-coded stream on the simulator's V2 channel: docs/video.md).
constexpr int kAnswerBoundS = 5;
// The result code of a frame the program gave up on because its stream's decoder stopped
// answering (not a decoder's code: the report's first_failure names it).
constexpr uint32_t kNoAnswer = 0xFFFFFFFEu;

// A stream its decoder stopped answering: one line on stderr (stream, which frame, what
// happened), `frames` failed (its frames_failed: the run stops and exits 1 unless
// --on-decode-error skip, the report's first_failure naming its input and `code`), and the stream
// ends: nothing waits for the sends the decoder keeps.
template <class W>
void stream_stuck(W& t, const std::string& what, int64_t frames, bool measured, uint32_t code) {
  Run& run = run_state();
  std::fprintf(stderr, "%s: stream %d %s; counted as failed, the stream ends\n", run.info->name,
               t.id, what.c_str());
  if (measured) t.video.counts.failed += frames;
  const std::vector<Input>& inputs = *run.inputs;
  frame_failed(run, inputs[static_cast<size_t>(t.id) % inputs.size()].name, code,
               "stream " + std::to_string(t.id) + " " + what);
  t.video.abort();
}

// Until the batches frame f needs are done (true), or the stream's sends have had no answer for
// kAnswerBoundS (false).
template <class W>
bool wait_for_slot(W& t, int64_t need) {
  while (!t.completions.wait_done_for(need, 100))
    if (t.video.stalled(kAnswerBoundS * time_scale())) return false;
  return true;
}

// Worker t's stream, until the run stops (or the file ends, without loop). A frame arrives at its
// time (realtime) or when the last one was sent (asap); it is late when it waits for a picture
// slot beyond its frame period, dropped (with drop_late) when none is free at its time.
template <class W>
void feed(W& t, const Clip& clip, const Config& cfg) {
  Run& run = run_state();
  Stream& v = t.video;
  const double period = time_scale() / cfg.fps;
  const double start = now_s();
  int64_t f = t.next_frame, sends = 0;
  bool resync = false;  // dropping until the next key frame
  size_t unit = 0;
  for (int64_t k = 0;; ++k, ++unit) {
    if (unit == clip.units.size()) {
      if (!cfg.loop) break;
      unit = 0;
    }
    const Unit& u = clip.units[unit];
    auto stopped = [&] { return run.stop && (!cfg.whole_groups || u.key || v.aborted()); };
    if (stopped() || v.aborted()) break;  // aborted: the run failed, or the stream was given up
    double arrival = now_s();
    if (cfg.realtime) {
      arrival = start + static_cast<double>(k) * period;
      sleep_until(arrival);
    }
    const int64_t need = batches_before(t, f);
    const bool free = t.completions.done_count() >= need;
    if (!free && cfg.realtime && cfg.drop_late) resync = true;
    if (resync && free && u.key) resync = false;
    const bool counted = measured(arrival);
    if (counted) ++v.counts.arrived;
    const bool waited = free || resync || wait_for_slot(t, need);
    if (!waited || (resync && v.stalled(kAnswerBoundS * time_scale()))) {
      stream_stuck(t,
                   "frame " + std::to_string(f) +
                       ": no picture slot: the stream's sends have had no answer from VDEC for " +
                       std::to_string(kAnswerBoundS) + " s (device time)",
                   1, counted, kNoAnswer);
      break;
    }
    if (resync) {
      if (counted) ++v.counts.dropped;
      continue;
    }
    if (stopped() || v.aborted()) break;
    Send& send = v.next(sends++);
    send.worker = &t;
    send.f = f++;
    send.arrival = arrival;
    send.measured = counted;
    if (counted && cfg.realtime && now_s() - arrival > period) ++v.counts.late;
    t.video_send(clip.device + u.offset, u.size, send);
  }
  t.next_frame = f;
}

// ---------------------------------------------------------------- the mode

template <class W>
class VideoMode : public FrameMode<W, PerStageLayout> {
 public:
  VideoMode(const Config& cfg, Cleanup& cleanup) : cfg_(cfg), cleanup_(cleanup) {}

  void check_flags(const Options& opt) {
    if (opt.load_given)
      throw BadFlags(
          "--clients, --rate and --trace load a server: a spec with source: {kind: requests}");
    if (!opt.only_stage.empty())
      throw BadFlags(
          "--only-stage measures a stage alone; a video program's frames come from VDEC");
    if (opt.verify && !kHostDecoder)
      throw BadFlags(
          "--verify needs the host decoder: rebuild with libavcodec (Debian: apt-get install "
          "libavcodec-dev)");
    if (opt.verify) {  // every frame decoded, in order, to compare
      cfg_.drop_late = false;
      cfg_.whole_groups = true;
    }
    require_fps_ = opt.require_fps;
  }
  // The report thread runs the batch callbacks and V1's VDEC callbacks; a decode-only V2
  // program has neither.
  bool callbacks() const { return !decode_only<W>() || W::kVdecCallbacks; }
  void adopt(std::vector<std::unique_ptr<W>>& workers) {
    workers_ = &workers;
    FrameMode<W, PerStageLayout>::adopt(workers);
  }
  void abort() {
    if (workers_ == nullptr) return;
    for (auto& t : *workers_) t->video.abort();
  }
  // --verify: each file decoded once on the host (libavcodec), the reference of its streams.
  void reference(const std::vector<Input>& inputs) {
    // A frame's output is its own, not its input's: what the batch completions compare with a
    // per-input reference (run.verify) is off; the pictures are compared as they arrive.
    run_state().verify = false;
    run_state().expected.assign(inputs.size(), {});
    const bool h265 = std::string(cfg_.codec) == "h265";
    for (const Input& in : inputs) {
      std::vector<std::pair<size_t, size_t>> units;
      for (const Unit& u : access_units(in.bytes, h265)) units.emplace_back(u.offset, u.size);
      references_.push_back(host_decode(in.name, in.bytes, units, h265));
      if (references_.back().y.empty())
        throw std::runtime_error("verify: the host decodes no picture of '" + in.name + "'");
    }
    for (auto& t : *workers_) {
      t->video.reference = &references_[static_cast<size_t>(t->id) % references_.size()];
      t->video.host_y.assign(t->video_stride() * static_cast<size_t>(t->video.reference->height),
                             0);
      t->video.found.assign(t->video.reference->y.size(), {});
    }
  }
  // The clips in DVPP memory, each stream's channel (subscribing the report thread), the feeders.
  void start(aclrtContext context, const std::vector<Input>& inputs, const std::vector<int>& cpus) {
    run_state().expected.resize(inputs.size());  // the completions index it by input
    const bool h265 = std::string(cfg_.codec) == "h265";
    for (const Input& in : inputs) {
      Clip clip;
      clip.input = &in;
      clip.units = access_units(in.bytes, h265);
      void* data = nullptr;
      const DvppAllocator dvpp = dvpp_allocator();
      check(dvpp.alloc(&data, in.bytes.size()), "source", dvpp.alloc_name);
      cleanup_.add(dvpp.release_name, [data, dvpp] { return dvpp.release(data); });
      check(aclrtMemcpy(data, in.bytes.size(), in.bytes.data(), in.bytes.size(),
                        ACL_MEMCPY_HOST_TO_DEVICE),
            "source", "aclrtMemcpy");
      clip.device = static_cast<uint8_t*>(data);
      clips_.push_back(std::move(clip));
    }
    for (auto& t : *workers_) {
      t->video_open(run_state().report_thread, cleanup_);
      t->video.open = true;
    }
    // A decode-only program's report thread serves the channels alone: it runs once they
    // subscribed it (before, aclrtProcessReport would fail: ACL_FACTS 1.4, Callbacks).
    if (decode_only<W>() && W::kVdecCallbacks) run_state().reporter->start();
    for (auto& t : *workers_) {
      W* w = t.get();
      const Clip* clip = &clips_[static_cast<size_t>(w->id) % clips_.size()];
      threads_.emplace_back([this, w, clip, context, &cpus] {
        worker_thread(
            *w, context, cpus, [this, w, clip] { feed(*w, *clip, cfg_); }, [this] { abort(); });
      });
    }
  }
  // The feeders, then each stream's end: its send returns once every frame is decoded and every
  // callback has returned (so nothing is pending when the report thread stops).
  void join() {
    for (std::thread& th : threads_) th.join();
    for (auto& t : *workers_)
      if (t->video.open) t->video_end();
  }
  LatencyHistogram fill(Report& report) {
    LatencyHistogram latency = FrameMode<W, PerStageLayout>::fill(report);
    const double duration = report.duration_s;
    streams_held_ = 0;
    missed_.clear();
    std::vector<StreamReport> rows;
    for (const auto& t : *workers_) {
      const Counts& c = t->video.counts;
      StreamReport s{t->id,
                     t->measured_frames,
                     duration > 0 ? t->measured_frames / duration : 0.0,
                     c.arrived,
                     c.decoded,
                     c.late,
                     c.dropped,
                     c.skipped,
                     c.failed,
                     t->latency.percentile_ms(50),
                     t->latency.percentile_ms(99),
                     t->latency.max_ms()};
      // the stream kept up with its sends: pictures done, and sends that bring none (the first
      // field of each frame of a field-coded stream, whose fps counts fields)
      const double kept = duration > 0 ? s.fps + static_cast<double>(c.skipped) / duration : 0.0;
      s.held = kept * time_scale() >= cfg_.fps * (1 - kFpsTolerance) && s.dropped == 0;
      if (s.held)
        ++streams_held_;
      else
        missed_.push_back(s);
      rows.push_back(s);
    }
    // the frame mode's keys (the NUMA placement), then the video's
    report.more = [this, rows, frame_more = std::move(report.more)](Json& j) {
      if (frame_more) frame_more(j);
      j.key("video").open('{');
      j.key("fps_target").num(cfg_.fps).key("pace").str(cfg_.realtime ? "realtime" : "asap");
      j.key("late").str(cfg_.drop_late ? "drop" : "queue").key("codec").str(cfg_.codec);
      j.key("time_scale").num(time_scale());  // per-stream fps are the host's: x time_scale
      j.key("streams_held")
          .integer(streams_held_)
          .key("streams_total")
          .integer(static_cast<int64_t>(rows.size()));
      j.key("held").boolean(missed_.empty()).key("require_fps").boolean(require_fps_);
      j.key("per_stream").open('[');
      for (const StreamReport& s : rows) {
        j.open('{').key("stream").integer(s.id).key("fps").num(s.fps).key("frames").integer(
            s.frames);
        j.key("arrived").integer(s.arrived).key("decoded").integer(s.decoded).key("late").integer(
            s.late);
        j.key("dropped").integer(s.dropped).key("skipped").integer(s.skipped).key("failed").integer(
            s.failed);
        j.key("latency_ms")
            .open('{')
            .key("p50")
            .num(s.p50)
            .key("p99")
            .num(s.p99)
            .key("max")
            .num(s.max);
        j.close('}').key("held").boolean(s.held).close('}');
      }
      j.close(']').close('}');
      picture_results_json(j);
    };
    return latency;
  }
  // --verify: what the host stages found in each picture of each file, from the first stream
  // that plays it, as "results": [{input, picture, found}] (left out when they said nothing).
  void picture_results_json(Json& j) const {
    const std::vector<Input>& inputs = *run_state().inputs;
    bool open = false;
    for (size_t k = 0; k < inputs.size() && k < workers_->size(); ++k) {
      const std::vector<std::string>& found =
          (*workers_)[k]->video.found;  // stream k plays input k
      for (size_t n = 0; n < found.size(); ++n) {
        if (found[n].empty()) continue;
        if (!open) j.key("results").open('[');
        open = true;
        j.open('{')
            .key("input")
            .str(inputs[k].name)
            .key("picture")
            .integer(static_cast<int64_t>(n));
        j.key("found").raw(found[n]).close('}');
      }
    }
    if (open) j.close(']');
  }
  // --verify compares every decoded picture (a decode-only program returns nothing else).
  bool verifiable(const W&) const { return true; }
  // The answer where the reader looks first: one line on stderr, and with --require-fps a
  // stream that missed its fps or dropped a frame fails the run (exit 1).
  void after_report(const ProgramInfo& info) {
    const size_t total = workers_->size();
    int64_t skipped = 0;
    for (const auto& t : *workers_) skipped += t->video.counts.skipped;
    if (skipped > 0)
      std::fprintf(
          stderr,
          "%s: video: %" PRId64
          " frame(s) came back from VDEC with no picture, counted as skipped (not failed, "
          "not dropped): a field of an interlaced frame (result 0x20000) or a NULL output\n",
          info.name, skipped);
    if (missed_.empty()) {
      std::fprintf(stderr, "%s: video: all %zu stream(s) held %g fps, no frame dropped\n",
                   info.name, total, cfg_.fps);
      return;
    }
    std::fprintf(stderr, "%s: video: %zu of %zu stream(s) did NOT hold %g fps:", info.name,
                 missed_.size(), total, cfg_.fps);
    for (size_t k = 0; k < missed_.size() && k < 4; ++k)
      std::fprintf(stderr, " stream %d %.1f fps, %" PRId64 " late, %" PRId64 " dropped;",
                   missed_[k].id, missed_[k].fps * time_scale(), missed_[k].late,
                   missed_[k].dropped);
    const Run& run = run_state();  // a failed frame fails the run anyway: no "exit 0" then
    const bool failed = run.frames_failed > 0 && !run.skip_decode_errors;
    std::fprintf(stderr, "%s\n",
                 require_fps_ ? ""
                 : failed     ? " (--require-fps makes this a failure)"
                              : " (exit 0: --require-fps makes this a failure)");
    if (require_fps_) run_state().requirement_missed = static_cast<int64_t>(missed_.size());
  }

 private:
  struct StreamReport {
    int id;
    int64_t frames;
    double fps;
    int64_t arrived, decoded, late, dropped, skipped, failed;
    double p50, p99, max;
    bool held = false;
  };
  Config cfg_;
  Cleanup& cleanup_;
  bool require_fps_ = false;
  std::vector<std::unique_ptr<W>>* workers_ = nullptr;
  std::vector<Clip> clips_;
  std::vector<HostPictures> references_;
  std::vector<std::thread> threads_;
  int64_t streams_held_ = 0;
  std::vector<StreamReport> missed_;
};

// The whole program: one device, one worker per stream.
template <class W>
int video_main(int argc, char** argv, const ProgramInfo& info, const Config& cfg,
               const Options& defaults, const std::vector<StageInfo>& stages) {
  const Options opt = start_program(argc, argv, defaults);
  if (!opt.devices.empty() && opt.devices.find(',') != std::string::npos) {
    std::fprintf(stderr, "%s: a video program runs on one device (--devices N)\n", info.name);
    return 2;
  }
  return guarded(info, opt, [&](Cleanup& cleanup) {
    VideoMode<W> mode(cfg, cleanup);
    return run_program<W>(mode, info, opt, cleanup, stages);
  });
}

}  // namespace video
}  // namespace ascgen

#endif  // ASCGEN_VIDEO_H_
