// ascgen_server.cpp: what ascgen_server.h declares (README.md: how it is compiled).

#include "ascgen_server.h"

namespace ascgen::serving {

Server& server() {
  static Server s;
  return s;
}

void check_trace(const TraceArrivals& trace, const Options& opt) {
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

std::unique_ptr<ArrivalSchedule> arrivals(const Options& opt) {
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

bool run_load(const Options& opt, ArrivalSchedule* schedule, const std::vector<Input>& inputs,
              const Run& run, Lateness* lateness, const PriorityMix& mix) {
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

}  // namespace ascgen::serving
