// ascgen_serving.h: the generated program as a server (a spec with source: {kind: requests}).
// Clients (a closed loop of --clients, an open loop at --rate, or a --trace replay; all in
// ascgen_loadgen.h) submit requests to the Batcher (ascgen_batcher.h: Triton's dynamic
// batching rule); each worker thread, when one of its batch slots is free, takes the next
// batch (wait_batch) and submits its requests through the pipeline's steps as the frames of
// one model batch; the batch completes in a callback on the report thread, which completes
// each request on its own (latency, verification), releases the executor slot and wakes the
// clients. A batch of fewer requests than the model's compiled batch runs at the smallest of the
// model's dynamic batch gears that holds it (the model stage sets it before the execute), or,
// without gears, padded to the compiled batch: the rest of the model's input holds whatever the
// slot held before, and its outputs are ignored.
// Emitted verbatim by ascgen; hand-written, reviewed once.
//
// Requests of their own width (source format raw, a model with hw_gears; ascgen_padding.h):
// each request's shape goes to the batcher, which merges them under the padding rule; the
// batch runs at the smallest height/width gear holding its padded shape; a response is
// verified against its input's output at that gear (the reference run runs every input at
// every gear that holds it).
//
// The generated Worker of a server has, besides the driver's members (ascgen_driver.h):
//   int64_t batch_last;  // the last item of the batch being submitted: its steps close it
//   std::vector<const Input*> batch_inputs;  // the batch's requests' inputs, in batch order
//   Shape batch_padded;  // the batch's padded request shape (rank 0: fixed shapes)
#ifndef ASCGEN_SERVING_H_
#define ASCGEN_SERVING_H_

#include <memory>

#include "ascgen_affinity.h"
#include "ascgen_driver.h"
#include "ascgen_loadgen.h"
#include "ascgen_padding.h"
#include "ascgen_signals.h"

namespace ascgen::serving {

// ---------------------------------------------------------------- requests

// One request in flight: what it carries and when it was sent, and how its client hears
// that it is done. Records are reused: a closed-loop client owns one, an open loop cycles
// through a ring of them.
struct PendingRequest {
  int input = 0;             // the input it carries
  int priority = -1;         // its priority level (-1: the batcher's default)
  int64_t sent_us = 0;       // when it was sent (open loop: its scheduled time)
  std::atomic<int> busy{0};  // open loop: in flight
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;

  void complete() {
    {
      std::lock_guard<std::mutex> lock(mu);
      done = true;
    }
    cv.notify_all();
    busy.store(0);
  }
  // Returns when complete() was called (or the run was aborted).
  void wait(const std::atomic<bool>& aborted) {
    std::unique_lock<std::mutex> lock(mu);
    while (!done && !aborted.load()) cv.wait_for(lock, std::chrono::milliseconds(50));
    done = false;
  }
};

// One batch taken from the batcher and submitted by a worker, per batch slot.
struct ServedBatch {
  void* worker = nullptr;
  int64_t batch = 0;         // the worker's batch number
  int64_t first_frame = 0;   // its requests are frames first_frame.. of the worker
  bool from_batcher = true;  // false: the reference run's batches
  Batch taken;
};

// The server's state, shared by the clients, the workers and the report thread.
struct Server {
  const SteadyClock clock;
  std::unique_ptr<Batcher> batcher;
  std::unique_ptr<ServingStats> stats;
  std::vector<std::unique_ptr<PendingRequest>> requests;  // by request id % size
  std::atomic<bool> aborted{false};
  int executed_batch = 1;        // the model's batch: what a padded batch runs at
  std::vector<int> gears;        // the model's dynamic batch gears, ascending (empty: padded)
  std::vector<HwGear> hw_gears;  // the model's height/width gears, ascending (empty: none)
  std::atomic<int64_t> measured_batches{0};
  std::atomic<int> workers_serving{0};  // the last worker to stop ends the run
  std::atomic<int64_t> measured_requests{0};
  LatencyHistogram latency;  // end to end, measured requests (report thread only)
  CompletionRate rate;       // of measured requests (report thread only)

  PendingRequest& request(uint64_t id) { return *requests[id % requests.size()]; }
  // The batch a model execution of `n` requests runs at.
  int executed(size_t n) const {
    for (int g : gears)
      if (static_cast<size_t>(g) >= n) return g;
    return executed_batch;
  }
  // The index of the smallest height/width gear holding a batch's padded shape (0: no gears).
  size_t hw_gear(const Shape& padded) const {
    return hw_gears.empty() ? 0 : smallest_hw_gear(hw_gears.data(), hw_gears.size(), padded);
  }
  // Reference outputs are kept per input and gear.
  size_t expected_index(int input, size_t gear) const {
    return static_cast<size_t>(input) * std::max<size_t>(hw_gears.size(), 1) + gear;
  }
  void abort() {
    aborted = true;
    if (batcher) batcher->close();
  }
};

inline Server& server() {
  static Server s;
  return s;
}

// ---------------------------------------------------------------- completing a batch

// Batch b of worker t is complete: each request on its own (decode result, verification
// against its own input's reference output, latency from its send time), then the executor
// slot is released and the clients are woken. Runs on the report thread.
template <class W>
void complete_served(W& t, ServedBatch& sb, double now) {
  Run& run = run_state();
  Server& srv = server();
  const int64_t now_us = srv.clock.now_us();
  const uint8_t* out = t.output(sb.batch);
  const size_t item_bytes = t.output_item_bytes();
  const bool measured =
      sb.from_batcher && !run.recording && now >= run.measure_start && now < run.measure_end;
  const std::vector<Input>& inputs = *run.inputs;
  const size_t gear = srv.hw_gear(sb.taken.padded);
  int64_t counted = 0;
  for (size_t i = 0; i < sb.taken.items.size(); ++i) {
    const BatchItem& item = sb.taken.items[i];
    PendingRequest& req = srv.request(item.id);
    const Input& in = inputs[static_cast<size_t>(req.input)];
    const uint32_t status = t.frame_status(sb.first_frame + static_cast<int64_t>(i));
    if (status != 0) {
      frame_failed(run, in.name, status);
    } else if (out != nullptr) {
      const uint8_t* result = out + i * item_bytes;
      t.checksum += t.postprocess(result);
      std::vector<uint8_t>& expected = run.expected[srv.expected_index(req.input, gear)];
      if (run.recording) {
        expected.assign(result, result + item_bytes);
      } else if (run.verify && !same_bytes(expected, result, item_bytes)) {
        if (run.mismatches.fetch_add(1) < 5)
          std::fprintf(stderr,
                       "verify: request %" PRIu64
                       " (input '%s', item %zu of a batch of %zu): "
                       "its response is not its input's output\n",
                       item.id, in.name.c_str(), i, sb.taken.items.size());
      }
    }
    if (measured && (run.frame_limit == 0 || run.completed.fetch_add(1) < run.frame_limit)) {
      if (run.frame_limit == 0) ++run.completed;
      const double e2e = static_cast<double>(now_us - req.sent_us);
      srv.stats->record_request(e2e, static_cast<double>(item.queue_us),
                                static_cast<double>(now_us - sb.taken.formed_us), item.level);
      srv.latency.record(e2e);
      run.windows.record(now - run.measure_start, &e2e, 1);  // p99 and max per second
      ++counted;
    }
  }
  if (counted > 0 && !srv.hw_gears.empty()) {
    // Padding to the gear, and the padding rule checked again from the requests' own shapes.
    const int64_t size = static_cast<int64_t>(sb.taken.items.size());
    int64_t real = 0, smallest = 0, widest = 0;
    for (const BatchItem& item : sb.taken.items) {
      const Input& in = inputs[static_cast<size_t>(srv.request(item.id).input)];
      const int64_t elements = int64_t{in.height} * in.width;
      real += elements;
      smallest = smallest == 0 ? elements : std::min(smallest, elements);
      widest = std::max<int64_t>(widest, in.width);
    }
    const HwGear& g = srv.hw_gears[gear];
    srv.stats->record_batch(static_cast<int>(size), srv.executed(sb.taken.items.size()), real,
                            g.elements() * size);
    srv.stats->record_shapes(g.height, g.width, g.height * widest, smallest);
  } else if (counted > 0) {
    srv.stats->record_batch(sb.taken, srv.executed(sb.taken.items.size()));
  }
  if (counted > 0) {
    srv.rate.add(now, counted);
    srv.measured_requests += counted;
    ++srv.measured_batches;
    if (run.frame_limit > 0 && run.completed >= run.frame_limit) run.stop = true;
  }
  // The requests first: once the slot is done, its worker may overwrite `sb` with a new batch.
  for (const BatchItem& item : sb.taken.items) srv.request(item.id).complete();
  if (sb.from_batcher) srv.batcher->release();
  t.completions.done(sb.batch);
}

template <class W>
struct ServedCallback {
  static void on_done(void* served) {
    auto* sb = static_cast<ServedBatch*>(served);
    complete_served(*static_cast<W*>(sb->worker), *sb, now_s());
    ++run_state().callbacks_run;
  }
};

// ---------------------------------------------------------------- a worker

// Per worker: its batch slots' records.
template <class W>
struct ServingWorker {
  W* t = nullptr;
  std::vector<ServedBatch> slots;
  int64_t next_batch = 0;
};

// Submits the batch in `sb` through every step: each request as one frame of the batch, then
// the batch's own steps once, then the completion callback.
template <class W>
void submit_served(ServingWorker<W>& sw, ServedBatch& sb, const std::vector<Input>& inputs) {
  W& t = *sw.t;
  Server& srv = server();
  const int64_t n = static_cast<int64_t>(sb.taken.items.size());
  t.batch_last = n - 1;
  t.batch_padded = sb.taken.padded;
  t.batch_inputs.clear();  // reserved for max_batch at start-up
  for (const BatchItem& item : sb.taken.items)
    t.batch_inputs.push_back(&inputs[static_cast<size_t>(srv.request(item.id).input)]);
  for (int64_t i = 0; i < n; ++i) {
    const Input& in = *t.batch_inputs[static_cast<size_t>(i)];
    const Frame at{sb.first_frame + i, sb.batch, i};
    for (const StepFn<W>& step : W::kSteps)
      if (!step.per_batch) (t.*step.run)(at, in);
  }
  const Input& last = *t.batch_inputs.back();
  const Frame closing{sb.first_frame + n - 1, sb.batch, n - 1};
  for (const StepFn<W>& step : W::kSteps)
    if (step.per_batch) (t.*step.run)(closing, last);
  check(aclrtLaunchCallback(ServedCallback<W>::on_done, &sb, ACL_CALLBACK_NO_BLOCK,
                            t.completion_stream()),
        "completion", "aclrtLaunchCallback");
  ++run_state().callbacks_launched;
  t.next_frame += n;
}

template <class W>
ServedBatch& next_slot(ServingWorker<W>& sw) {
  W& t = *sw.t;
  const int64_t b = sw.next_batch++;
  t.completions.wait_until_done(b - t.batch_slots() + 1);  // its slot is free
  ServedBatch& sb = sw.slots[static_cast<size_t>(b % t.batch_slots())];
  sb.batch = b;
  sb.first_frame = t.next_frame;
  return sb;
}

// A worker's loop: a batch whenever one of its slots is free and the batcher forms one.
template <class W>
void serve(ServingWorker<W>& sw, aclrtContext context, const std::vector<Input>& inputs,
           const std::vector<int>& cpus) {
  Run& run = run_state();
  W& t = *sw.t;
  const double cpu0 = thread_cpu_s();
  try {
    check(aclrtSetCurrentContext(context), "worker", "aclrtSetCurrentContext");
    pin_current_thread(cpus);
    for (;;) {
      ServedBatch& sb = next_slot(sw);
      sb.from_batcher = true;
      if (!server().batcher->wait_batch(&sb.taken)) {
        --sw.next_batch;  // the slot was not used
        break;
      }
      submit_served(sw, sb, inputs);
    }
    t.completions.wait_until_done(sw.next_batch);  // drain
  } catch (const std::exception& e) {
    run.error.set(e.what());
    run.stop = true;
    server().abort();
    t.completions.abort();
  }
  t.cpu_s = thread_cpu_s() - cpu0;
  if (server().workers_serving.fetch_sub(1) == 1) run.stop = true;  // the batcher closed: done
}

// Every input once, alone in a batch, through worker 0: its output is the reference. With
// height/width gears, once at every gear that holds it (a batch pads it to its gear).
template <class W>
void serve_reference(ServingWorker<W>& sw, const std::vector<Input>& inputs) {
  Run& run = run_state();
  Server& srv = server();
  run.recording = true;
  const size_t gears = std::max<size_t>(srv.hw_gears.size(), 1);
  run.expected.assign(inputs.size() * gears, {});
  PendingRequest& req = srv.request(0);
  for (const Input& in : inputs) {
    for (size_t g = 0; g < gears; ++g) {
      Shape padded;
      if (!srv.hw_gears.empty()) {
        if (srv.hw_gears[g].width < int64_t{in.width}) continue;  // too narrow: never its gear
        padded = make_shape({srv.hw_gears[g].height, srv.hw_gears[g].width});
      }
      req.input = in.index;
      ServedBatch& sb = next_slot(sw);
      sb.from_batcher = false;
      sb.taken.items.assign(1, BatchItem{0, 0, false, 0, 0, padded});
      sb.taken.padded = padded;
      submit_served(sw, sb, inputs);
      sw.t->completions.wait_until_done(sw.next_batch);
      req.wait(srv.aborted);
    }
  }
  run.recording = false;
}

// ---------------------------------------------------------------- the load

// A trace that could not give the run a result is refused at start-up: none of its requests
// falls in the measured window (after --warmup, within --duration), or fewer than --frames do.
inline void check_trace(const TraceArrivals& trace, const Options& opt) {
  const int64_t warmup_us = std::llround(opt.warmup_s * 1e6);
  const int64_t end_us =
      opt.frames > 0 ? INT64_MAX : warmup_us + std::llround(opt.duration_s * 1e6);
  const size_t measured = trace.count_between(warmup_us, end_us);
  const std::string requests = std::to_string(trace.size()) + " request" +
                               (trace.size() == 1 ? "" : "s") + " (at 0.." +
                               format_limit(static_cast<double>(trace.last_us()) / 1e6) + " s)";
  if (measured == 0)
    throw BadFlags(
        "--trace: none of its " + requests + " falls after the --warmup of " +
        format_limit(opt.warmup_s) + " s" +
        (opt.frames > 0 ? "" : " within --duration " + format_limit(opt.duration_s) + " s") +
        ": nothing would be measured; shorten --warmup or give a longer trace");
  if (opt.frames > 0 && static_cast<uint64_t>(opt.frames) > measured)
    throw BadFlags("--frames " + std::to_string(opt.frames) + ": the trace's " + requests +
                   " has only " + std::to_string(measured) + " after the --warmup of " +
                   format_limit(opt.warmup_s) + " s; give fewer --frames or a longer trace");
}

// The open loop's arrival times (--rate, --trace), or nullptr for a closed loop; read at
// start-up, so a bad trace file is a bad flag.
inline std::unique_ptr<ArrivalSchedule> arrivals(const Options& opt) {
  if (!opt.trace.empty()) {
    std::unique_ptr<TraceArrivals> trace;
    try {
      trace = std::make_unique<TraceArrivals>(TraceArrivals::from_file(opt.trace));
    } catch (const std::exception& e) {
      throw BadFlags(std::string("--trace: ") + e.what());
    }
    check_trace(*trace, opt);
    return trace;
  }
  if (opt.rate > 0 && opt.poisson) return std::make_unique<PoissonArrivals>(opt.rate, 42);
  if (opt.rate > 0) return std::make_unique<ConstantArrivals>(opt.rate);
  return nullptr;
}

// Runs the clients until `run.stop`: a closed loop of opt.clients, or an open loop at the
// schedule's times (filling `lateness`). True when the open loop's schedule ran out (a trace
// replayed to its end): no request will come any more.
inline bool run_load(const Options& opt, ArrivalSchedule* schedule,
                     const std::vector<Input>& inputs, const Run& run, Lateness* lateness,
                     const PriorityMix& mix) {
  Server& srv = server();
  const size_t n_inputs = inputs.size();
  auto send = [&](PendingRequest& req, uint64_t id, int64_t sent_us) {
    req.sent_us = sent_us;
    Request r;
    r.id = id;
    r.priority = req.priority;
    if (!srv.hw_gears.empty()) r.shape = request_shape(inputs[static_cast<size_t>(req.input)]);
    if (srv.batcher->submit(r) != SubmitResult::kQueued) return false;  // counted by the batcher
    return true;
  };
  if (schedule == nullptr) {
    ClosedLoop clients(opt.clients);
    clients.start([&](int c, uint64_t seq) {
      PendingRequest& req = srv.request(static_cast<uint64_t>(c));
      req.input = static_cast<int>((static_cast<uint64_t>(c) + seq) % n_inputs);
      req.priority = mix.level_of(static_cast<uint64_t>(c));  // a client's requests share a level
      if (send(req, static_cast<uint64_t>(c), srv.clock.now_us())) req.wait(srv.aborted);
    });
    while (!run.stop && stop_signal() == 0 && !srv.aborted)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    clients.stop_and_join();  // each finishes its request in flight
    return false;
  }
  OpenLoop loop(*schedule, srv.clock, 1000);  // late: more than 1 ms after its time
  std::atomic<bool> sending{true};
  std::thread watcher([&] {
    while (sending && !run.stop && stop_signal() == 0 && !srv.aborted)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    loop.stop();
  });
  // Request ids are the ring's slots: the id of a slot still in flight is skipped (the ring
  // is larger than the batcher's queue and slots together, so only an unbounded queue can).
  uint64_t next_id = 1;  // id 0 is the reference run's
  uint64_t overrun = 0;
  *lateness = loop.run([&](uint64_t seq, int64_t due) {
    uint64_t id = next_id++;
    PendingRequest& req = srv.request(id);
    if (req.busy.exchange(1) != 0) {
      ++overrun;
      return;
    }
    req.input = static_cast<int>(seq % n_inputs);
    req.priority = mix.level_of(seq);
    if (!send(req, id, due)) req.busy.store(0);
  });
  sending = false;
  watcher.join();
  if (overrun > 0)
    std::fprintf(stderr, "serving: %" PRIu64 " requests found every request slot in flight\n",
                 overrun);
  return loop.ended();
}

// ---------------------------------------------------------------- the run

template <class W>
int serve_run(const ProgramInfo& info, BatcherConfig batching, const Options& opt, Cleanup& cleanup,
              const std::vector<StageInfo>& stages) {
  Run& run = run_state();
  Server& srv = server();
  run.info = &info;
  if (!opt.only_stage.empty())
    throw BadFlags("--only-stage measures a frame pipeline, not a server");
  if (opt.poisson && opt.rate <= 0) throw BadFlags("--arrival poisson needs --rate");
  if (!opt.devices.empty()) throw BadFlags("--devices: a server runs on the spec's one device");
  const int window = opt.depth;
  check_budget(info, opt.threads, window);
  const std::vector<int> cpus = cpus_for(opt.pin);
  const std::vector<Input> inputs = prepare_inputs(info, opt.input, W::inspect_input);
  std::unique_ptr<ArrivalSchedule> schedule = arrivals(opt);
  PriorityMix mix;
  if (!opt.priority_mix.empty()) {
    try {
      mix = PriorityMix::parse(opt.priority_mix);
    } catch (const std::exception& e) {
      throw BadFlags(std::string("--priority-mix ") + e.what());
    }
    if (mix.levels() > batching.priority_levels)
      throw BadFlags("--priority-mix gives " + std::to_string(mix.levels()) +
                     " levels; the spec's batching has " +
                     std::to_string(batching.priority_levels) + " (batching: priorities)");
  }
  const bool open_loop = schedule != nullptr;
  const int batch_slots = info.batch_slots.slots(window);
  batching.slots = batch_slots * opt.threads;
#if ASCGEN_BACKEND_SIM
  // ACL_SIM_TIME_SCALE s: the simulated device runs s times slower than the host, whose clock
  // the batcher reads: its delay and timeouts are scaled by s, so they are the spec's in the
  // device's time, as a run's model-time figures are (docs/serving.md). A bad value is the
  // simulator's error at aclInit.
  if (const char* env = std::getenv("ACL_SIM_TIME_SCALE"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const double scale = std::strtod(env, &end);
    if (end != nullptr && *end == '\0' && scale > 0) scale_durations(&batching, scale);
  }
#endif
  srv.executed_batch = info.batch;
  // closed loop: one record per client; open loop: a ring beyond what can be in flight
  size_t records = static_cast<size_t>(std::max(opt.clients, 1));
  if (open_loop)
    records = std::max<size_t>(
        65536, 4 * (static_cast<size_t>(batching.slots) * static_cast<size_t>(batching.max_batch) +
                    batching.policies.at(0).max_queue_size));
  for (size_t k = 0; k < records; ++k) srv.requests.push_back(std::make_unique<PendingRequest>());
  srv.stats = std::make_unique<ServingStats>(batching.max_batch, batching.priority_levels);
  srv.batcher = std::make_unique<Batcher>(batching, srv.clock, [&srv](const Dropped& d) {
    srv.request(d.id).complete();  // timed out: its client hears at once (counted by the batcher)
  });

  const aclrtContext context = open_device(info.device_id, true, cleanup);
  const Setup common{-1, window, batch_slots, inputs, opt.model};
  typename W::Shared shared;
  shared.setup(common, cleanup);
  std::vector<std::unique_ptr<W>> workers =
      make_workers<W>(info, opt, common, shared, run, cleanup);
  std::vector<ServingWorker<W>> serving(workers.size());
  for (size_t w = 0; w < workers.size(); ++w) {
    ServingWorker<W>& sw = serving[w];
    sw.t = workers[w].get();
    sw.t->batch_inputs.reserve(static_cast<size_t>(batching.max_batch));
    sw.slots.resize(static_cast<size_t>(batch_slots));
    for (ServedBatch& sb : sw.slots) {
      sb.worker = sw.t;
      sb.taken.items.reserve(static_cast<size_t>(batching.max_batch));
    }
  }
  run_state().inputs = &inputs;  // the completions read them (Run::inputs)
  auto reporter = start_reporter(context, workers, cleanup, [&workers](const std::string& error) {
    run_state().error.set(error);
    run_state().stop = true;
    server().abort();
    for (auto& t : workers) t->completions.abort();
  });
  cleanup.add("aclrtSynchronizeDevice (drain before release)",
              [] { return aclrtSynchronizeDevice(); });
  CallbackDrain drain(reporter.get());  // before the workers go, on every path
  size_t mem_free = 0, mem_total = 0;
  check(aclrtGetMemInfo(info.memory_attr, &mem_free, &mem_total), "setup", "aclrtGetMemInfo");

  run.verify = opt.verify;
  run.skip_decode_errors = opt.skip_decode_errors;
  if (opt.verify) serve_reference(serving[0], inputs);

  Progress progress;
  begin_measurement(run, opt);
  const double cpu0 = process_cpu_s();
  std::vector<std::thread> threads;
  srv.workers_serving = static_cast<int>(serving.size());
  for (ServingWorker<W>& sw : serving)
    threads.emplace_back(serve<W>, std::ref(sw), context, std::cref(inputs), std::cref(cpus));
  DepthSampler sampler([&srv] { return static_cast<uint64_t>(srv.batcher->depth()); }, srv.clock,
                       10000);
  Lateness lateness;
  std::thread load([&] {
    try {
      // A trace replayed to its end: the workers serve what is queued, then the run ends.
      if (run_load(opt, schedule.get(), inputs, run, &lateness, mix)) srv.batcher->close();
    } catch (const std::exception& e) {
      run.error.set(e.what());
      run.stop = true;
      srv.abort();
    }
  });
  progress.run_until(run.stop, run.completed, run.measure_start, run.measure_end);
  run.stop = true;
  const double elapsed = std::max(0.0, std::min(now_s(), run.measure_end) - run.measure_start);
  load.join();           // the clients stop; their requests in flight complete
  srv.batcher->close();  // the workers flush the queue and stop
  for (std::thread& th : threads) th.join();
  sampler.stop();
  drain.finish();
  srv.aborted = true;
  run.error.rethrow();

  srv.stats->set_counters(srv.batcher->counters());
  if (open_loop) srv.stats->set_lateness(lateness);
  Report report = report_head(info, opt);
  report.duration_s = elapsed;
  for (const auto& t : workers) report.host_cpu_s += t->cpu_s;
  report.host_cpu_s += reporter->cpu_s();
  report.frames = srv.measured_requests;
  if (srv.rate.known()) report.qps = srv.rate.qps();
  report.frames_failed = run.frames_failed;
  report.first_failure_input = run.first_failure_input;
  report.first_failure_code = run.first_failure_code;
  report.process_cpu_s = process_cpu_s() - cpu0;
  report.device_memory_bytes = static_cast<int64_t>(mem_total - mem_free);
  report.interrupted = stop_signal() != 0;
  report.windows_qps = progress.windows();
  report.windows_latency = run.windows.p99_max_ms();
  report.verified = verified_state(run, opt, workers[0]->output(0) != nullptr);
  for (const StageInfo& s : stages)
    report.stages.push_back({s.name, s.per_batch ? srv.measured_batches.load() : report.frames});
  const DepthSeries& depth = sampler.series();
  report.more = [&srv, &depth, &opt, open_loop](Json& j) {
    srv.stats->write_json(j, &depth);
    j.key("load").open('{');
    if (open_loop && opt.trace.empty())
      j.key("kind").str(opt.poisson ? "poisson" : "constant").key("rate").num(opt.rate);
    else if (open_loop)
      j.key("kind").str("trace").key("trace").str(opt.trace.c_str());
    else
      j.key("kind").str("closed").key("clients").integer(opt.clients);
    j.close('}');
  };
  report.write(srv.latency, opt.json_path, opt.quiet);
  if (open_loop && lateness.could_not_keep_up())
    std::fprintf(stderr,
                 "%s: the load generator could not keep up: %" PRIu64 " of %" PRIu64
                 " requests were sent more than %" PRId64
                 " us late; the measured load is lower "
                 "than the one asked for\n",
                 info.name, lateness.late, lateness.sent, lateness.tolerance_us);
  return run_status(info.name, run, opt, report.frames);
}

// The server's main: options (a closed loop of the spec's default clients unless a load is
// given), then serve_run() inside a cleanup that releases everything in reverse order.
template <class W>
int serve_main(int argc, char** argv, const ProgramInfo& info, const BatcherConfig& batching,
               const std::vector<int>& gears, const Options& defaults,
               const std::vector<StageInfo>& stages, const std::vector<HwGear>& hw_gears = {}) {
  Options opt = parse_options(argc, argv, defaults);
  if (opt.rate > 0 || !opt.trace.empty()) opt.clients = 0;
#if ASCGEN_BACKEND_SIM
  setenv("ACL_SIM_PROFILE", ASCGEN_SIM_PROFILE, 0);
#endif
  install_signal_handlers();
  Cleanup cleanup;
  int status = 0;
  try {
    server().gears = gears;
    server().hw_gears = hw_gears;
    status = serve_run<W>(info, batching, opt, cleanup, stages);
  } catch (const BadFlags& e) {
    std::fprintf(stderr, "%s: %s\n", info.name, e.what());
    status = 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", info.name, e.what());
    status = 3;
  }
  if (cleanup.run() != 0 && status == 0) status = 3;
  return status;
}

}  // namespace ascgen::serving

#endif  // ASCGEN_SERVING_H_
