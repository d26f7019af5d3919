// ascgen_driver.h: the part of every generated program that is the same for every pipeline:
// inputs, the run's state, completing batches (verification, decode result codes, latency),
// the two stream layouts' submission loops, the reference run, the run-time budget check,
// run() and main(). Emitted verbatim by ascgen; hand-written, reviewed once.
//
// A generated main.cpp holds only its pipeline: a ProgramInfo, the pool specs, and a Worker
// (derived from WorkerBase) with these members, which the driver calls:
//   void setup(const Setup& ctx, Cleanup&);          // streams, channels, pools, events, stages
//   void submit(const Frame&, const Input& in);  // frame f through every step, in order
//   static const StepFn<Worker> kSteps[];        // the same steps, for step-by-step submission
//   aclrtStream completion_stream() const;       // where a batch is complete
//   const uint8_t* output(int64_t b) const;      // batch b's result on the host, or nullptr
//   size_t output_item_bytes() const;            // one frame's share of it
//   uint64_t postprocess(const uint8_t* item);   // host stages on one frame's result
//   uint32_t frame_status(int64_t f) const;      // frame f's decode result code (0: ok)
//   static void inspect_input(Input& in);        // start-up check of one input
#ifndef ASCGEN_DRIVER_H_
#define ASCGEN_DRIVER_H_

#include <memory>

#include "ascgen_devices.h"
#include "ascgen_numa.h"
#include "ascgen_support.h"
#include "ascgen_windows.h"

namespace ascgen {

// ---------------------------------------------------------------- what the plan fixed

// kRawFiles: a server's requests of their own width (*.u8 files; ascgen_padding.h).
enum class SourceKind { kJpegFiles, kTensor, kRawFiles };

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
  const PoolSpec* const* pools;  // every pool of a worker, up to a nullptr
  const PoolSpec* const*
      event_rings;  // per event ring, the pool whose slots it counts; nullptr ends
};

// ---------------------------------------------------------------- inputs and records

// One distinct input, prepared once at start-up: frames cycle through the inputs.
struct Input {
  int index = 0;
  std::string name;
  std::vector<uint8_t> bytes;
  uint32_t width = 0, height = 0;  // of the picture (JPEG inputs)
};

// The frame marker (SOFn) of a JPEG: 0xC0 baseline, 0xC1 extended sequential, 0xC2
// progressive, 0xC3 lossless, 0xC9.. arithmetic coding; 0 if there is none before the scan.
inline int jpeg_frame_marker(const std::vector<uint8_t>& b) {
  if (b.size() < 4 || b[0] != 0xFF || b[1] != 0xD8) return 0;
  size_t p = 2;
  while (p + 4 <= b.size() && b[p] == 0xFF) {
    const uint8_t m = b[p + 1];
    if (m == 0xFF) {  // fill byte
      ++p;
      continue;
    }
    if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) return m;
    if (m == 0xDA || m == 0xD9) return 0;  // the scan, or the end, before any frame header
    p += 2 + (static_cast<size_t>(b[p + 2]) << 8 | b[p + 3]);
  }
  return 0;
}

// Refuses at start-up, naming the input, what JPEGD cannot decode (ACL_FACTS 4: Huffman
// sequential JPEGs only, no progressive or arithmetic coding, no CMYK; the device's size
// range); fills in the picture's size, rounded down to even as JPEGD writes it.
inline void inspect_jpeg(const char* stage, Input& in, uint32_t min_w, uint32_t min_h,
                         uint32_t max_w, uint32_t max_h) {
  auto refuse = [&](const std::string& why) {
    throw std::runtime_error("stage '" + std::string(stage) + "': input '" + in.name + "' " + why);
  };
  int32_t components = 0;
  const aclError ret = acldvppJpegGetImageInfo(
      in.bytes.data(), static_cast<uint32_t>(in.bytes.size()), &in.width, &in.height, &components);
  if (ret != ACL_SUCCESS)
    refuse("cannot be read: acldvppJpegGetImageInfo failed with error " + std::to_string(ret));
  const int marker = jpeg_frame_marker(in.bytes);
  if (marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE)
    refuse("is a progressive JPEG; JPEGD decodes sequential (baseline) JPEGs only");
  if (marker != 0xC0 && marker != 0xC1)
    refuse("is not a Huffman sequential JPEG; JPEGD decodes no other kind");
  if (components == 4) refuse("is a CMYK JPEG; JPEGD decodes YUV and grey JPEGs only");
  const std::string size = std::to_string(in.width) + "x" + std::to_string(in.height);
  if (in.width < min_w || in.height < min_h)
    refuse("is " + size + ", below JPEGD's minimum " + std::to_string(min_w) + "x" +
           std::to_string(min_h));
  if (in.width > max_w || in.height > max_h)
    refuse("is " + size + ", larger than the spec's decode max " + std::to_string(max_w) + "x" +
           std::to_string(max_h));
  // JPEGD writes NV12, whose width and height are even: an odd picture loses its last column
  // or row (ACL_FACTS 4, JPEGD output w/h), and every later stage sees the even size.
  in.width &= ~1u;
  in.height &= ~1u;
}

// Which frame a step works on: frame f of the worker, item i of its batch b.
struct Frame {
  int64_t f, b, i;
};

// One device step of the pipeline, a member function of the generated Worker; per_batch: it
// runs once per batch, after the batch's last frame.
template <class W>
struct StepFn {
  void (W::*run)(const Frame&, const Input&);
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
};

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
  CompletionRate rate;  // its measured completions, for the QPS
  uint64_t checksum = 0;
  double cpu_s = 0;
  int64_t batch_slots() const { return static_cast<int64_t>(batches.size()); }
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
  std::atomic<int64_t> mismatches{0};
  std::atomic<int64_t> frames_failed{0};
  std::atomic<int64_t> callbacks_launched{0};  // batch callbacks queued (per_stage) ...
  std::atomic<int64_t> callbacks_run{0};       // ... and run by the report thread
  std::mutex failure_mu;
  std::string first_failure_input;
  int64_t first_failure_code = 0;
  FirstError error;
  const std::vector<Input>* inputs = nullptr;  // for the completion callbacks
  WindowLatency windows;                       // p99 and max per second measured
};

// The calling thread's run: its device's (set on each thread of a device under deploy:
// threads), else the process's one run.
inline Run*& current_run() {
  thread_local Run* run = nullptr;
  return run;
}

inline Run& run_state() {
  static Run run;
  Run* mine = current_run();
  return mine != nullptr ? *mine : run;
}

// ---------------------------------------------------------------- completing a batch

// A frame whose decode failed: counted, never verified; the first one is named.
inline void frame_failed(Run& run, const std::string& input, uint32_t code) {
  if (run.frames_failed.fetch_add(1) == 0) {
    std::lock_guard<std::mutex> lock(run.failure_mu);
    run.first_failure_input = input;
    run.first_failure_code = code;
  }
  if (!run.skip_decode_errors) run.stop = true;
}

// Completes batch b of worker t: result codes, host stages, verification, latency. Runs on the
// report thread (per_stage) or after the window's stream sync (per_thread); `now` is when the
// host saw it complete.
template <class W>
void complete_batch(W& t, int64_t b, double now, const std::vector<Input>& inputs) {
  Run& run = run_state();
  const int batch = run.info->batch;
  BatchRecord& r = t.batches[static_cast<size_t>(b % t.batch_slots())];
  const uint8_t* out = t.output(b);
  const size_t item_bytes = t.output_item_bytes();
  for (int i = 0; i < batch; ++i) {
    const int input = r.inputs[static_cast<size_t>(i)];
    const uint32_t status = t.frame_status(b * batch + i);
    if (status != 0) {
      frame_failed(run, inputs[static_cast<size_t>(input)].name, status);
      continue;
    }
    if (out == nullptr) continue;
    const uint8_t* item = out + static_cast<size_t>(i) * item_bytes;
    t.checksum += t.postprocess(item);
    std::vector<uint8_t>& expected = run.expected[static_cast<size_t>(input)];
    if (run.recording) {
      expected.assign(item, item + item_bytes);
    } else if (run.verify && !same_bytes(expected, item, item_bytes)) {
      if (run.mismatches.fetch_add(1) < 5)
        std::fprintf(stderr,
                     "verify: worker %d frame %" PRId64
                     " (input '%s'): output differs from the reference\n",
                     t.id, b * batch + i, inputs[static_cast<size_t>(input)].name.c_str());
    }
  }
  if (!run.recording && now >= run.measure_start && now < run.measure_end) {
    double us[64];  // the batch's latencies, 64 at a time into the run's second windows
    for (int i = 0; i < batch; ++i) {
      us[i % 64] = (now - r.submitted[static_cast<size_t>(i)]) * 1e6;
      t.latency.record(us[i % 64]);
      if (i % 64 == 63 || i == batch - 1)
        run.windows.record(now - run.measure_start, us, i % 64 + 1);
    }
    t.measured_frames += batch;
    t.rate.add(now, batch);
    if (run.completed.fetch_add(batch) + batch >= run.frame_limit && run.frame_limit > 0)
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

inline Frame frame_at(int64_t f) {
  const int batch = run_state().info->batch;
  return Frame{f, f / batch, f % batch};
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

// Records frame f, then submits it through every step.
template <class W>
BatchRecord& submit_frame(W& t, int64_t f, const Input& in) {
  BatchRecord& r = record_frame(t, f, in);
  t.submit(frame_at(f), in);
  return r;
}

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
    for (const StepFn<W>& step : W::kSteps) {
      if (!first_window && !only.empty() && only != step.stage) continue;
      for (int64_t f = first; f < first + frames; ++f) {
        const Frame at = frame_at(f);
        if (step.per_batch && at.i != run_state().info->batch - 1) continue;
        (t.*step.run)(at, input_of(t, f, inputs));
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
  // Synchronises the stream; the window's batches complete at once.
  template <class W>
  static void sync_and_complete(W& t, int64_t first, int frames, const std::vector<Input>& inputs) {
    const int batch = run_state().info->batch;
    check(aclrtSynchronizeStream(t.completion_stream()), "completion", "aclrtSynchronizeStream");
    const double synced = now_s();
    for (int64_t b = first / batch; b < (first + frames) / batch; ++b)
      complete_batch(t, b, synced, inputs);
  }
};

using PerThreadLayout = PerThread<ByFrame>;
using PerThreadByStepLayout = PerThread<ByStep>;

// ---------------------------------------------------------------- start-up

inline std::vector<Input> prepare_inputs(const ProgramInfo& info, const std::string& path,
                                         void (*inspect)(Input&)) {
  std::vector<Input> inputs;
  if (info.source == SourceKind::kTensor) {
    for (int k = 0; k < 4; ++k)
      inputs.push_back({k, "tensor" + std::to_string(k),
                        pattern_tensor(info.tensor_bytes, static_cast<uint64_t>(k)), 0, 0});
    return inputs;
  }
  const bool raw = info.source == SourceKind::kRawFiles;
  for (InputFile& file : load_inputs(path, info.max_input_bytes, raw ? ".u8" : nullptr)) {
    Input in{static_cast<int>(inputs.size()), file.name, std::move(file.bytes), 0, 0};
    inspect(in);
    inputs.push_back(std::move(in));
  }
  return inputs;
}

// Run-time flags that cannot work: the device cannot hold them, or they contradict the program
// (exit 2, as a bad flag).
struct BadFlags : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The run-time flags against the device, before anything is created: one clear error.
inline void check_budget(const ProgramInfo& info, int threads, int window) {
  const DeviceBudget& d = info.budget;
  int64_t events = 0, device = info.model_bytes_per_worker, dvpp = 0;
  for (const PoolSpec* const* ring = info.event_rings; *ring != nullptr; ++ring)
    events += (*ring)->rule.slots(window);
  for (const PoolSpec* const* pool = info.pools; *pool != nullptr; ++pool) {
    const PoolSpec& p = **pool;
    const int64_t bytes = static_cast<int64_t>(p.alloc_bytes) * p.rule.slots(window);
    if (p.memory == Memory::kDvpp) dvpp += bytes;
    if (p.memory != Memory::kHostPinned) device += bytes;
  }
  auto fail = [&](const std::string& what, int64_t need, int64_t limit) {
    throw BadFlags("--threads " + std::to_string(threads) + " with a window of " +
                   std::to_string(window) + " frames needs " + std::to_string(need) + " " + what +
                   ", the device has " + std::to_string(limit) + "; lower --threads or --depth");
  };
  if (events * threads > d.max_events) fail("events", events * threads, d.max_events);
  if (int64_t{info.streams_per_worker} * threads > d.max_streams)
    fail("streams", int64_t{info.streams_per_worker} * threads, d.max_streams);
  if (dvpp * threads > d.dvpp_bytes) fail("bytes of DVPP memory", dvpp * threads, d.dvpp_bytes);
  if (device * threads > d.device_bytes)
    fail("bytes of device memory", device * threads, d.device_bytes);
}

// ---------------------------------------------------------------- the run

template <class W, class Layout>
void run_worker(W& t, aclrtContext context, const std::vector<Input>& inputs,
                const std::vector<int>& cpus) {
  current_run() = t.run;
  Run& run = run_state();
  const double cpu0 = thread_cpu_s();
  try {
    check(aclrtSetCurrentContext(context), "worker", "aclrtSetCurrentContext");
    pin_current_thread(cpus);
    Layout::drive(t, inputs);
  } catch (const std::exception& e) {
    run.error.set(e.what());
    run.stop = true;
    t.completions.abort();
  }
  t.cpu_s = thread_cpu_s() - cpu0;
}

// Runs every input once through worker 0, serially, and keeps its output as the reference.
template <class W, class Layout>
void record_reference(W& t, const std::vector<Input>& inputs) {
  Run& run = run_state();
  run.recording = true;
  run.expected.assign(inputs.size(), {});
  for (const Input& in : inputs) Layout::reference(t, in, inputs);
  run.recording = false;
}

// A stage as the report counts it: in frames, or in batches for batch-level stages.
struct StageInfo {
  const char* name;
  bool per_batch;
};

// The workers' measurements merged into the report; returns their latency histogram.
template <class W>
LatencyHistogram fill_report(Report& report, const std::vector<std::unique_ptr<W>>& workers,
                             double report_cpu) {
  Run& run = run_state();
  LatencyHistogram latency;
  double rate_qps = 0;
  bool rated = true;
  for (const auto& t : workers) {
    latency.merge(t->latency);
    report.frames += t->measured_frames;
    report.host_cpu_s += t->cpu_s;
    rated = rated && t->rate.known();
    rate_qps += t->rate.qps();
  }
  if (rated) report.qps = rate_qps;  // else frames / duration
  report.host_cpu_s += report_cpu;
  report.frames_failed = run.frames_failed;
  report.first_failure_input = run.first_failure_input;
  report.first_failure_code = run.first_failure_code;
  return latency;
}

// Before the report thread stops (and its streams are unsubscribed, at cleanup): on every path,
// let the device drain and every queued callback run, so none is left pending (ACL_FACTS 1.4,
// Callbacks: unsubscribe at the end). Gives up after 60 s or when the report thread failed.
inline void finish_callbacks(ReportThread& reporter) {
  Run& run = run_state();
  aclError ret = aclrtSynchronizeDevice();
  if (ret != ACL_SUCCESS)
    run.error.set("completion: aclrtSynchronizeDevice failed with error " + std::to_string(ret));
  const double deadline = now_s() + 60.0;
  while (run.callbacks_run < run.callbacks_launched && !reporter.failed() && now_s() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  reporter.stop();
}

// One device's run. init_acl: this run initialises AscendCL (false under deploy: threads, where
// the process did once for every device).
// Completions are observed by one report thread, subscribed to every worker's last stream
// before it processes a report, and unsubscribed only after the drain (registered later, so it
// runs first at teardown).
template <class W>
std::unique_ptr<ReportThread> start_reporter(aclrtContext context,
                                             std::vector<std::unique_ptr<W>>& workers,
                                             Cleanup& cleanup,
                                             std::function<void(const std::string&)> on_error) {
  auto reporter = std::make_unique<ReportThread>(context, std::move(on_error));
  for (auto& t : workers) {
    aclrtStream s = t->completion_stream();
    check(aclrtSubscribeReport(reporter->id(), s), "completion", "aclrtSubscribeReport");
    cleanup.add("aclrtUnSubscribeReport",
                [id = reporter->id(), s] { return aclrtUnSubscribeReport(id, s); });
  }
  reporter->start();
  return reporter;
}

template <class W, class Layout>
int run(const ProgramInfo& info, const Options& opt, Cleanup& cleanup,
        const std::vector<StageInfo>& stages, bool init_acl = true) {
  Run& run = run_state();
  run.info = &info;
  if (opt.load_given)
    throw BadFlags(
        "--clients, --rate and --trace load a server: a spec with source: {kind: requests}");
  if (!opt.only_stage.empty()) {
    if (!Layout::kStageAlone)
      throw BadFlags(
          "--only-stage needs a per_thread program with submit: by_step (ascgen bench --stages "
          "builds one)");
    if (opt.verify)
      throw BadFlags(
          "--only-stage and --verify exclude each other: a stage alone verifies nothing");
    if (std::none_of(std::begin(W::kSteps), std::end(W::kSteps),
                     [&](const StepFn<W>& s) { return opt.only_stage == s.stage; }))
      throw BadFlags("--only-stage " + opt.only_stage + ": no device stage of that name");
    run.only_stage = opt.only_stage;
  }
  const int window = Layout::window(opt, info);
  check_budget(info, opt.threads, window);
  const int32_t device = opt.devices.empty() ? info.device_id : std::atoi(opt.devices.c_str());
  // host.numa: this device's threads on its NUMA node's CPUs; this thread first, so that the
  // pinned host memory it allocates below is first touched there.
  const NumaPlacement numa = numa_placement(opt, device, cpus_for(opt.pin));
  const std::vector<int>& cpus = numa.pinned;
  if (numa.node >= 0) pin_current_thread(cpus);
  const std::vector<Input> inputs = prepare_inputs(info, opt.input, W::inspect_input);
  run.inputs = &inputs;
  if (init_acl) {
    check(aclInit(nullptr), "setup", "aclInit");
    cleanup.add("aclFinalize", [] { return aclFinalize(); });
  }
  check(aclrtSetDevice(device), "setup", "aclrtSetDevice");
  cleanup.add("aclrtResetDevice", [device] { return aclrtResetDevice(device); });
  aclrtContext context = nullptr;
  check(aclrtCreateContext(&context, device), "setup", "aclrtCreateContext");
  cleanup.add("aclrtDestroyContext", [context] { return aclrtDestroyContext(context); });

  const int batch_slots = info.batch_slots.slots(window);
  typename W::Shared shared;  // what one copy serves every worker (outlives them: joined below)
  shared.setup(Setup{-1, window, batch_slots, inputs, opt.model}, cleanup);
  std::vector<std::unique_ptr<W>> workers;
  for (int w = 0; w < opt.threads; ++w) {
    workers.push_back(std::make_unique<W>());
    W& t = *workers.back();
    t.id = w;
    t.run = &run;
    t.shared = &shared;
    t.batches.resize(static_cast<size_t>(batch_slots));
    for (BatchRecord& r : t.batches) {
      r.worker = &t;
      r.submitted.assign(static_cast<size_t>(info.batch), 0.0);
      r.inputs.assign(static_cast<size_t>(info.batch), 0);
    }
    t.setup(Setup{w, window, batch_slots, inputs, opt.model}, cleanup);
  }
  std::unique_ptr<ReportThread> reporter;
  if (Layout::kCallbacks) {
    reporter =
        start_reporter(context, workers, cleanup, [&run, &workers](const std::string& error) {
          run.error.set(error);
          run.stop = true;
          for (auto& t : workers) t->completions.abort();
        });
  }
  // Runs first at teardown, on every path: nothing is released while the device still uses it.
  cleanup.add("aclrtSynchronizeDevice (drain before release)",
              [] { return aclrtSynchronizeDevice(); });
  size_t mem_free = 0, mem_total = 0;
  check(aclrtGetMemInfo(info.memory_attr, &mem_free, &mem_total), "setup", "aclrtGetMemInfo");

  run.verify = opt.verify;
  run.skip_decode_errors = opt.skip_decode_errors;
  if (opt.verify) record_reference<W, Layout>(*workers[0], inputs);

  Progress progress;
  run.frame_limit = opt.frames;
  const double t0 = now_s();
  run.measure_start = t0 + opt.warmup_s;
  run.measure_end = opt.frames > 0 ? 1e300 : run.measure_start + opt.duration_s;
  run.windows.reserve(opt.frames > 0 ? 0.0 : opt.duration_s);
  const double cpu0 = process_cpu_s();
  std::vector<std::thread> threads;
  for (auto& t : workers)
    threads.emplace_back(run_worker<W, Layout>, std::ref(*t), context, std::cref(inputs),
                         std::cref(cpus));
  progress.run_until(run.stop, run.completed, run.measure_start, run.measure_end);
  run.stop = true;
  for (std::thread& th : threads) th.join();
  const double elapsed = std::max(0.0, std::min(now_s(), run.measure_end) - run.measure_start);
  if (reporter) finish_callbacks(*reporter);
  run.error.rethrow();

  Report report;
  report.program = info.name;
  report.profile = info.profile;
  report.streams = info.streams;
  report.threads = opt.threads;
  report.depth = opt.depth;
  report.batch = info.batch;
  report.sync_every = info.sync_every;
  report.duration_s = elapsed;
  const LatencyHistogram latency = fill_report(report, workers, reporter ? reporter->cpu_s() : 0.0);
  report.process_cpu_s = process_cpu_s() - cpu0;
  report.device_memory_bytes = static_cast<int64_t>(mem_total - mem_free);
  report.interrupted = stop_signal() != 0;
  report.windows_qps = progress.windows();
  report.windows_latency = run.windows.p99_max_ms();
  const bool verifiable = workers[0]->output(0) != nullptr;
  report.verified = opt.verify && verifiable ? (run.mismatches == 0 ? 1 : 0) : -1;
  for (const StageInfo& s : stages)
    report.stages.push_back({s.name, s.per_batch ? report.frames / info.batch : report.frames});
  if (numa.node >= 0) report.more = [&numa](Json& j) { numa_json(j, numa); };
  report.write(latency, opt.json_path, opt.quiet, opt.error_path.empty());
  if (run.mismatches > 0) return 1;
  if (run.frames_failed > 0 && !opt.skip_decode_errors) {
    std::fprintf(stderr, "%s: decoding input '%s' failed with result code %" PRId64 "\n", info.name,
                 run.first_failure_input.c_str(), run.first_failure_code);
    return 1;
  }
  return report.interrupted ? 128 + stop_signal() : 0;
}

// One device's run inside a cleanup that releases everything in reverse order on every path.
template <class W, class Layout>
int run_one(const ProgramInfo& info, const Options& opt, const std::vector<StageInfo>& stages,
            bool init_acl = true) {
  Cleanup cleanup;
  int status = 0;
  std::string error;
  try {
    status = run<W, Layout>(info, opt, cleanup, stages, init_acl);
  } catch (const BadFlags& e) {
    error = e.what();
    status = 2;
  } catch (const std::exception& e) {
    error = e.what();
    status = 3;
  }
  if (!error.empty()) {
    // One of several devices names itself; its parent reads the line back for the report.
    const std::string who = opt.error_path.empty() ? "" : " device " + opt.devices;
    std::fprintf(stderr, "%s%s: %s\n", info.name, who.c_str(), error.c_str());
    if (!opt.error_path.empty()) std::ofstream(opt.error_path) << error << "\n";
  }
  if (cleanup.run() != 0 && status == 0) status = 3;
  return status;
}

// The whole program: options, then one device's run, or one process per device (--devices,
// or the spec's device ids) with their reports merged.
template <class W, class Layout>
int run_main(int argc, char** argv, const ProgramInfo& info, const Options& defaults,
             const std::vector<StageInfo>& stages) {
  Options opt = parse_options(argc, argv, defaults);
#if ASCGEN_BACKEND_SIM
  setenv("ACL_SIM_PROFILE", ASCGEN_SIM_PROFILE, 0);  // the device this program was planned for
#endif
  install_signal_handlers();
  warn_numa_balancing(info.name);
  if (opt.devices.empty()) return run_one<W, Layout>(info, opt, stages);
  const std::vector<int32_t> devices = parse_devices(info.name, opt.devices);
  if (devices.size() == 1) {
    opt.devices = std::to_string(devices[0]);
    return run_one<W, Layout>(info, opt, stages);
  }
  Report head;  // what the merged report says of the program
  head.program = info.name;
  head.profile = info.profile;
  head.streams = info.streams;
  head.threads = opt.threads;
  head.depth = opt.depth;
  head.batch = info.batch;
  head.sync_every = info.sync_every;
  try {
    if (opt.deploy == "threads")
      return run_device_threads<Run>(head, opt, devices, [&](const Options& one, Run& run) {
        current_run() = &run;
        return run_one<W, Layout>(info, one, stages, false);
      });
    return run_devices(head, opt, devices,
                       [&](const Options& one) { return run_one<W, Layout>(info, one, stages); });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", info.name, e.what());
    return 3;
  }
}

}  // namespace ascgen

#endif  // ASCGEN_DRIVER_H_
