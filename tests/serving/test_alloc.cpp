// Nothing allocates per request in the steady state: the batcher's submit, timeouts, batch
// forming and release, and the statistics' records. Counted by replacing the global
// operator new for this test binary (armed only inside the measured loops).
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "ascgen_batcher.h"
#include "ascgen_loadgen.h"
#include "ascgen_serving_stats.h"
#include "check.h"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<uint64_t> g_allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
// Not inlined: GCC would see free() on a pointer from operator new and warn.
__attribute__((noinline)) void operator delete(void* p) noexcept {
  std::free(p);
}
__attribute__((noinline)) void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

using namespace ascgen::serving;

namespace {

class FakeClock final : public Clock {
 public:
  int64_t now_us() const override { return t_.load(); }
  void advance(int64_t dt) { t_.fetch_add(dt); }

 private:
  std::atomic<int64_t> t_{0};
};

}  // namespace

TEST(alloc, batcher_steady_state) {
  FakeClock clock;
  BatcherConfig c;
  c.max_batch = 8;
  c.preferred = {4, 8};
  c.max_queue_delay_us = 100;
  c.priority_levels = 2;
  QueuePolicy p;
  p.max_queue_size = 64;
  p.default_timeout_us = 1000;
  c.policies = {p};
  uint64_t drops = 0;
  Batcher b(c, clock, [&](const Dropped&) { ++drops; });
  Batch batch;
  auto cycle = [&](uint64_t i) {
    for (int k = 0; k < 5; ++k) {
      Request r;
      r.id = i * 8 + static_cast<uint64_t>(k);
      r.priority = k % 2;
      r.shape = make_shape({3, 32, 100 + k});
      b.submit(r);
    }
    b.try_form(&batch);  // a preferred 4
    b.release();
    clock.advance(100);
    b.try_form(&batch);  // the fifth, its delay expired
    b.release();
    Request late;
    late.id = i;
    b.submit(late);
    b.try_form(&batch);  // no slot: the request times out
    clock.advance(1000);
    b.try_form(&batch);
    b.release();
    b.release();
  };
  cycle(0);  // warm-up: the Batch reserves its items once
  g_allocations = 0;
  g_counting = true;
  for (uint64_t i = 1; i <= 1000; ++i) cycle(i);
  g_counting = false;
  CHECK_EQ(g_allocations.load(), uint64_t{0});
  CHECK(drops > 0);
  CHECK(b.counters().batches > 1000);
}

TEST(alloc, stats_steady_state) {
  ServingStats st(8, 3);
  Lateness l;
  DepthSeries depth(64);
  g_allocations = 0;
  g_counting = true;
  for (int i = 0; i < 10000; ++i) {
    st.record_request(1000 + i, 10, 500, i % 3);
    st.record_batch(i % 8 + 1, 8, 100, 120);
    st.record_shapes(32, 80 * (i % 3 + 1), 32 * 80, 32 * 40);  // up to 128 gears: reserved
    l.record(i, i + 3);
    depth.offer(i, static_cast<uint64_t>(i % 5));
  }
  g_counting = false;
  CHECK_EQ(g_allocations.load(), uint64_t{0});
}

TEST(alloc, the_counter_counts) {
  g_allocations = 0;
  g_counting = true;
  int* p = new int(7);
  g_counting = false;
  delete p;
  CHECK_EQ(g_allocations.load(), uint64_t{1});
}
