// The load generator: arrival statistics (constant exact, Poisson gaps pass a
// Kolmogorov-Smirnov test against the exponential), trace replay, the keep-up rule, the
// closed loop's N outstanding requests, the queue-depth series and the reported statistics.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "ascgen_batcher.h"
#include "ascgen_loadgen.h"
#include "ascgen_serving_stats.h"
#include "check.h"

using namespace ascgen::serving;

namespace {

// Kolmogorov-Smirnov statistic of a sample against the exponential CDF of rate `rate`.
double ks_exponential(std::vector<double> x, double rate) {
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double f = 1.0 - std::exp(-rate * x[i]);
    d = std::max(d, std::max(static_cast<double>(i + 1) / n - f, f - static_cast<double>(i) / n));
  }
  return d;
}

// The asymptotic critical value of the one-sample KS test at significance 0.01:
// sqrt(-ln(0.01 / 2) / 2) / sqrt(n) = 1.6276 / sqrt(n).
double ks_critical_001(size_t n) {
  return std::sqrt(-std::log(0.005) / 2.0) / std::sqrt(static_cast<double>(n));
}

template <class Pred>
bool wait_for(std::mutex& m, std::condition_variable& cv, Pred pred) {
  std::unique_lock<std::mutex> lock(m);
  return cv.wait_for(lock, std::chrono::seconds(20), pred);
}

}  // namespace

// ---------------------------------------------------------------- arrivals

TEST(loadgen, constant_rate_is_exact) {
  ConstantArrivals a(1000);
  int64_t t = -1;
  for (int64_t k = 0; k < 10000; ++k) {
    CHECK(a.next(&t));
    CHECK_EQ(t, k * 1000);
  }
  ConstantArrivals third(3);  // 333333.33 us apart: no drift after 3000 requests
  for (int k = 0; k <= 3000; ++k) third.next(&t);
  CHECK_EQ(t, int64_t{1000000000});
  CHECK_THROWS(ConstantArrivals(0));
  CHECK_THROWS(ConstantArrivals(-5));
  CHECK_THROWS(ConstantArrivals(std::nan("")));
}

TEST(loadgen, poisson_gaps_pass_kolmogorov_smirnov) {
  // 5000 gaps at 100 requests/s, seed 42: the KS statistic against Exp(100) must stay
  // below the critical value at significance 0.01 (a fixed seed: the outcome is fixed too).
  const double rate = 100;
  const size_t n = 5000;
  PoissonArrivals p(rate, 42);
  std::vector<double> gaps;
  for (size_t i = 0; i < n; ++i) gaps.push_back(p.gap_s());
  double d = ks_exponential(gaps, rate);
  std::fprintf(stderr, "  KS D = %.5f, critical (0.01) = %.5f\n", d, ks_critical_001(n));
  CHECK(d < ks_critical_001(n));
  double mean = 0;
  for (double g : gaps) mean += g / static_cast<double>(n);
  CHECK(std::fabs(mean * rate - 1.0) < 0.05);  // mean gap 1/rate (SE 1.4 %)
  for (double g : gaps) CHECK(g >= 0);
}

TEST(loadgen, poisson_schedule_is_its_gaps_in_microseconds) {
  PoissonArrivals times(250, 7), gaps(250, 7);
  int64_t t = -1;
  CHECK(times.next(&t));
  CHECK_EQ(t, int64_t{0});  // the first request at the start
  double sum = 0;
  for (int i = 0; i < 2000; ++i) {
    sum += gaps.gap_s();
    CHECK(times.next(&t));
    CHECK_EQ(t, std::llround(sum * 1e6));  // accumulated exactly, rounded once
  }
  // the same seed gives the same schedule; another seed another one
  PoissonArrivals a(250, 7), b(250, 7), c(250, 8);
  int64_t ta = 0, tb = 0, tc = 0;
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    a.next(&ta);
    b.next(&tb);
    c.next(&tc);
    CHECK_EQ(ta, tb);
    differs |= ta != tc;
  }
  CHECK(differs);
}

TEST(loadgen, kolmogorov_smirnov_rejects_other_gaps) {
  // the test has power: constant gaps and uniform gaps of the same mean fail it
  const double rate = 100;
  const size_t n = 5000;
  std::vector<double> constant(n, 1.0 / rate), uniform;
  std::mt19937_64 rng(1);
  for (size_t i = 0; i < n; ++i)
    uniform.push_back(static_cast<double>(rng() >> 11) * 0x1.0p-53 * 2.0 / rate);
  CHECK(ks_exponential(constant, rate) > ks_critical_001(n));
  CHECK(ks_exponential(uniform, rate) > ks_critical_001(n));
}

TEST(loadgen, trace_replay) {
  std::istringstream in("# a trace\n1000\n\n  1500 \n1500\n4000\r\n");
  TraceArrivals t = TraceArrivals::parse(in, "trace.txt");
  CHECK_EQ(t.size(), size_t{4});
  std::vector<int64_t> got;
  int64_t v = 0;
  while (t.next(&v)) got.push_back(v);
  CHECK(got == (std::vector<int64_t>{0, 500, 500, 3000}));  // shifted to start at 0
  std::istringstream decreasing("10\n5\n");
  CHECK_THROWS(TraceArrivals::parse(decreasing, "d"));
  std::istringstream junk("10\n1.5e3\n");
  try {
    TraceArrivals::parse(junk, "j.txt");
    CHECK(false);
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("j.txt:2:") == 0);
  }
  std::istringstream empty("# nothing\n");
  CHECK_THROWS(TraceArrivals::parse(empty, "e"));
  std::istringstream negative("-1\n");
  CHECK_THROWS(TraceArrivals::parse(negative, "n"));
  CHECK_THROWS(TraceArrivals::from_file("/nonexistent/trace"));
}

// What a trace may hold is bounded before anything grows, and what a message echoes is cut.
TEST(loadgen, trace_bounds) {
  auto error = [](const std::string& text) {
    try {
      TraceArrivals::parse(text, "t");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const int64_t span = TraceArrivals::kMaxSpanUs;
  CHECK(error("5\n" + std::to_string(5 + span) + "\n").empty());  // at the limit
  CHECK(error("5\n" + std::to_string(6 + span) + "\n").find("t:2: timestamp") == 0);
  CHECK(error("0\n" + std::string(65, '1') + "\n").find("t:2: a line of 65 bytes") == 0);
  CHECK(error("0\n" + std::string(64, ' ') + "\n").empty());  // 64 bytes: blank, skipped
  const std::string binary = error(std::string("0\n\x01\xff") + "\n");
  CHECK(binary.find("'\\x01\\xff'") != std::string::npos);
  CHECK(binary.find('\x01') == std::string::npos);
  CHECK_THROWS(TraceArrivals::from_file("/dev/zero"));  // a character device: never read
  TraceArrivals t = TraceArrivals::parse(std::string("100\n200\n300\n1100\n"), "t");
  CHECK_EQ(t.count_between(100, 1000), size_t{2});  // 100, 200 (times from the first)
  CHECK_EQ(t.count_between(0, INT64_MAX), size_t{4});
  CHECK_EQ(t.last_us(), int64_t{1000});
}

TEST(loadgen, saturating_time) {
  CHECK_EQ(OpenLoop::saturating_add(INT64_MAX - 5, 10), INT64_MAX);
  CHECK_EQ(OpenLoop::saturating_add(INT64_MIN + 5, -10), INT64_MIN);
  CHECK_EQ(OpenLoop::saturating_add(7, 3), int64_t{10});
}

TEST(loadgen, keeping_up_is_at_most_one_percent_late) {
  Lateness l;
  l.tolerance_us = 100;
  for (int i = 0; i < 99; ++i) l.record(i * 1000, i * 1000 + 100);  // at the tolerance
  l.record(99000, 99101);                                           // beyond it
  CHECK_EQ(l.sent, uint64_t{100});
  CHECK_EQ(l.late, uint64_t{1});
  CHECK(!l.could_not_keep_up());  // 1 % is not more than 1 %
  l.record(100000, 100101);
  l.record(101000, 101000);
  CHECK_EQ(l.late, uint64_t{2});
  CHECK(l.could_not_keep_up());  // 2 of 102
  CHECK_EQ(l.max_late_us, int64_t{101});
}

// ---------------------------------------------------------------- open loop, real time

TEST(loadgen_threads, open_loop_sends_on_schedule) {
  SteadyClock clock;
  ConstantArrivals a(2000);  // every 500 us
  OpenLoop loop(a, clock, 1000000);
  std::vector<int64_t> due, sent;
  Lateness l = loop.run(
      [&](uint64_t seq, int64_t scheduled) {
        CHECK_EQ(seq, uint64_t{due.size()});
        due.push_back(scheduled);
        sent.push_back(clock.now_us());
      },
      100);
  CHECK_EQ(l.sent, uint64_t{100});
  CHECK_EQ(due.size(), size_t{100});
  for (size_t i = 1; i < due.size(); ++i) {
    CHECK_EQ(due[i] - due[i - 1], int64_t{500});
    CHECK(sent[i] >= due[i]);  // never early
  }
  CHECK(!l.could_not_keep_up());  // a 1 s tolerance
}

TEST(loadgen_threads, open_loop_reports_when_it_cannot_keep_up) {
  SteadyClock clock;
  ConstantArrivals a(1000);
  OpenLoop loop(a, clock, 1000);
  // each send takes 3 ms against a 1 ms period: the generator falls behind
  Lateness l = loop.run(
      [](uint64_t, int64_t) { std::this_thread::sleep_for(std::chrono::milliseconds(3)); }, 30);
  CHECK_EQ(l.sent, uint64_t{30});
  CHECK(l.late >= 25);
  CHECK(l.could_not_keep_up());
}

TEST(loadgen_threads, a_generator_stopped_while_behind_did_not_keep_up) {
  // One request every microsecond; the first send stalls 50 ms (a generator descheduled on a
  // busy host) and the run is stopped 20 ms in: the one request sent was on time, but some
  // 49,000 were due more than the tolerance before the stop and never sent.
  SteadyClock clock;
  ConstantArrivals a(1000000);
  OpenLoop loop(a, clock, 1000);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    loop.stop();
  });
  Lateness l = loop.run([](uint64_t seq, int64_t) {
    if (seq == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  });
  stopper.join();
  CHECK_EQ(l.sent, uint64_t{1});
  CHECK_EQ(l.late, uint64_t{0});
  CHECK(l.missed >= 40000);
  CHECK(l.could_not_keep_up());
  // Stopped with nothing overdue (every 100 ms, stopped at 10 ms): nothing missed.
  ConstantArrivals slow(10);
  OpenLoop idle(slow, clock, 1000);
  std::thread stop_idle([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    idle.stop();
  });
  Lateness quiet = idle.run([](uint64_t, int64_t) {});
  stop_idle.join();
  CHECK_EQ(quiet.sent, uint64_t{1});  // the request due at 0
  CHECK_EQ(quiet.missed, uint64_t{0});
  CHECK(!quiet.could_not_keep_up());
}

TEST(loadgen_threads, open_loop_stops_on_duration_trace_end_and_stop) {
  SteadyClock clock;
  ConstantArrivals a(1000);
  OpenLoop by_duration(a, clock, 1000000);
  uint64_t n = 0;
  by_duration.run([&](uint64_t, int64_t) { ++n; }, 0, 10000);  // 10 ms: t = 0..9 ms
  CHECK_EQ(n, uint64_t{10});
  TraceArrivals t({5, 5, 1005});
  OpenLoop replay(t, clock, 1000000);
  CHECK_EQ(replay.run([](uint64_t, int64_t) {}).sent, uint64_t{3});
  ConstantArrivals slow(1);  // the next request is due in 1 s
  OpenLoop stopped(slow, clock, 1000000);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    stopped.stop();
  });
  int64_t t0 = clock.now_us();
  CHECK_EQ(stopped.run([](uint64_t, int64_t) {}).sent, uint64_t{1});
  stopper.join();
  CHECK(clock.now_us() - t0 < 900000);  // woken by stop(), not by the schedule
  CHECK(!stopped.ended());
  CHECK(replay.ended());  // the trace ran out
}

// A next request far beyond any clock (its due time would overflow): the loop waits, in
// slices, without spinning or sending it, until stop().
TEST(loadgen_threads, open_loop_waits_on_a_time_beyond_the_clock) {
  struct Far final : ArrivalSchedule {
    int calls = 0;
    bool next(int64_t* t) override {
      *t = calls++ == 0 ? 0 : INT64_MAX - 1;
      return true;
    }
  } far;
  SteadyClock clock;
  OpenLoop loop(far, clock, 1000000);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    loop.stop();
  });
  CHECK_EQ(loop.run([](uint64_t, int64_t) {}).sent, uint64_t{1});  // wrapped: sent at once
  stopper.join();
  CHECK(!loop.ended());
}

// ---------------------------------------------------------------- closed loop

namespace {

// A server that holds every request until the test lets some go.
struct HoldServer {
  std::mutex m;
  std::condition_variable cv;
  int pending = 0, arrivals = 0, may_leave = 0;
  bool open = false;

  void handle() {
    std::unique_lock<std::mutex> lock(m);
    ++pending;
    ++arrivals;
    cv.notify_all();
    cv.wait(lock, [&] { return open || may_leave > 0; });
    if (!open) --may_leave;
    --pending;
    cv.notify_all();
  }
};

}  // namespace

TEST(loadgen_threads, closed_loop_keeps_n_outstanding) {
  HoldServer server;
  ClosedLoop loop(5);
  loop.start([&](int, uint64_t) { server.handle(); });
  CHECK(wait_for(server.m, server.cv, [&] { return server.pending == 5; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  {
    std::lock_guard<std::mutex> lock(server.m);
    CHECK_EQ(server.arrivals, 5);  // nobody sends again before its request completes
  }
  CHECK_EQ(loop.outstanding(), uint64_t{5});
  {
    std::lock_guard<std::mutex> lock(server.m);
    server.may_leave = 2;
    server.cv.notify_all();
  }
  CHECK(wait_for(server.m, server.cv, [&] { return server.arrivals == 7 && server.pending == 5; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  {
    std::lock_guard<std::mutex> lock(server.m);
    CHECK_EQ(server.arrivals, 7);  // each completion let exactly one more in
    server.open = true;
    server.cv.notify_all();
  }
  loop.stop_and_join();
  CHECK_EQ(loop.max_outstanding(), uint64_t{5});
  CHECK_EQ(loop.outstanding(), uint64_t{0});
}

TEST(loadgen_threads, closed_loop_per_client_count) {
  std::atomic<int> calls{0};
  std::vector<std::atomic<int>> per(3);
  ClosedLoop loop(3);
  loop.start(
      [&](int client, uint64_t) {
        calls.fetch_add(1);
        per[static_cast<size_t>(client)].fetch_add(1);
      },
      10);
  loop.join();
  CHECK_EQ(calls.load(), 30);
  for (auto& p : per) CHECK_EQ(p.load(), 10);
  CHECK_EQ(loop.completed(), uint64_t{30});
  CHECK_THROWS(ClosedLoop(0));
}

// ---------------------------------------------------------------- depth and statistics

TEST(loadgen, depth_series_thins_out_evenly) {
  DepthSeries s(4);
  for (int i = 0; i < 13; ++i) s.offer(i, static_cast<uint64_t>(i));
  std::vector<int64_t> t;
  for (const DepthSeries::Sample& x : s.samples()) t.push_back(x.t_us);
  CHECK(t == (std::vector<int64_t>{0, 4, 8, 12}));
  CHECK_EQ(s.stride(), uint64_t{4});
}

TEST(loadgen_threads, depth_sampler_samples_until_stopped) {
  SteadyClock clock;
  std::atomic<uint64_t> depth{3};
  DepthSampler sampler([&] { return depth.load(); }, clock, 1000, 64);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  depth = 7;
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  sampler.stop();
  const auto& s = sampler.series().samples();
  CHECK(s.size() >= 5);
  CHECK_EQ(s.front().depth, uint64_t{3});
  CHECK_EQ(s.back().depth, uint64_t{7});
  for (size_t i = 1; i < s.size(); ++i) CHECK(s[i].t_us >= s[i - 1].t_us);
}

TEST(loadgen, stats_fill_padding_and_json) {
  ServingStats st(4);
  st.record_batch(3, 4, 300, 300);  // fixed shapes, padded to the compiled batch 4
  st.record_batch(4, 4, 350, 400);  // variable shapes padded to the batch's shape
  CHECK(std::fabs(st.average_fill() - 7.0 / 8.0) < 1e-12);
  CHECK(std::fabs(st.padding_waste() - (1.0 - 650.0 / 800.0)) < 1e-12);
  CHECK(st.batch_histogram() == (std::vector<uint64_t>{0, 0, 0, 1, 1}));
  for (int i = 1; i <= 100; ++i) st.record_request(1000.0 * i, 10.0 * i, 500);
  CHECK_EQ(st.e2e().count(), uint64_t{100});
  CHECK(std::fabs(st.e2e().percentile_ms(50) - 50.0) < 1.0);
  BatcherCounters c;
  c.submitted = 120;
  c.rejected_queue_full = 15;
  c.timed_out_rejected = 3;
  c.timed_out_delayed = 2;
  st.set_counters(c);
  Lateness l;
  l.sent = 120;
  l.late = 2;
  st.set_lateness(l);
  DepthSeries depth(8);
  depth.offer(0, 1);
  depth.offer(500000, 4);
  ascgen::Json j;
  j.open('{');
  st.write_json(j, &depth);
  j.close('}');
  const std::string& s = j.text();
  std::fprintf(stderr, "  %s\n", s.c_str());
  CHECK(s.find("\"batch_stats\": [[3, 1], [4, 1]]") != std::string::npos);
  CHECK(s.find("\"queue_full\": 15") != std::string::npos);
  CHECK(s.find("\"timed_out\": {\"rejected\": 3, \"delayed\": 2}") != std::string::npos);
  CHECK(s.find("\"kept_up\": false") != std::string::npos);
  CHECK(s.find("\"queue_depth\": [[0, 1], [0.5, 4]]") != std::string::npos);
  CHECK(s.find("\"average_fill\": 0.875") != std::string::npos);
}

// ---------------------------------------------------------------- all together

namespace {

// One client's completion: the pipeline thread signals it, the client waits on it.
struct Completion {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  void signal() {
    std::lock_guard<std::mutex> lock(m);
    done = true;
    cv.notify_one();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return done; });
    done = false;
  }
};

}  // namespace

TEST(loadgen_threads, closed_loop_through_the_batcher) {
  SteadyClock clock;
  constexpr int kClients = 12, kEach = 40, kMaxBatch = 4;
  BatcherConfig c;
  c.max_batch = kMaxBatch;
  c.preferred = {2, 4};
  c.max_queue_delay_us = 300;
  c.slots = 2;
  std::vector<std::unique_ptr<Completion>> done;
  for (int i = 0; i < kClients; ++i) done.push_back(std::make_unique<Completion>());
  std::vector<int64_t> sent_us(kClients);
  Batcher batcher(c, clock);
  ServingStats stats(kMaxBatch);
  DepthSampler sampler([&] { return static_cast<uint64_t>(batcher.depth()); }, clock, 500);
  std::thread pipeline([&] {
    Batch b;
    b.items.reserve(kMaxBatch);
    while (batcher.wait_batch(&b)) {
      int64_t start = clock.now_us();
      std::this_thread::sleep_for(std::chrono::microseconds(300));  // "the device"
      int64_t end = clock.now_us();
      stats.record_batch(b, kMaxBatch);
      batcher.release();
      for (const BatchItem& it : b.items) {
        int client = static_cast<int>(it.id >> 32);
        stats.record_request(static_cast<double>(end - sent_us[static_cast<size_t>(client)]),
                             static_cast<double>(it.queue_us), static_cast<double>(end - start));
        done[static_cast<size_t>(client)]->signal();
      }
    }
  });
  ClosedLoop clients(kClients);
  clients.start(
      [&](int client, uint64_t seq) {
        Request r;
        r.id = (static_cast<uint64_t>(client) << 32) | seq;
        sent_us[static_cast<size_t>(client)] = clock.now_us();
        if (batcher.submit(r) == SubmitResult::kQueued) done[static_cast<size_t>(client)]->wait();
      },
      kEach);
  clients.join();
  batcher.close();
  pipeline.join();
  sampler.stop();
  stats.set_counters(batcher.counters());
  CHECK_EQ(stats.e2e().count(), uint64_t{kClients * kEach});
  CHECK(clients.max_outstanding() <= uint64_t{kClients});
  std::vector<uint64_t> h = stats.batch_histogram();
  uint64_t requests = 0;
  for (size_t s = 0; s < h.size(); ++s) requests += s * h[s];
  CHECK_EQ(requests, uint64_t{kClients * kEach});
  CHECK(stats.average_fill() > 0 && stats.average_fill() <= 1.0);
  CHECK(!sampler.series().samples().empty());
}

TEST(loadgen, priority_mix_levels_in_proportion) {
  const PriorityMix m = PriorityMix::parse("1:3");
  CHECK_EQ(m.levels(), 2);
  int at[2] = {0, 0};
  for (uint64_t k = 0; k < 400; ++k) ++at[m.level_of(k)];
  CHECK_EQ(at[0], 100);
  CHECK_EQ(at[1], 300);
  CHECK_EQ(m.level_of(0), 0);
  CHECK_EQ(m.level_of(1), 1);
  CHECK_EQ(m.level_of(4), 0);
  const PriorityMix skip = PriorityMix::parse("0:2:1");  // no level-0 requests
  CHECK_EQ(skip.levels(), 3);
  for (uint64_t k = 0; k < 30; ++k) CHECK(skip.level_of(k) == (k % 3 == 2 ? 2 : 1));
  CHECK_EQ(PriorityMix().level_of(7), -1);  // no mix: the batcher's default level
  CHECK_THROWS(PriorityMix::parse(""));
  CHECK_THROWS(PriorityMix::parse("1:x"));
  CHECK_THROWS(PriorityMix::parse("1::2"));
  CHECK_THROWS(PriorityMix::parse("-1:2"));
  CHECK_THROWS(PriorityMix::parse("0:0"));
  CHECK_THROWS(PriorityMix::parse("1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1:1"));  // 17 levels
}

TEST(loadgen, stats_per_priority_level_and_per_gear) {
  ServingStats st(8, 2);
  for (int i = 1; i <= 50; ++i) st.record_request(2000.0 * i, 100.0 * i, 500, 0);
  for (int i = 1; i <= 10; ++i) st.record_request(9000.0 * i, 8000.0 * i, 500, 1);
  st.record_batch(2, 8, 32 * 70 + 32 * 60, 2 * 32 * 80);
  st.record_shapes(32, 80, 32 * 70, 32 * 60);    // 320 more elements: the rule holds
  st.record_shapes(32, 320, 32 * 300, 32 * 40);  // 8,320 more and 13 % kept: a break
  st.record_shapes(32, 80, 32 * 80, 32 * 80);
  ascgen::Json j;
  j.open('{');
  st.write_json(j);
  j.close('}');
  const std::string& s = j.text();
  std::fprintf(stderr, "  %s\n", s.c_str());
  CHECK(s.find("\"by_priority\": [{\"level\": 0, \"latency_ms\": {\"count\": 50") !=
        std::string::npos);
  CHECK(s.find("{\"level\": 1, \"latency_ms\": {\"count\": 10") != std::string::npos);
  CHECK(s.find("\"rule_breaks\": 1") != std::string::npos);
  CHECK(s.find("\"gears\": [[32, 80, 2], [32, 320, 1]]") != std::string::npos);
  ServingStats one(8);  // one level: no per-level report
  one.record_request(1000, 10, 500, 0);
  ascgen::Json k;
  k.open('{');
  one.write_json(k);
  k.close('}');
  CHECK(k.text().find("by_priority") == std::string::npos);
  CHECK(k.text().find("\"padding\"") == std::string::npos);
}
