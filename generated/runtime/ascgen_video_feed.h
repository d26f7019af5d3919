// ascgen_video_feed.h: a video program's feeder (ascgen_video.h): per stream, a thread that sends
// the stream's access units to its decoder at their presentation time (pace realtime) or as fast
// as the pictures free up (asap), a late frame dropped (not sent, nor the stream's frames after it
// until the next key frame, which refers to no dropped one) or queued, and a stream whose decoder
// stops answering given up after a fixed bound.
// Emitted verbatim by ascgen; hand-written, reviewed once.
#ifndef ASCGEN_VIDEO_FEED_H_
#define ASCGEN_VIDEO_FEED_H_

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "ascgen_video_stream.h"

namespace ascgen {
namespace video {

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

}  // namespace video
}  // namespace ascgen

#endif  // ASCGEN_VIDEO_FEED_H_
