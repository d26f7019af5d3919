// ascgen_layouts.h: the two stream layouts of a frame program (per_stage: a stream per stage,
// shared by the threads; per_thread: each thread its own streams, submitting frame by frame or
// step by step) as the policies that ascgen_frames.h's mode drives. Emitted verbatim by ascgen.
#ifndef ASCGEN_LAYOUTS_H_
#define ASCGEN_LAYOUTS_H_

#include "ascgen_driver.h"

namespace ascgen {

// ---------------------------------------------------------------- stream layouts

template <class W>
struct BatchCallback {
  static void on_done(void* record) {
    auto* r = static_cast<BatchRecord*>(record);
    W& t = *static_cast<W*>(r->worker);
    current_run() = t.run;  // the report thread serves one device
    complete_batch(t, r->batch, now_s(), *t.run->inputs);
    ++t.run->callbacks_run;
  }
};

// per_stage: one stream per stage, chained by events; a batch completes in a callback on the
// last stream, run by the report thread, so no worker blocks on a stream.
struct PerStageLayout {
  static constexpr bool kCallbacks = true;
  static constexpr bool kStageAlone = false;
  static int window(const Options& opt, const ProgramInfo&) { return opt.depth; }

  template <class W>
  static void submit(W& t, int64_t f, const Input& in) {
    BatchRecord& r = submit_frame(t, f, in);
    if ((f + 1) % run_state().info->batch != 0) return;
    check(aclrtLaunchCallback(BatchCallback<W>::on_done, &r, ACL_CALLBACK_NO_BLOCK,
                              t.completion_stream()),
          "completion", "aclrtLaunchCallback");
    ++run_state().callbacks_launched;
  }
  template <class W>
  static void drive(W& t, const std::vector<Input>& inputs) {
    Run& run = run_state();
    const int batch = run.info->batch;
    int64_t f = t.next_frame;
    for (;; ++f) {
      if (f % batch == 0) {
        if (run.stop) break;
        t.completions.wait_until_done(f / batch - t.batch_slots() + 1);  // a batch slot is free
      }
      submit(t, f, input_of(t, f, inputs));
    }
    t.completions.wait_until_done(f / batch);  // drain
    t.next_frame = f;
  }
  template <class W>
  static void reference(W& t, const Input& in, const std::vector<Input>&) {
    const int batch = run_state().info->batch;
    for (int k = 0; k < batch; ++k, ++t.next_frame) submit(t, t.next_frame, in);
    t.completions.wait_until_done(t.next_frame / batch);
  }
};

// How a per_thread worker submits a window of frames: each frame through every step ...
struct ByFrame {
  static constexpr bool kStageAlone = false;
  template <class W>
  static void submit_window(W& t, int64_t first, int frames, const std::vector<Input>& inputs,
                            bool) {
    for (int64_t f = first; f < first + frames; ++f) submit_frame(t, f, input_of(t, f, inputs));
  }
};

// ... or each step for every frame of the window (the study's hand-written program: all
// copies, then all decodes, ...); batch steps once per batch. With --only-stage, every window
// after a worker's first (which fills every slot of every pool) submits that stage's steps
// only: the stage alone, fed with prepared inputs.
struct ByStep {
  static constexpr bool kStageAlone = true;
  template <class W>
  static void submit_window(W& t, int64_t first, int frames, const std::vector<Input>& inputs,
                            bool first_window) {
    const std::string& only = run_state().only_stage;
    for (int64_t f = first; f < first + frames; ++f) record_frame(t, f, input_of(t, f, inputs));
    for (size_t k = 0; k < std::size(W::kSteps); ++k) {
      const StepFn<W>& step = W::kSteps[k];
      if (!first_window && !only.empty() && only != step.stage) continue;
      for (int64_t f = first; f < first + frames; ++f) {
        const Frame at = frame_at(f);
        if (step.per_batch && at.i != run_state().info->batch - 1) continue;
        run_step(t, k, at, input_of(t, f, inputs));
      }
    }
  }
};

// per_thread: one stream per worker carries every step; the worker submits a whole window,
// synchronises the stream, and completes the window's batches itself (the hand-written style).
template <class Submit>
struct PerThread {
  static constexpr bool kCallbacks = false;
  static constexpr bool kStageAlone = Submit::kStageAlone;
  static int window(const Options&, const ProgramInfo& info) { return info.sync_every; }

  template <class W>
  static void drive(W& t, const std::vector<Input>& inputs) {
    Run& run = run_state();
    const int64_t start = t.next_frame;
    int64_t f = start;
    while (!run.stop) {
      Submit::submit_window(t, f, run.info->sync_every, inputs, f == start);
      sync_and_complete(t, f, run.info->sync_every, inputs);
      f += run.info->sync_every;
    }
    t.next_frame = f;
  }
  // One batch of one input, frame by frame (in a single batch the order makes no difference).
  template <class W>
  static void reference(W& t, const Input& in, const std::vector<Input>& inputs) {
    const int batch = run_state().info->batch;
    for (int k = 0; k < batch; ++k, ++t.next_frame) submit_frame(t, t.next_frame, in);
    sync_and_complete(t, t.next_frame - batch, batch, inputs);
  }

 private:
  // Synchronises the stream; the window's batches complete at once. A graph's: their detections
  // submit their objects' work on the same stream (complete_batch), synchronised again, joined;
  // the window's batches complete at once when the last is joined.
  template <class W>
  static void sync_and_complete(W& t, int64_t first, int frames, const std::vector<Input>& inputs) {
    const int batch = run_state().info->batch;
    check(aclrtSynchronizeStream(t.completion_stream()), "completion", "aclrtSynchronizeStream");
    const double synced = now_s();
    for (int64_t b = first / batch; b < (first + frames) / batch; ++b)
      complete_batch(t, b, synced, inputs);
    if constexpr (W::kObjects) {
      check(aclrtSynchronizeStream(t.completion_stream()), "completion", "aclrtSynchronizeStream");
      const double back = now_s();
      for (int64_t b = first / batch; b < (first + frames) / batch; ++b)
        objects::finish_objects(t, b, back);
      const double joined = now_s();
      for (int64_t b = first / batch; b < (first + frames) / batch; ++b) finish_batch(t, b, joined);
    }
  }
};

using PerThreadLayout = PerThread<ByFrame>;
using PerThreadByStepLayout = PerThread<ByStep>;

}  // namespace ascgen

#endif  // ASCGEN_LAYOUTS_H_
