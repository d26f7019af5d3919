// ascgen_server.h: the state of the generated program as a server (a spec with source: {kind:
// requests}), its workers and its load; the run is in ascgen_serving.h.
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
#ifndef ASCGEN_SERVER_H_
#define ASCGEN_SERVER_H_

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "ascgen_batcher.h"
#include "ascgen_driver.h"
#include "ascgen_loadgen.h"
#include "ascgen_padding.h"
#include "ascgen_serving_stats.h"

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

Server& server();

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
  const size_t item_bytes = t.output_item_bytes(sb.batch);
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
      t.checksum += host_stages(t, result, sb.batch, static_cast<int>(i));
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
  for (int64_t i = 0; i < n; ++i)
    submit_steps(t, Frame{sb.first_frame + i, sb.batch, i}, *t.batch_inputs[static_cast<size_t>(i)],
                 i == n - 1);
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

// A worker's loop: a batch whenever one of its slots is free and the batcher forms one; then
// the drain of its last batches.
template <class W>
void serve_batches(ServingWorker<W>& sw, const std::vector<Input>& inputs) {
  for (;;) {
    ServedBatch& sb = next_slot(sw);
    sb.from_batcher = true;
    if (!server().batcher->wait_batch(&sb.taken)) {
      --sw.next_batch;  // the slot was not used
      break;
    }
    submit_served(sw, sb, inputs);
  }
  sw.t->completions.wait_until_done(sw.next_batch);
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
void check_trace(const TraceArrivals& trace, const Options& opt);

// The open loop's arrival times (--rate, --trace), or nullptr for a closed loop; read at
// start-up, so a bad trace file is a bad flag.
std::unique_ptr<ArrivalSchedule> arrivals(const Options& opt);

// Runs the clients until `run.stop`: a closed loop of opt.clients, or an open loop at the
// schedule's times (filling `lateness`). True when the open loop's schedule ran out (a trace
// replayed to its end): no request will come any more.
bool run_load(const Options& opt, ArrivalSchedule* schedule, const std::vector<Input>& inputs,
              const Run& run, Lateness* lateness, const PriorityMix& mix);

}  // namespace ascgen::serving

#endif  // ASCGEN_SERVER_H_
