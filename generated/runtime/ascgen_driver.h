// ascgen_driver.h: the part of every generated program that is the same for every pipeline:
// inputs, the run's state, completing batches (verification, decode result codes, latency),
// the run-time budget check and the report thread's start and drain. The run every program
// shares is in ascgen_run.h; a frame program's mode of it in ascgen_frames.h (its stream layouts
// in ascgen_layouts.h), a server's in ascgen_serving.h. Emitted verbatim by ascgen.
//
// A generated main.cpp holds only its pipeline: a ProgramInfo, the pool specs, and a Worker
// (derived from WorkerOf<its shared resources>) with these members, which the driver calls
// (WorkerOf has those from output() on for a pipeline without such a stage):
//   void setup(const Setup& ctx, Cleanup&);          // streams, channels, pools, events, stages
//   static const StepFn<Worker> kSteps[];        // its steps in order, per-batch ones last
//   static const PoolOf<Worker> kPools[];        // its pools and event rings, which setup()
//   static const RingOf<Worker> kEventRings[];   // allocates (allocate_rings)
//   Step upload_step, ...;                       // the steps (defined below the Worker)
//   aclrtStream completion_stream() const;       // where a batch is complete
//   const uint8_t* output(int64_t b) const;      // batch b's result on the host, or nullptr
//   size_t output_item_bytes(int64_t b) const;   // one frame's share of it (at b's gear)
//   uint64_t postprocess(const uint8_t* item, int64_t b, int i);  // host stages on item i of
//                                                // batch b's result (item: its first output)
//   void describe(const uint8_t* item, int64_t b, int i, std::string& out) const;  // what they
//                                                // found there, as JSON ("": nothing to say)
//   uint32_t frame_status(int64_t f) const;      // frame f's decode result code (0: ok)
//   static void inspect_input(Input& in);        // start-up check of one input
#ifndef ASCGEN_DRIVER_H_
#define ASCGEN_DRIVER_H_

#include <algorithm>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "ascgen_completion.h"
#include "ascgen_inputs.h"
#include "ascgen_metrics.h"
#include "ascgen_options.h"
#include "ascgen_pools.h"
#include "ascgen_profile.h"
#include "ascgen_report.h"
#include "ascgen_windows.h"

// Bumped when the contract between generated main.cpp files and these headers changes.
#define ASCGEN_RUNTIME_ABI 10

namespace ascgen {

// ---------------------------------------------------------------- what the plan fixed

// kRawFiles: a server's requests of their own width (*.u8 files; ascgen_padding.h).
// kVideoFiles: Annex-B elementary streams (a file, or every file of a folder; ascgen_video.h).
enum class SourceKind { kJpegFiles, kTensor, kRawFiles, kVideoFiles };

// The device's limits and a worker's needs that do not depend on --depth.
struct DeviceBudget {
  int64_t max_events;
  int64_t max_streams;
  int64_t device_bytes;  // usable device memory
  int64_t dvpp_bytes;    // usable DVPP memory
};

struct ProgramInfo {
  const char* name;
  const char* profile;
  const char* streams;  // the layout's name, for the report
  int32_t device_id;
  aclrtMemAttr memory_attr;  // what aclrtGetMemInfo reports on this device: DDR or HBM
  int batch;
  int sync_every;
  SourceKind source;
  size_t max_input_bytes;  // largest input file
  size_t tensor_bytes;     // one generated input (tensor sources)
  SlotRule batch_slots;    // batches in flight per worker
  int streams_per_worker;
  int64_t model_bytes_per_worker;
  DeviceBudget budget;
};

// ---------------------------------------------------------------- inputs and records

// Which frame a step works on: frame f of the worker, item i of its batch b.
struct Frame {
  int64_t f, b, i;
};

// One device step of the pipeline, a member function of the generated Worker, called with
// frame f of the worker, item i of its batch b, and its input; a Worker declares its steps in
// one line: `ascgen::Step upload_step, decode_step;`.
using Step = void(int64_t f, int64_t b, int64_t i, const Input& in);

// A step in W::kSteps; per_batch: it runs once per batch, after the batch's last frame.
template <class W>
struct StepFn {
  Step W::* run;
  bool per_batch;
  const char* stage;  // the stage it belongs to
};

// What a worker's set-up needs besides its own plan.
struct Setup {
  int id;
  int window;       // frames in flight that size the pools: --depth, or the sync window
  int batch_slots;  // batches in flight
  const std::vector<Input>& inputs;
  const std::string& model_path;
};

// Each batch slot remembers when its frames were submitted and which inputs they carry.
struct BatchRecord {
  void* worker = nullptr;
  int64_t batch = 0;
  std::vector<double> submitted;  // seconds, one per frame
  std::vector<int> inputs;        // input index, one per frame
  // a graph's batch (ascgen_objects.h): when the host saw its frames' results, when their
  // detections were kept, and when its objects' results were back
  double completed = 0, detected = 0, objects_done = 0;
};

// The status of a frame that brought no picture (a video frame VDEC answered without one:
// ascgen_video.h): neither failed nor done; its batch's host stages, latency and counts leave it
// out.
constexpr uint32_t kNoPicture = 0xFFFFFFFFu;

// The generic half of a worker; the generated Worker adds its resources.
struct Run;

struct WorkerBase {
  int id = 0;
  Run* run = nullptr;                // its device's run (deploy: threads runs one per device)
  std::vector<BatchRecord> batches;  // per batch slot
  int64_t next_frame = 0;            // frames are numbered on, across the reference run and the run
  Completions completions;
  LatencyHistogram latency;
  int64_t measured_frames = 0;
  uint64_t checksum = 0;
  double cpu_s = 0;
  std::vector<void*> step_stamps;  // --profile: step k's range stamp (empty: not profiling)
  void* host_stamp = nullptr;      // --profile: the range of a frame's host stages
  // A graph program's worker has an object part (ascgen_objects.h): a batch completes when its
  // objects do, and the report thread also serves its object stream.
  static constexpr bool kObjects = false;
  int64_t batch_slots() const { return static_cast<int64_t>(batches.size()); }
};

// The resources every thread shares, of a pipeline that shares none.
struct NothingShared {
  void setup(const Setup&, Cleanup&) {}
};

// A generated Worker's base: the generic half, what every thread shares (Shared, set up once
// before the workers), and the members of a pipeline without the stage that would define them
// (nothing returns to the host, no host stage, no decode result code, no start-up check of the
// inputs); a Worker with such a stage defines its own, which hide these.
template <typename S>
struct WorkerOf : WorkerBase {
  using Shared = S;
  Shared* shared = nullptr;
  const uint8_t* output(int64_t) const { return nullptr; }
  size_t output_item_bytes(int64_t) const { return 0; }
  uint64_t postprocess(const uint8_t*, int64_t, int) const { return 0; }
  void describe(const uint8_t*, int64_t, int, std::string&) const {}
  uint32_t frame_status(int64_t) const { return 0; }
  static void inspect_input(Input&) {}
};

// State shared by the workers, the report thread and main.
struct Run {
  const ProgramInfo* info = nullptr;
  std::atomic<bool> stop{false};
  double measure_start = 0;  // frames completing before this are warm-up
  double measure_end = 1e300;
  int64_t frame_limit = 0;            // --frames
  std::atomic<int64_t> completed{0};  // measured frames, all workers
  bool verify = false;
  bool skip_decode_errors = false;
  std::string only_stage;  // --only-stage: the stage measured alone ("" = every stage)
  bool recording = false;  // filling `expected` from a serial reference run
  std::vector<std::vector<uint8_t>> expected;  // per input: the output of one frame
  std::vector<std::string> results;  // per input: what the host stages found in it (W::describe)
  std::vector<std::vector<uint8_t>> expected_objects;  // a graph's: per input, its objects' scores
  std::atomic<int64_t> mismatches{0};
  std::atomic<int64_t> frames_failed{0};
  std::atomic<int64_t> callbacks_launched{0};  // batch callbacks queued (per_stage) ...
  std::atomic<int64_t> callbacks_run{0};       // ... and run by the report thread
  std::mutex failure_mu;
  std::string first_failure_input;
  int64_t first_failure_code = 0;
  std::string first_failure_why;  // what happened, when no decoder's code says it (else "")
  FirstError error;
  const std::vector<Input>* inputs = nullptr;  // for the completion callbacks
  WindowLatency windows;                       // p99 and max per second measured
  SharedCompletionRate rate;                   // the measured completions, for the QPS
  uint64_t report_thread = 0;      // the report thread's id (a VDEC channel's callbacks)
  int64_t requirement_missed = 0;  // --require-fps: streams that missed it (exit 1)
  // The report thread (a decode-only video program starts it once its channels subscribed it).
  ReportThread* reporter = nullptr;
};

// The calling thread's run: its device's (set on each thread of a device under deploy:
// threads), else the process's one run.
Run*& current_run();

Run& run_state();

// ---------------------------------------------------------------- completing a batch

// A frame whose decode failed: counted, never verified; the first one is named.
void frame_failed(Run& run, const std::string& input, uint32_t code, const std::string& why = {});

// --verify: what the host stages found in each input in the reference run (W::describe), as the
// report's "results": [{"input": name, "found": JSON}]; left out when they said nothing.
void results_json(Json& j, const Run& run, const std::vector<Input>& inputs);

// The host stages (W::postprocess) on item i of batch b's result (`item`: its first output; the
// worker finds the model's others by b and i); under --profile inside their range.
template <class W>
uint64_t host_stages(W& t, const uint8_t* item, int64_t b, int i) {
  if (t.host_stamp == nullptr) return t.postprocess(item, b, i);
  check(aclprofPush(t.host_stamp), "completion", "aclprofPush");
  const uint64_t folded = t.postprocess(item, b, i);
  check(aclprofPop(), "completion", "aclprofPop");
  return folded;
}

template <class W>
void finish_batch(W& t, int64_t b, double now);
namespace objects {
template <class W>
void submit_objects(W& t, int64_t b);  // ascgen_objects.h
template <class W>
void finish_objects(W& t, int64_t b, double now);  // ascgen_objects.h
}  // namespace objects

// Completes batch b of worker t: result codes, host stages, verification, latency. Runs on the
// report thread (per_stage) or after the window's stream sync (per_thread); `now` is when the
// host saw it complete.
template <class W>
void complete_batch(W& t, int64_t b, double now, const std::vector<Input>& inputs) {
  Run& run = run_state();
  const int batch = run.info->batch;
  BatchRecord& r = t.batches[static_cast<size_t>(b % t.batch_slots())];
  const uint8_t* out = t.output(b);
  const size_t item_bytes = t.output_item_bytes(b);
  for (int i = 0; i < batch; ++i) {
    const int input = r.inputs[static_cast<size_t>(i)];
    const uint32_t status = t.frame_status(b * batch + i);
    if (status == kNoPicture) continue;
    if (status != 0) {
      frame_failed(run, inputs[static_cast<size_t>(input)].name, status);
      continue;
    }
    if (out == nullptr) continue;
    const uint8_t* item = out + static_cast<size_t>(i) * item_bytes;
    t.checksum += host_stages(t, item, b, i);
    std::vector<uint8_t>& expected = run.expected[static_cast<size_t>(input)];
    if (run.recording) {
      expected.assign(item, item + item_bytes);
      if (static_cast<size_t>(input) < run.results.size()) {  // each item of its batch: the last
        std::string& said = run.results[static_cast<size_t>(input)];
        said.clear();
        t.describe(item, b, i, said);
      }
    } else if (run.verify && !same_bytes(expected, item, item_bytes)) {
      if (run.mismatches.fetch_add(1) < 5)
        std::fprintf(stderr,
                     "verify: worker %d frame %" PRId64
                     " (input '%s'): output differs from the reference\n",
                     t.id, b * batch + i, inputs[static_cast<size_t>(input)].name.c_str());
    }
  }
  if constexpr (W::kObjects) {
    r.completed = now;
    try {
      t.stage_marks.read(b);             // the frame part's stages (ascgen_breakdown.h)
    } catch (const std::exception& e) {  // on the report thread: the run fails, the batch goes on
      run.error.set(e.what());
      run.stop = true;
    }
    r.detected = now_s();
    objects::submit_objects(t, b);  // the batch completes when its objects do (finish_batch)
    return;
  }
  finish_batch(t, b, now);
}

// The tail of batch b's completion: its frames' latency, and the batch done.
template <class W>
void finish_batch(W& t, int64_t b, double now) {
  Run& run = run_state();
  const int batch = run.info->batch;
  BatchRecord& r = t.batches[static_cast<size_t>(b % t.batch_slots())];
  if (!run.recording && now >= run.measure_start && now < run.measure_end) {
    double us[64];  // the batch's latencies, 64 at a time into the run's second windows
    int n = 0, frames = 0;
    for (int i = 0; i < batch; ++i) {
      if (t.frame_status(b * batch + i) == kNoPicture) continue;  // not a frame done
      us[n] = (now - r.submitted[static_cast<size_t>(i)]) * 1e6;
      t.latency.record(us[n]);
      if constexpr (W::kObjects) t.objects.breakdown(r, i, now, t.stage_marks);
      ++frames;
      if (++n == 64) {
        run.windows.record(now - run.measure_start, us, n);
        n = 0;
      }
    }
    if (n > 0) run.windows.record(now - run.measure_start, us, n);
    t.measured_frames += frames;
    if (frames > 0) run.rate.add(now, frames);
    if (run.completed.fetch_add(frames) + frames >= run.frame_limit && run.frame_limit > 0)
      run.stop = true;
  }
  t.completions.done(b);
}

// The input frame f of worker t carries: frames cycle through the inputs, each worker
// starting at its own.
template <class W>
const Input& input_of(const W& t, int64_t f, const std::vector<Input>& inputs) {
  return inputs[static_cast<size_t>((f + t.id) % static_cast<int64_t>(inputs.size()))];
}

Frame frame_at(int64_t f);

// The input item i of worker t's batch b carries.
template <class W>
const Input& input_in_batch(const W& t, int64_t b, int i) {
  const BatchRecord& r = t.batches[static_cast<size_t>(b % t.batch_slots())];
  return (*t.run->inputs)[static_cast<size_t>(r.inputs[static_cast<size_t>(i)])];
}

// Frame f's bookkeeping in its batch record: when it was submitted, which input it carries.
template <class W>
BatchRecord& record_frame(W& t, int64_t f, const Input& in) {
  const Frame at = frame_at(f);
  BatchRecord& r = t.batches[static_cast<size_t>(at.b % t.batch_slots())];
  r.batch = at.b;
  r.submitted[static_cast<size_t>(at.i)] = now_s();
  r.inputs[static_cast<size_t>(at.i)] = in.index;
  return r;
}

// Step k of W::kSteps for frame `at`; under --profile inside a range named after its stage.
template <class W>
void run_step(W& t, size_t k, const Frame& at, const Input& in) {
  const StepFn<W>& step = W::kSteps[k];
  void* range = t.step_stamps.empty() ? nullptr : t.step_stamps[k];
  if (range != nullptr) check(aclprofPush(range), step.stage, "aclprofPush");
  (t.*step.run)(at.f, at.b, at.i, in);
  if (range != nullptr) check(aclprofPop(), step.stage, "aclprofPop");
}

// The stage of each step of W::kSteps, in order (the names of their profile ranges).
template <class W>
std::vector<const char*> step_stages() {
  std::vector<const char*> stages;
  for (const StepFn<W>& step : W::kSteps) stages.push_back(step.stage);
  return stages;
}

// A frame through every step, in order; the steps that run once per batch (the tail of
// W::kSteps) only when it closes its batch.
template <class W>
void submit_steps(W& t, const Frame& at, const Input& in, bool closes_batch) {
  for (size_t k = 0; k < std::size(W::kSteps); ++k) {
    if (W::kSteps[k].per_batch && !closes_batch) return;
    run_step(t, k, at, in);
  }
}

// Records frame f, then submits it through every step.
template <class W>
BatchRecord& submit_frame(W& t, int64_t f, const Input& in) {
  BatchRecord& r = record_frame(t, f, in);
  const Frame at = frame_at(f);
  submit_steps(t, at, in, at.i == run_state().info->batch - 1);
  return r;
}

// ---------------------------------------------------------------- start-up

std::vector<Input> prepare_inputs(const ProgramInfo& info, const std::string& path,
                                  void (*inspect)(Input&));

// Run-time flags that cannot work: the device cannot hold them, or they contradict the program
// (exit 2, as a bad flag).
struct BadFlags : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The run-time flags against the device, before anything is created: one clear error. `worker`:
// what one worker's pools and rings need (worker_needs), besides its model.
void check_budget(const ProgramInfo& info, const WorkerNeeds& worker, int threads, int window);

// ---------------------------------------------------------------- shared by run and serve

// The report's head: the program and how it was run.
Report report_head(const ProgramInfo& info, const Options& opt);

// AscendCL (when this run initialises it), the device and a context for this run's threads,
// each release registered so that teardown runs them in reverse order.
aclrtContext open_device(int32_t device, bool init_acl, Cleanup& cleanup);

// opt.threads workers, each with its batch records and its own streams, pools and events
// (W::setup), serving `run` beside the one `shared` instance.
template <class W>
std::vector<std::unique_ptr<W>> make_workers(const ProgramInfo& info, const Options& opt,
                                             const Setup& common, typename W::Shared& shared,
                                             Run& run, Cleanup& cleanup) {
  std::vector<std::unique_ptr<W>> workers;
  for (int w = 0; w < opt.threads; ++w) {
    workers.push_back(std::make_unique<W>());
    W& t = *workers.back();
    t.id = w;
    t.run = &run;
    t.shared = &shared;
    t.batches.resize(static_cast<size_t>(common.batch_slots));
    for (BatchRecord& r : t.batches) {
      r.worker = &t;
      r.submitted.assign(static_cast<size_t>(info.batch), 0.0);
      r.inputs.assign(static_cast<size_t>(info.batch), 0);
    }
    t.setup(Setup{w, common.window, common.batch_slots, common.inputs, common.model_path}, cleanup);
  }
  return workers;
}

// The measured period: after --warmup, for --duration or until --frames were measured.
void begin_measurement(Run& run, const Options& opt);

// What the report says of --verify: null (-1) when not asked or nothing to compare, true (1)
// only when every output matched and no frame failed to decode (a skipped failure, with
// --on-decode-error skip, is the user's choice: the rest verified).
int verified_state(const Run& run, const Options& opt, bool verifiable);

// The exit status once the report is written: 1 for a mismatch or a failed decode (named), 3
// when the run measured nothing (it has no result), 128 + the signal when one stopped it, else 0.
int run_status(const char* program, const Run& run, const Options& opt, int64_t frames);

// `run_it` (a run) inside a cleanup that releases everything in reverse order on every path;
// a failure is one line on stderr and the exit status: 2 for flags that cannot work, 3 else.
int guarded(const ProgramInfo& info, const Options& opt,
            const std::function<int(Cleanup&)>& run_it);

// A stage as the report counts it: in frames, or in batches for batch-level stages.
struct StageInfo {
  const char* name;
  bool per_batch;
};

// The rest of the report once the mode added its own figures (Mode::fill): decode failures,
// windows, --verify's verdict, each stage's count (per-batch stages: `batches`); then written.
void write_report(Report& report, const LatencyHistogram& latency, const Run& run,
                  const Options& opt, const std::vector<StageInfo>& stages, int64_t batches,
                  bool verifiable);

// ---------------------------------------------------------------- the report thread

// The stages no step of W runs (host stages such as topk, run as each batch completes), as
// one name: "top5", "boxes+labels"; "" when there are none.
template <class W>
std::string host_stage_names(const std::vector<StageInfo>& stages) {
  std::string names;
  const std::vector<const char*> steps = step_stages<W>();
  for (const StageInfo& s : stages) {
    if (std::none_of(steps.begin(), steps.end(),
                     [&](const char* x) { return std::strcmp(x, s.name) == 0; }))
      names += (names.empty() ? "" : "+") + std::string(s.name);
  }
  return names;
}

// Before the report thread stops (and its streams are unsubscribed, at cleanup): on every path,
// let the device drain and every queued callback run, so none is left pending (ACL_FACTS 1.4,
// Callbacks: unsubscribe at the end). Gives up after 60 s or when the report thread failed.
void finish_callbacks(ReportThread& reporter);

// finish_callbacks on every path out of the scope that declares it, an exception included,
// while what the callbacks touch (the workers) is still alive and before the streams are
// unsubscribed at cleanup (issue 27: an exception between start and drain left callbacks
// pending at aclrtUnSubscribeReport). finish() drains on the normal path.
class CallbackDrain {
 public:
  explicit CallbackDrain(ReportThread* reporter) : reporter_(reporter) {}
  ~CallbackDrain() { finish(); }
  CallbackDrain(const CallbackDrain&) = delete;
  CallbackDrain& operator=(const CallbackDrain&) = delete;
  void finish() {
    if (reporter_ != nullptr) finish_callbacks(*reporter_);
    reporter_ = nullptr;
  }

 private:
  ReportThread* reporter_;
};

// Completions are observed by one report thread, subscribed to every worker's last stream
// before it processes a report, and unsubscribed only after the drain (registered later, so it
// runs first at teardown).
template <class W>
std::unique_ptr<ReportThread> start_reporter(aclrtContext context,
                                             std::vector<std::unique_ptr<W>>& workers,
                                             Cleanup& cleanup,
                                             std::function<void(const std::string&)> on_error) {
  auto reporter = std::make_unique<ReportThread>(context, std::move(on_error));
  bool subscribed = false;
  for (auto& t : workers) {
    aclrtStream s = t->completion_stream();
    if (s == nullptr) continue;  // a decode-only video program: no stream of its own
    check(aclrtSubscribeReport(reporter->id(), s), "completion", "aclrtSubscribeReport");
    cleanup.add("aclrtUnSubscribeReport",
                [id = reporter->id(), s] { return aclrtUnSubscribeReport(id, s); });
    if constexpr (W::kObjects) {  // its object part's callbacks
      aclrtStream o = t->objects.stream();
      check(aclrtSubscribeReport(reporter->id(), o), "completion", "aclrtSubscribeReport");
      cleanup.add("aclrtUnSubscribeReport",
                  [id = reporter->id(), o] { return aclrtUnSubscribeReport(id, o); });
    }
    subscribed = true;
  }
  // Else what subscribes it starts it: the VDEC channels (aclvdecCreateChannel), once created.
  if (subscribed) reporter->start();
  return reporter;
}

}  // namespace ascgen

#endif  // ASCGEN_DRIVER_H_
