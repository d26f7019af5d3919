// ascgen_serving.h: the generated program as a server (a spec with source: {kind: requests}):
// its mode of the run (ascgen_run.h): its load runs (a closed loop of --clients, an open loop at
// --rate, or a --trace replay; ascgen_server.h) while workers serve the batches the batcher
// forms (ascgen_server.h), the report adds the service's figures; and its main().
// Emitted verbatim by ascgen; hand-written, reviewed once.
#ifndef ASCGEN_SERVING_H_
#define ASCGEN_SERVING_H_

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ascgen_run.h"
#include "ascgen_server.h"

namespace ascgen::serving {

// ---------------------------------------------------------------- the mode

template <class W>
class ServerMode {
 public:
  static constexpr bool kTimedAtStop = true;  // the load stops there; the queue only drains

  explicit ServerMode(BatcherConfig batching) : batching_(std::move(batching)) {}
  void check_flags(const Options& opt) {
    if (!opt.only_stage.empty())
      throw BadFlags("--only-stage measures a frame pipeline, not a server");
    if (opt.poisson && opt.rate <= 0) throw BadFlags("--arrival poisson needs --rate");
    if (!opt.devices.empty()) throw BadFlags("--devices: a server runs on the spec's one device");
  }
  int window(const Options& opt, const ProgramInfo&) { return opt.depth; }
  int32_t device(const Options&, const ProgramInfo& info) { return info.device_id; }
  std::vector<int> cpus(const Options& opt, int32_t) { return cpus_for(opt.pin); }
  // The load (a bad trace or priority mix is a bad flag) and the batcher, before the device.
  void prepare(const Options& opt, const ProgramInfo& info, int batch_slots) {
    opt_ = &opt;
    schedule_ = arrivals(opt);
    if (!opt.priority_mix.empty()) {
      try {
        mix_ = PriorityMix::parse(opt.priority_mix);
      } catch (const std::exception& e) {
        throw BadFlags(std::string("--priority-mix ") + e.what());
      }
      if (mix_.levels() > batching_.priority_levels)
        throw BadFlags("--priority-mix gives " + std::to_string(mix_.levels()) +
                       " levels; the spec's batching has " +
                       std::to_string(batching_.priority_levels) + " (batching: priorities)");
    }
    batching_.slots = batch_slots * opt.threads;
#if ASCGEN_BACKEND_SIM
    // ACL_SIM_TIME_SCALE s: the simulated device runs s times slower than the host, whose clock
    // the batcher reads: its delay and timeouts are scaled by s, so they are the spec's in the
    // device's time, as a run's model-time figures are (docs/serving.md). A bad value is the
    // simulator's error at aclInit.
    if (const char* env = std::getenv("ACL_SIM_TIME_SCALE"); env != nullptr && *env != '\0') {
      char* end = nullptr;
      const double scale = std::strtod(env, &end);
      if (end != nullptr && *end == '\0' && scale > 0) scale_durations(&batching_, scale);
    }
#endif
    Server& srv = server();
    srv.executed_batch = info.batch;
    // closed loop: one record per client; open loop: a ring beyond what can be in flight
    size_t records = static_cast<size_t>(std::max(opt.clients, 1));
    if (schedule_ != nullptr)
      records = std::max<size_t>(65536, 4 * (static_cast<size_t>(batching_.slots) *
                                                 static_cast<size_t>(batching_.max_batch) +
                                             batching_.policies.at(0).max_queue_size));
    for (size_t k = 0; k < records; ++k) srv.requests.push_back(std::make_unique<PendingRequest>());
    srv.stats = std::make_unique<ServingStats>(batching_.max_batch, batching_.priority_levels);
    srv.batcher = std::make_unique<Batcher>(batching_, srv.clock, [&srv](const Dropped& d) {
      srv.request(d.id).complete();  // timed out: its client hears at once (counted by the batcher)
    });
  }
  void adopt(std::vector<std::unique_ptr<W>>& workers) {
    serving_ = std::vector<ServingWorker<W>>(workers.size());
    for (size_t w = 0; w < workers.size(); ++w) {
      ServingWorker<W>& sw = serving_[w];
      sw.t = workers[w].get();
      sw.t->batch_inputs.reserve(static_cast<size_t>(batching_.max_batch));
      sw.slots.resize(static_cast<size_t>(sw.t->batch_slots()));
      for (ServedBatch& sb : sw.slots) {
        sb.worker = sw.t;
        sb.taken.items.reserve(static_cast<size_t>(batching_.max_batch));
      }
    }
  }
  bool callbacks() const { return true; }
  void abort() { server().abort(); }
  void reference(const std::vector<Input>& inputs) { serve_reference(serving_.front(), inputs); }
  // The workers, the queue depth's sampler and the load.
  void start(aclrtContext context, const std::vector<Input>& inputs, const std::vector<int>& cpus) {
    Server& srv = server();
    srv.workers_serving = static_cast<int>(serving_.size());
    for (ServingWorker<W>& sw : serving_) {
      ServingWorker<W>* w = &sw;
      threads_.emplace_back([w, context, &inputs, &cpus] {
        worker_thread(
            *w->t, context, cpus, [w, &inputs] { serve_batches(*w, inputs); },
            [] { server().abort(); });
        // The last worker to stop (the batcher closed: the load ended) ends the run.
        if (server().workers_serving.fetch_sub(1) == 1) w->t->run->stop = true;
      });
    }
    sampler_ = std::make_unique<DepthSampler>(
        [&srv] { return static_cast<uint64_t>(srv.batcher->depth()); }, srv.clock, 10000);
    load_ = std::thread([this, &inputs] {
      Run& run = run_state();
      try {
        // A trace replayed to its end: the workers serve what is queued, then the run ends.
        if (run_load(*opt_, schedule_.get(), inputs, run, &lateness_, mix_))
          server().batcher->close();
      } catch (const std::exception& e) {
        run.error.set(e.what());
        run.stop = true;
        server().abort();
      }
    });
  }
  void join() {
    load_.join();               // the clients stop; their requests in flight complete
    server().batcher->close();  // the workers flush the queue and stop
    for (std::thread& th : threads_) th.join();
    sampler_->stop();
  }
  // The measured requests, their completion rate and latencies, and the service's figures.
  LatencyHistogram fill(Report& report) {
    Server& srv = server();
    srv.stats->set_counters(srv.batcher->counters());
    const bool open_loop = schedule_ != nullptr;
    if (open_loop) srv.stats->set_lateness(lateness_);
    report.frames = srv.measured_requests;
    if (srv.rate.known()) report.qps = srv.rate.qps();
    const Options& opt = *opt_;
    report.more = [&srv, this, &opt, open_loop](Json& j) {
      srv.stats->write_json(j, &sampler_->series());
      j.key("load").open('{');
      if (open_loop && opt.trace.empty())
        j.key("kind").str(opt.poisson ? "poisson" : "constant").key("rate").num(opt.rate);
      else if (open_loop)
        j.key("kind").str("trace").key("trace").str(opt.trace.c_str());
      else
        j.key("kind").str("closed").key("clients").integer(opt.clients);
      j.close('}');
    };
    return srv.latency;
  }
  int64_t batches(const Report&) const { return server().measured_batches.load(); }
  bool verifiable(const W& first) const { return first.output(0) != nullptr; }
  void after_report(const ProgramInfo& info) {
    if (schedule_ != nullptr && lateness_.could_not_keep_up())
      std::fprintf(stderr,
                   "%s: the load generator could not keep up: %" PRIu64 " of %" PRIu64
                   " requests were sent more than %" PRId64 " us late and %" PRIu64
                   " due were never sent; the measured load is lower than the one asked for\n",
                   info.name, lateness_.late, lateness_.sent, lateness_.tolerance_us,
                   lateness_.missed);
  }

 private:
  BatcherConfig batching_;
  const Options* opt_ = nullptr;
  std::unique_ptr<ArrivalSchedule> schedule_;
  PriorityMix mix_;
  std::vector<ServingWorker<W>> serving_;
  std::vector<std::thread> threads_;
  std::unique_ptr<DepthSampler> sampler_;
  std::thread load_;
  Lateness lateness_;
};

// The server's main: options (a closed loop of the spec's default clients unless a load is
// given), then the run in its mode.
template <class W>
int serve_main(int argc, char** argv, const ProgramInfo& info, const BatcherConfig& batching,
               const std::vector<int>& gears, const Options& defaults,
               const std::vector<StageInfo>& stages, const std::vector<HwGear>& hw_gears = {}) {
  const Options opt = start_program(argc, argv, defaults, [](Options& o) {
    if (o.rate > 0 || !o.trace.empty()) o.clients = 0;
  });
  return guarded(info, opt, [&](Cleanup& cleanup) {
    server().gears = gears;
    server().hw_gears = hw_gears;
    ServerMode<W> mode(batching);
    return run_program<W>(mode, info, opt, cleanup, stages);
  });
}

}  // namespace ascgen::serving

#endif  // ASCGEN_SERVING_H_
