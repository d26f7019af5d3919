// The device timeline in wall-clock time: concurrent streams overlap, one
// stream serialises, contention queues, multi-unit engines run in parallel,
// the scheduler and host submit costs add up. Margins are generous: the
// machine is two noisy shared cores.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "check.h"
#include "core/task.h"
#include "session.h"

using namespace testing_sim;

namespace {

using Wall = std::chrono::steady_clock;

double seconds_since(Wall::time_point t0) {
  return std::chrono::duration<double>(Wall::now() - t0).count();
}

aclError on_engine(aclrtStream s, sim::Engine e, double us) {
  sim::TaskSpec spec;
  spec.engine = e;
  spec.service_us = us;
  spec.name = "timed";
  return sim::submit("test_timing", s, std::move(spec));
}

// Wall seconds for `per_stream` tasks of `us` on each engine in `engines`,
// one stream per entry, all submitted before waiting.
double run_streams(const std::vector<sim::Engine>& engines, int per_stream, double us) {
  std::vector<aclrtStream> streams(engines.size());
  for (auto& s : streams)
    if (aclrtCreateStream(&s) != ACL_SUCCESS) return -1;
  Wall::time_point t0 = Wall::now();
  for (int i = 0; i < per_stream; ++i)
    for (size_t k = 0; k < engines.size(); ++k) on_engine(streams[k], engines[k], us);
  for (auto s : streams) aclrtSynchronizeStream(s);
  double wall = seconds_since(t0);
  for (auto s : streams) aclrtDestroyStream(s);
  return wall;
}

// Wall seconds for `n` rounds of one task per engine in `engines`, all on one stream.
double run_one_stream(const std::vector<sim::Engine>& engines, int n, double us) {
  aclrtStream s = nullptr;
  if (aclrtCreateStream(&s) != ACL_SUCCESS) return -1;
  Wall::time_point t0 = Wall::now();
  for (int i = 0; i < n; ++i)
    for (sim::Engine e : engines) on_engine(s, e, us);
  aclrtSynchronizeStream(s);
  double wall = seconds_since(t0);
  aclrtDestroyStream(s);
  return wall;
}

double best_of(int tries, const std::function<double()>& measure) {
  double best = measure();
  for (int i = 1; i < tries; ++i) best = std::min(best, measure());
  return best;
}

}  // namespace

TEST(timing, two_streams_overlap_one_stream_serialises) {
  CHECK_OK(open_device(1.0));
  const int n = 20;
  const double us = 2000;  // 40 ms of engine time per engine
  // Best of three: noise on a shared machine only ever adds wall time.
  double serial =
      best_of(3, [&] { return run_one_stream({sim::Engine::kH2D, sim::Engine::kD2H}, n, us); });
  double overlapped =
      best_of(3, [&] { return run_streams({sim::Engine::kH2D, sim::Engine::kD2H}, n, us); });
  std::printf("serial %.1f ms, two streams %.1f ms\n", serial * 1e3, overlapped * 1e3);
  CHECK(serial >= 0.080);             // 2 x 20 x 2 ms, serialised
  CHECK(overlapped >= 0.040);         // each engine still needs 40 ms
  CHECK(overlapped < serial * 0.75);  // ideal 0.5
}

TEST(timing, contention_on_one_unit_queues) {
  CHECK_OK(open_device(1.0));
  // h2d has one unit: two streams of 10 x 3 ms take ~60 ms, not ~30 ms.
  double both = run_streams({sim::Engine::kH2D, sim::Engine::kH2D}, 10, 3000);
  std::printf("two streams on one h2d unit: %.1f ms\n", both * 1e3);
  CHECK(both >= 0.058);
}

TEST(timing, multi_unit_engine_runs_units_in_parallel) {
  CHECK_OK(open_device(1.0));
  // vpc has 4 units: 4 streams x 5 x 4 ms ~ 20 ms; 8 streams ~ 40 ms.
  std::vector<sim::Engine> four(4, sim::Engine::kVpc), eight(8, sim::Engine::kVpc);
  double t4 = best_of(2, [&] { return run_streams(four, 5, 4000); });
  double t8 = best_of(2, [&] { return run_streams(eight, 5, 4000); });
  double t1 = best_of(2, [&] { return run_streams({sim::Engine::kVpc}, 5, 4000); });
  std::printf("vpc: 1 stream %.1f ms, 4 streams %.1f ms, 8 streams %.1f ms\n", t1 * 1e3, t4 * 1e3,
              t8 * 1e3);
  // Ratios measured in one run (a busy machine only adds wall time): four streams on four
  // units take about the time of one (four units serialised would take 4x), eight take two.
  CHECK(t4 >= 0.0195 && t4 < t1 * 2.0);
  CHECK(t8 >= 0.039 && t8 > t4 * 1.5);
}

TEST(timing, time_scale_speeds_up_wall_time_not_model_time) {
  CHECK_OK(open_device(0.1));
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  double m0 = aclsimNowUs();
  Wall::time_point t0 = Wall::now();
  for (int i = 0; i < 10; ++i) CHECK_OK(on_engine(s, sim::Engine::kAicore, 10000));
  CHECK_OK(aclrtSynchronizeStream(s));
  double wall = seconds_since(t0), model_us = aclsimNowUs() - m0;
  std::printf("100 ms of model time took %.1f ms of wall time\n", wall * 1e3);
  CHECK(model_us >= 100000);
  CHECK(wall >= 0.0098);  // never early: 100 ms of model time at scale 0.1
  CHECK_OK(aclrtDestroyStream(s));
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());
  // The same work at scale 1, in the same run (a busy machine only adds wall time to both):
  // the scaled run is much faster (ideal 10x), not just a little.
  CHECK_OK(open_device(1.0));
  CHECK_OK(aclrtCreateStream(&s));
  t0 = Wall::now();
  for (int i = 0; i < 10; ++i) CHECK_OK(on_engine(s, sim::Engine::kAicore, 10000));
  CHECK_OK(aclrtSynchronizeStream(s));
  double unscaled = seconds_since(t0);
  std::printf("at scale 1: %.1f ms\n", unscaled * 1e3);
  CHECK(wall < unscaled * 0.5);
  CHECK_OK(aclrtDestroyStream(s));
}

TEST(timing, scheduler_serialises_dispatch_across_streams) {
  CHECK_OK(open_device(0.1));
  std::vector<aclrtStream> streams(4);
  for (auto& s : streams) CHECK_OK(aclrtCreateStream(&s));
  double m0 = aclsimNowUs();
  for (int i = 0; i < 500; ++i)
    for (auto s : streams) CHECK_OK(on_engine(s, sim::Engine::kControl, 0));
  for (auto s : streams) CHECK_OK(aclrtSynchronizeStream(s));
  double model_us = aclsimNowUs() - m0;
  std::printf("2000 zero-duration tasks: %.0f us of model time\n", model_us);
  CHECK(model_us >= 2000 * 5.0);  // engines.scheduler.per_task_us = 5
  for (auto s : streams) CHECK_OK(aclrtDestroyStream(s));
}

// engines.aicore.switch_us + switch_fraction x service: a unit whose previous task
// came from another stream pays it; one stream never does. The test profile sets
// 0.1 ms + 25 % of the 1 ms tasks = 0.35 ms. Measured with events (model time), from a
// start that the first stream reaches only after a 20 ms hold: by then every task is
// queued (the other streams wait for it too), so the host's pace never counts (on an idle
// stream a late submission did: 10 tasks measured above 10.55 ms under TSan).
float aicore_ms(const std::vector<aclrtStream>& streams, int per_stream) {
  aclrtEvent start = nullptr, end = nullptr;
  if (aclrtCreateEvent(&start) != ACL_SUCCESS || aclrtCreateEvent(&end) != ACL_SUCCESS) return -1;
  aclsimHoldStreamAsync(streams[0], 20000);
  aclrtRecordEvent(start, streams[0]);
  std::vector<aclrtEvent> gate(streams.size(), nullptr);
  for (size_t k = 1; k < streams.size(); ++k) {  // one event per waiter
    aclrtCreateEvent(&gate[k]);
    aclrtRecordEvent(gate[k], streams[0]);
    aclrtStreamWaitEvent(streams[k], gate[k]);
  }
  for (int i = 0; i < per_stream; ++i)
    for (aclrtStream s : streams) on_engine(s, sim::Engine::kAicore, 1000);
  std::vector<aclrtEvent> done(streams.size(), nullptr);
  for (size_t k = 1; k < streams.size(); ++k) {  // the first stream's end waits for the others
    aclrtCreateEvent(&done[k]);
    aclrtRecordEvent(done[k], streams[k]);
    aclrtStreamWaitEvent(streams[0], done[k]);
  }
  aclrtRecordEvent(end, streams[0]);
  for (aclrtStream s : streams) aclrtSynchronizeStream(s);
  float ms = -1;
  aclrtEventElapsedTime(&ms, start, end);
  for (size_t k = 1; k < streams.size(); ++k) {
    aclrtDestroyEvent(done[k]);
    aclrtDestroyEvent(gate[k]);
  }
  aclrtDestroyEvent(start);
  aclrtDestroyEvent(end);
  return ms;
}

TEST(timing, aicore_pays_switch_between_streams_only) {
  use_profile(write_profile(
      "switch", {{"engines.aicore.switch_us", "100"}, {"engines.aicore.switch_fraction", "0.25"}}));
  // Model time 5x slower than wall time: the 20 submissions finish inside the leading hold
  // (100 ms of wall time) even on a loaded machine under TSan.
  CHECK_OK(open_device(5.0));
  aclrtStream a = nullptr, b = nullptr;
  CHECK_OK(aclrtCreateStream(&a));
  CHECK_OK(aclrtCreateStream(&b));
  float one = aicore_ms({a}, 10), two = aicore_ms({a, b}, 10);
  std::printf("aicore: one stream 10 x 1 ms in %.3f ms, two streams 20 x 1 ms in %.3f ms\n", one,
              two);
  CHECK(one >= 10.0f && one < 10.0f + 0.2f + 0.35f);  // service + dispatch, at most one switch
  CHECK(two >= 20.0f + 18 * 0.35f);                   // alternating: nearly every one switches
  CHECK(two < 20.0f + 20 * 0.35f + 1.5f);
  CHECK_OK(aclrtDestroyStream(a));
  CHECK_OK(aclrtDestroyStream(b));
}

TEST(timing, host_submit_cost_is_charged) {
  CHECK_OK(open_device(1.0));
  void *h = nullptr, *d = nullptr;
  CHECK_OK(aclrtMallocHost(&h, 64));
  CHECK_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  Wall::time_point t0 = Wall::now();
  for (int i = 0; i < 2000; ++i) CHECK_OK(aclrtMemsetAsync(d, 64, i, 64, nullptr));
  double wall = seconds_since(t0);
  std::printf("2000 async calls took %.1f ms on the host\n", wall * 1e3);
  CHECK(wall >= 2000 * 3e-6 - 0.0005);  // engines.host.submit_us = 3, minus the allowed lead
  CHECK_OK(aclrtSynchronizeStream(nullptr));
  CHECK_OK(aclrtFree(d));
  CHECK_OK(aclrtFreeHost(h));
}

// The calling thread's host clock (aclsimHostNowUs) advances by
// engines.host.submit_us per asynchronous call, in model time, whether or not
// the thread slept to let the model clock catch up: how late a sleep woke is
// the simulator's timer slack, not the host's work. The slowest tenth of the
// calls is left out (a busy machine puts the thread aside now and then).
TEST(timing, host_clock_advances_by_the_submit_cost) {
  CHECK_OK(
      open_device(100.0));  // 3 model us = 300 wall us: more than a call's CPU, even under TSan
  void* d = nullptr;
  CHECK_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  std::vector<double> calls;
  calls.reserve(400);
  double before = aclsimHostNowUs();
  for (int i = 0; i < 400; ++i) {
    CHECK_OK(aclrtMemsetAsync(d, 64, i, 64, nullptr));
    double after = aclsimHostNowUs();
    calls.push_back(after - before);
    before = after;
  }
  double model_now = aclsimNowUs();  // read first: the host clock is never behind it
  CHECK(aclsimHostNowUs() >= model_now);
  std::sort(calls.begin(), calls.end());
  double sum = 0;
  for (size_t i = 0; i < calls.size() * 9 / 10; ++i) sum += calls[i];
  double mean = sum / static_cast<double>(calls.size() * 9 / 10);
  std::printf("host clock: median call %.3f, mean of the fastest 90 %% %.3f model us\n",
              calls[calls.size() / 2], mean);
  // 3 us plus what the thread's own CPU adds; the timer's slack, charged, made
  // the mean 3.5-3.6 us. Under TSan a call's own CPU is several times longer
  // and adds to many calls: only the lower bound holds there. The upper bound
  // is on the fastest tenth: on a loaded host (a CI worker beside another) the
  // thread is descheduled within more than half of the calls, and the wall time
  // it waits is the host's, not the submit cost's (the median reached 3.1 there).
  CHECK(calls[0] > 2.99 && calls[calls.size() / 2] > 2.99 && mean > 2.99);
#if !defined(__SANITIZE_THREAD__)
  CHECK(calls[calls.size() / 10] < 3.1);
#endif
  CHECK_OK(aclrtSynchronizeStream(nullptr));
  CHECK_OK(aclrtFree(d));
}

// The first aclrtSetDevice of a process opens the device: the profile's
// engines.host.device_open_ms of model time (ACL_SIM_DEVICE_OPEN_MS overrides
// it); a second set of an open device costs nothing.
TEST(timing, device_open) {
  use_profile(write_profile("open", {{"engines.host.device_open_ms", "400"}}));
  unsetenv("ACL_SIM_DEVICE_OPEN_MS");
  set_scale(0.05);  // 400 model ms = 20 wall ms
  CHECK_OK(aclInit(nullptr));
  double t0 = aclsimNowUs();
  CHECK_OK(aclrtSetDevice(0));
  double opened = aclsimNowUs() - t0;
  CHECK_OK(aclrtSetDevice(0));
  double again = aclsimNowUs() - t0 - opened;
  std::printf("device open %.0f model us, second set %.0f us\n", opened, again);
  CHECK(opened >= 400000.0);
  CHECK(again < 100000.0);
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());

  setenv("ACL_SIM_DEVICE_OPEN_MS", "0", 1);  // the override wins
  CHECK_OK(aclInit(nullptr));
  t0 = aclsimNowUs();
  CHECK_OK(aclrtSetDevice(0));
  CHECK(aclsimNowUs() - t0 < 100000.0);
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());

  setenv("ACL_SIM_DEVICE_OPEN_MS", "soon", 1);
  CHECK_OK(aclInit(nullptr));
  CHECK_RULE(aclrtSetDevice(0), ACL_ERROR_INVALID_PARAM, "device.open_ms");
  setenv("ACL_SIM_DEVICE_OPEN_MS", "0", 1);
}

// Large copies move their bytes on mover threads while they run (src/core/mover.h),
// so wall time follows model time: one 64 MiB copy takes its model time (x the
// time scale), and two on different streams and engines (H2D and D2H, which
// the model runs side by side) take that same time together, not twice. The
// clock is slowed so that the model, not the host's memcpy, sets the pace: the
// wall time of a 64 MiB copy is at least 4 times what two host memcpys of it
// take at once (host_memcpy_pair_s) (scale >= 4: 64 MiB at the 310's 3 GB/s PCIe is ~90 ms of wall
// time, against ~10 ms of memcpy here; more under sanitizers). Moving the bytes after the modelled
// end, as before, adds one memcpy per copy (>= 25 %). Median of 5: noise on two shared cores only
// adds.
namespace {

struct CopyBuffers {
  std::vector<void*> host, dev;
  explicit CopyBuffers(size_t bytes, int n) {
    for (int i = 0; i < n; ++i) {
      void *h = nullptr, *d = nullptr;
      aclrtMallocHost(&h, bytes);
      aclrtMalloc(&d, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
      if (h != nullptr) std::memset(h, i + 1, bytes);  // pre-touch: no page faults timed
      if (d != nullptr) std::memset(d, i + 2, bytes);
      host.push_back(h);
      dev.push_back(d);
    }
  }
  ~CopyBuffers() {
    for (void* h : host) aclrtFreeHost(h);
    for (void* d : dev) aclrtFree(d);
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Wall time of copying `bytes` once on each of `streams` (stream k: H2D when k
// is even, D2H when odd), divided by the wall time the model gives one copy.
double copy_wall_ratio(CopyBuffers& b, const std::vector<aclrtStream>& streams, size_t bytes,
                       double scale) {
  double model_us = sim::copy_service_us(sim::Engine::kH2D, bytes);
  Wall::time_point t0 = Wall::now();
  for (size_t k = 0; k < streams.size(); ++k) {
    if (k % 2 == 0)
      aclrtMemcpyAsync(b.dev[k], bytes, b.host[k], bytes, ACL_MEMCPY_HOST_TO_DEVICE, streams[k]);
    else
      aclrtMemcpyAsync(b.host[k], bytes, b.dev[k], bytes, ACL_MEMCPY_DEVICE_TO_HOST, streams[k]);
  }
  for (aclrtStream s : streams) aclrtSynchronizeStream(s);
  return seconds_since(t0) / (model_us * 1e-6 * scale);
}

}  // namespace

// Median wall seconds of two host memmoves of `bytes` on two threads at once
// (what the two movers need for two overlapping copies: more than one memmove
// when the other core is busy, or under a sanitizer's interceptors).
double host_memcpy_pair_s(size_t bytes) {
  std::vector<char> a(bytes, 1), b(bytes, 2), c(bytes, 3), d(bytes, 4);
  std::vector<double> t;
  for (int i = 0; i < 3; ++i) {
    Wall::time_point t0 = Wall::now();
    std::thread other([&] { std::memmove(d.data(), c.data(), bytes); });
    std::memmove(b.data(), a.data(), bytes);
    other.join();
    t.push_back(seconds_since(t0));
  }
  return median(t);
}

// The sanitizer builds copy 1 and 4 MiB, not 16 and 64: their point is the movers' threads and
// memory (the same code: copies >= mover::kMinBytes), and the bounds hold as well, while the clock
// slowed for the sanitizers' memcpy (scale ~100 under TSan) made the large copies 40 s of waiting.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr size_t kCopyMiB[] = {1, 4};
#else
constexpr size_t kCopyMiB[] = {16, 64};
#endif

TEST(copy_wall, copy_wall_time_matches_model_and_copies_overlap) {
  const size_t big = kCopyMiB[1] << 20;
  CHECK_OK(open_device(1.0));  // to read the profile's copy time
  double model_s = sim::copy_service_us(sim::Engine::kH2D, big) * 1e-6;
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());
  const double scale = std::max(4.0, 4.0 * host_memcpy_pair_s(big) / model_s);
  std::printf("time scale %.1f\n", scale);
  CHECK_OK(open_device(scale));
  std::vector<aclrtStream> streams(2);
  for (auto& s : streams) CHECK_OK(aclrtCreateStream(&s));
  CHECK(sim::copy_service_us(sim::Engine::kH2D, 1 << 20) ==
        sim::copy_service_us(sim::Engine::kD2H, 1 << 20));  // the two overlap exactly
  for (size_t mib : kCopyMiB) {
    size_t bytes = mib << 20;
    CopyBuffers b(bytes, 2);
    CHECK(b.host[1] != nullptr && b.dev[1] != nullptr);
    std::vector<double> one, two;
    for (int i = 0; i < 5; ++i) {
      one.push_back(copy_wall_ratio(b, {streams[0]}, bytes, scale));
      two.push_back(copy_wall_ratio(b, streams, bytes, scale));
    }
    double r1 = median(one), r2 = median(two);
    std::printf("%zu MiB: one copy %.3f x its model time, two on two streams %.3f x\n", mib, r1,
                r2);
    // Never early (the model time is a floor), and two copies on two streams overlap: they take
    // about the time of one, far from the two of a serial engine. The closeness to 1.00 (1.00 to
    // 1.05 on a quiet machine) is the figure this test prints,
    // not a bound here: a busy machine (2 shared cores) delays the movers' wake-ups.
    CHECK(r1 >= 0.99 && r1 <= 1.5);
    CHECK(r2 >= 0.99 && r2 <= 1.5);
  }
  for (auto s : streams) CHECK_OK(aclrtDestroyStream(s));
}
