// The dynamic batcher's rule, branch by branch, against a fake clock; then the blocking
// interface with real threads (the TSan build's subject).
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "ascgen_batcher.h"
#include "check.h"

using namespace ascgen::serving;

namespace {

class FakeClock final : public Clock {
 public:
  int64_t now_us() const override { return t_.load(); }
  void set(int64_t t) { t_.store(t); }
  void advance(int64_t dt) { t_.fetch_add(dt); }

 private:
  std::atomic<int64_t> t_{0};
};

Request req(uint64_t id, int priority = -1, int64_t timeout_us = 0) {
  Request r;
  r.id = id;
  r.priority = priority;
  r.timeout_us = timeout_us;
  return r;
}

Request shaped(uint64_t id, std::initializer_list<int64_t> dims) {
  Request r = req(id);
  r.shape = make_shape(dims);
  return r;
}

BatcherConfig config(int max_batch, std::vector<int> preferred, int64_t delay_us) {
  BatcherConfig c;
  c.max_batch = max_batch;
  c.preferred = std::move(preferred);
  c.max_queue_delay_us = delay_us;
  return c;
}

void submit_n(Batcher& b, uint64_t first, int n) {
  for (int i = 0; i < n; ++i) b.submit(req(first + static_cast<uint64_t>(i)));
}

std::vector<uint64_t> ids(const Batch& batch) {
  std::vector<uint64_t> out;
  for (const BatchItem& it : batch.items) out.push_back(it.id);
  return out;
}

}  // namespace

// ---------------------------------------------------------------- the rule

TEST(batcher, preferred_size_reached_sends_at_once) {
  FakeClock clock;
  Batcher b(config(16, {4, 8}, 1000), clock);
  Batch batch;
  submit_n(b, 1, 3);
  int64_t wake = 0;
  CHECK(!b.try_form(&batch, &wake));
  CHECK_EQ(wake, int64_t{1000});  // the oldest request's delay ends then
  b.submit(req(4));
  CHECK(b.try_form(&batch));
  CHECK_EQ(batch.size(), size_t{4});
  CHECK(batch.reason == BatchReason::kPreferred);
  CHECK(ids(batch) == (std::vector<uint64_t>{1, 2, 3, 4}));  // in arrival order
  CHECK_EQ(batch.items[0].queue_us, int64_t{0});
}

TEST(batcher, largest_preferred_reachable_now) {
  FakeClock clock;
  BatcherConfig c = config(16, {8, 2, 4}, 1000);  // unsorted on purpose
  c.slots = 4;
  Batcher b(c, clock);
  Batch batch;
  submit_n(b, 1, 7);
  CHECK(b.try_form(&batch));
  CHECK_EQ(batch.size(), size_t{4});  // 8 is not reachable, 4 is the largest that is
  CHECK(batch.reason == BatchReason::kPreferred);
  CHECK(b.try_form(&batch));
  CHECK_EQ(batch.size(), size_t{2});
  CHECK(ids(batch) == (std::vector<uint64_t>{5, 6}));
  CHECK(!b.try_form(&batch));  // one left: no preferred size, its delay has not expired
  CHECK_EQ(b.depth(), size_t{1});
}

TEST(batcher, delay_not_expired_waits) {
  FakeClock clock;
  Batcher b(config(16, {4}, 1000), clock);
  Batch batch;
  submit_n(b, 1, 2);
  clock.set(999);
  int64_t wake = 0;
  CHECK(!b.try_form(&batch, &wake));
  CHECK_EQ(wake, int64_t{1000});
  CHECK_EQ(b.depth(), size_t{2});
}

TEST(batcher, delay_expired_sends_partial) {
  FakeClock clock;
  Batcher b(config(16, {4}, 1000), clock);
  Batch batch;
  b.submit(req(1));
  clock.set(500);
  b.submit(req(2));
  clock.set(999);
  CHECK(!b.try_form(&batch));
  clock.set(1000);  // the oldest has waited max_queue_delay_us
  CHECK(b.try_form(&batch));
  CHECK_EQ(batch.size(), size_t{2});
  CHECK(batch.reason == BatchReason::kDelayExpired);
  CHECK_EQ(batch.items[0].queue_us, int64_t{1000});
  CHECK_EQ(batch.items[1].queue_us, int64_t{500});
  CHECK_EQ(batch.formed_us, int64_t{1000});
}

TEST(batcher, no_preferred_and_no_delay_sends_what_is_there) {
  FakeClock clock;
  Batcher b(config(8, {}, 0), clock);  // Triton's `dynamic_batching { }`
  Batch batch;
  submit_n(b, 1, 3);
  CHECK(b.try_form(&batch));
  CHECK_EQ(batch.size(), size_t{3});
  CHECK(batch.reason == BatchReason::kDelayExpired);
}

TEST(batcher, max_batch_caps_the_batch) {
  FakeClock clock;
  BatcherConfig c = config(4, {}, 100);
  c.slots = 3;
  Batcher b(c, clock);
  Batch batch;
  submit_n(b, 1, 10);
  CHECK(b.try_form(&batch));
  CHECK_EQ(batch.size(), size_t{4});
  CHECK(batch.reason == BatchReason::kMaxBatch);
  CHECK(b.try_form(&batch));
  CHECK(ids(batch) == (std::vector<uint64_t>{5, 6, 7, 8}));
  int64_t wake = 0;
  CHECK(!b.try_form(&batch, &wake));  // 2 left, below max_batch: wait for the delay
  CHECK_EQ(wake, int64_t{100});
  clock.set(100);
  CHECK(b.try_form(&batch));
  CHECK(ids(batch) == (std::vector<uint64_t>{9, 10}));
  BatcherCounters n = b.counters();
  CHECK_EQ(n.batches, uint64_t{3});
  CHECK_EQ(n.by_reason[static_cast<int>(BatchReason::kMaxBatch)], uint64_t{2});
  CHECK_EQ(n.by_reason[static_cast<int>(BatchReason::kDelayExpired)], uint64_t{1});
}

TEST(batcher, max_batch_is_sent_even_when_not_preferred) {
  FakeClock clock;
  Batcher b(config(6, {4}, 1000), clock);
  Batch batch;
  submit_n(b, 1, 6);
  CHECK(b.try_form(&batch));
  CHECK_EQ(batch.size(), size_t{6});
  CHECK(batch.reason == BatchReason::kMaxBatch);
}

TEST(batcher, no_free_slot_no_batch) {
  FakeClock clock;
  Batcher b(config(2, {}, 0), clock);  // one slot
  Batch batch;
  submit_n(b, 1, 4);
  CHECK(b.try_form(&batch));
  CHECK_EQ(b.free_slots(), 0);
  int64_t wake = 0;
  CHECK(!b.try_form(&batch, &wake));  // two requests wait for the slot
  CHECK_EQ(wake, kNever);             // only a release can change that
  CHECK_EQ(b.depth(), size_t{2});
  b.release();
  CHECK_EQ(b.free_slots(), 1);
  CHECK(b.try_form(&batch));
  CHECK(ids(batch) == (std::vector<uint64_t>{3, 4}));
  b.release();
  b.release();  // an extra release never creates a slot
  CHECK_EQ(b.free_slots(), 1);
}

TEST(batcher, higher_priority_served_first) {
  FakeClock clock;
  BatcherConfig c = config(2, {}, 0);
  c.priority_levels = 3;
  c.default_priority = 2;
  c.slots = 3;
  Batcher b(c, clock);
  Batch batch;
  b.submit(req(1));     // default level 2
  b.submit(req(2, 1));  // level 1
  b.submit(req(3, 0));  // level 0, the highest
  b.submit(req(4, 1));
  b.submit(req(5, 9));  // beyond the last level: the last
  CHECK(b.try_form(&batch));
  CHECK(ids(batch) == (std::vector<uint64_t>{3, 2}));
  CHECK_EQ(batch.items[0].level, 0);
  CHECK(b.try_form(&batch));
  CHECK(ids(batch) == (std::vector<uint64_t>{4, 1}));  // same level: arrival order
  CHECK(b.try_form(&batch));
  CHECK(ids(batch) == (std::vector<uint64_t>{5}));
  CHECK_EQ(batch.items[0].level, 2);
}

TEST(batcher, timeout_reject) {
  FakeClock clock;
  BatcherConfig c = config(4, {}, 10000);
  QueuePolicy p;
  p.default_timeout_us = 500;
  p.timeout_action = TimeoutAction::kReject;
  c.policies = {p};
  std::vector<Dropped> dropped;
  Batcher b(c, clock, [&](const Dropped& d) { dropped.push_back(d); });
  Batch batch;
  b.submit(req(1));
  clock.set(100);
  b.submit(req(2));
  int64_t wake = 0;
  CHECK(!b.try_form(&batch, &wake));
  CHECK_EQ(wake, int64_t{500});  // the first deadline comes before the delay's end
  clock.set(500);
  CHECK(!b.try_form(&batch, &wake));
  CHECK_EQ(dropped.size(), size_t{1});
  CHECK_EQ(dropped[0].id, uint64_t{1});
  CHECK(dropped[0].reason == DropReason::kTimeout);
  CHECK_EQ(dropped[0].queue_us, int64_t{500});
  CHECK_EQ(wake, int64_t{600});
  CHECK_EQ(b.depth(), size_t{1});
  clock.set(600);
  CHECK(!b.try_form(&batch));
  CHECK_EQ(b.depth(), size_t{0});
  CHECK_EQ(b.counters().timed_out_rejected, uint64_t{2});
}

TEST(batcher, timeouts_apply_while_no_slot_is_free) {
  FakeClock clock;
  BatcherConfig c = config(1, {}, 0);
  QueuePolicy p;
  p.default_timeout_us = 50;
  c.policies = {p};
  int drops = 0;
  Batcher b(c, clock, [&](const Dropped&) { ++drops; });
  Batch batch;
  submit_n(b, 1, 2);
  CHECK(b.try_form(&batch));
  int64_t wake = 0;
  CHECK(!b.try_form(&batch, &wake));
  CHECK_EQ(wake, int64_t{50});  // no slot, but the deadline still wakes the batcher
  clock.set(50);
  CHECK(!b.try_form(&batch));
  CHECK_EQ(drops, 1);
}

TEST(batcher, timeout_delay_goes_behind_its_level) {
  FakeClock clock;
  BatcherConfig c = config(2, {}, 0);
  c.priority_levels = 2;
  QueuePolicy p;
  p.default_timeout_us = 500;
  p.timeout_action = TimeoutAction::kDelay;
  c.policies = {p};
  int drops = 0;
  Batcher b(c, clock, [&](const Dropped&) { ++drops; });
  Batch batch;
  b.submit(req(100, 0));
  CHECK(b.try_form(&batch));  // takes the only slot
  b.submit(req(1, 0));        // deadline 500
  clock.set(400);
  b.submit(req(2, 0));  // deadline 900
  b.submit(req(3, 1));  // level 1, deadline 900
  clock.set(600);
  CHECK(!b.try_form(&batch));  // no slot; request 1 times out and is delayed
  CHECK_EQ(b.counters().timed_out_delayed, uint64_t{1});
  b.submit(req(4, 0));
  b.release();
  CHECK(b.try_form(&batch));
  CHECK(ids(batch) == (std::vector<uint64_t>{2, 4}));  // live level-0 requests first
  b.release();
  CHECK(b.try_form(&batch));
  // then the delayed level-0 request, before level 1 (Triton: "until all other requests at
  // the same (or higher) priority levels that have not reached their timeouts")
  CHECK(ids(batch) == (std::vector<uint64_t>{1, 3}));
  CHECK(batch.items[0].delayed);
  CHECK(!batch.items[1].delayed);
  CHECK_EQ(drops, 0);
}

TEST(batcher, delayed_request_does_not_time_out_again) {
  FakeClock clock;
  BatcherConfig c = config(1, {}, 0);
  QueuePolicy p;
  p.default_timeout_us = 10;
  p.timeout_action = TimeoutAction::kDelay;
  c.policies = {p};
  Batcher b(c, clock);
  Batch batch;
  submit_n(b, 1, 2);
  CHECK(b.try_form(&batch));
  clock.set(1000000);
  CHECK(!b.try_form(&batch));
  b.release();
  CHECK(b.try_form(&batch));
  CHECK(batch.items[0].delayed);
  CHECK_EQ(b.counters().timed_out_delayed, uint64_t{1});
}

TEST(batcher, timeout_override_only_shortens) {
  FakeClock clock;
  BatcherConfig c = config(8, {}, 100000);
  QueuePolicy p;
  p.default_timeout_us = 1000;
  p.allow_timeout_override = true;
  c.policies = {p};
  std::vector<uint64_t> dropped;
  Batcher b(c, clock, [&](const Dropped& d) { dropped.push_back(d.id); });
  Batch batch;
  b.submit(req(1, -1, 200));   // shorter: 200
  b.submit(req(2, -1, 5000));  // longer: stays 1000
  clock.set(200);
  CHECK(!b.try_form(&batch));
  CHECK(dropped == (std::vector<uint64_t>{1}));
  clock.set(999);
  CHECK(!b.try_form(&batch));
  clock.set(1000);
  CHECK(!b.try_form(&batch));
  CHECK(dropped == (std::vector<uint64_t>{1, 2}));
}

TEST(batcher, timeout_override_needs_permission) {
  FakeClock clock;
  BatcherConfig c = config(8, {}, 100000);
  QueuePolicy p;
  p.default_timeout_us = 1000;
  c.policies = {p};
  int drops = 0;
  Batcher b(c, clock, [&](const Dropped&) { ++drops; });
  Batch batch;
  b.submit(req(1, -1, 200));
  clock.set(999);
  CHECK(!b.try_form(&batch));
  CHECK_EQ(drops, 0);
  clock.set(1000);
  CHECK(!b.try_form(&batch));
  CHECK_EQ(drops, 1);
}

TEST(batcher, queue_full_rejects) {
  FakeClock clock;
  BatcherConfig c = config(8, {}, 1000);
  c.priority_levels = 2;
  QueuePolicy small;
  small.max_queue_size = 2;
  QueuePolicy big;
  big.max_queue_size = 3;
  c.policies = {small, big};
  Batcher b(c, clock);
  CHECK(b.submit(req(1, 0)) == SubmitResult::kQueued);
  CHECK(b.submit(req(2, 0)) == SubmitResult::kQueued);
  CHECK(b.submit(req(3, 0)) == SubmitResult::kRejectedQueueFull);
  CHECK(b.submit(req(4, 1)) == SubmitResult::kQueued);  // the other level has room
  CHECK_EQ(b.depth(0), size_t{2});
  CHECK_EQ(b.depth(1), size_t{1});
  BatcherCounters n = b.counters();
  CHECK_EQ(n.submitted, uint64_t{4});
  CHECK_EQ(n.rejected_queue_full, uint64_t{1});
  clock.set(1000);
  Batch batch;
  CHECK(b.try_form(&batch));
  b.release();
  CHECK(b.submit(req(5, 0)) == SubmitResult::kQueued);  // room again
}

TEST(batcher, delayed_requests_count_towards_queue_size) {
  FakeClock clock;
  BatcherConfig c = config(1, {}, 0);
  QueuePolicy p;
  p.max_queue_size = 1;
  p.default_timeout_us = 10;
  p.timeout_action = TimeoutAction::kDelay;
  c.policies = {p};
  Batcher b(c, clock);
  Batch batch;
  b.submit(req(1));
  CHECK(b.try_form(&batch));  // slot taken
  CHECK(b.submit(req(2)) == SubmitResult::kQueued);
  clock.set(10);
  CHECK(!b.try_form(&batch));  // request 2 is delayed, still queued
  CHECK(b.submit(req(3)) == SubmitResult::kRejectedQueueFull);
}

TEST(batcher, close_flushes_and_rejects) {
  FakeClock clock;
  Batcher b(config(8, {4}, 100000), clock);
  Batch batch;
  submit_n(b, 1, 3);
  CHECK(!b.try_form(&batch));
  b.close();
  CHECK(b.submit(req(9)) == SubmitResult::kRejectedClosed);
  CHECK(b.try_form(&batch));
  CHECK_EQ(batch.size(), size_t{3});
  CHECK(batch.reason == BatchReason::kFlush);
  b.release();
  CHECK(!b.wait_batch(&batch));  // closed and empty: returns at once
  CHECK_EQ(b.counters().rejected_closed, uint64_t{1});
}

TEST(batcher, config_errors) {
  FakeClock clock;
  CHECK_THROWS(Batcher(config(0, {}, 0), clock));
  CHECK_THROWS(Batcher(config(8, {16}, 0), clock));
  CHECK_THROWS(Batcher(config(8, {0}, 0), clock));
  CHECK_THROWS(Batcher(config(8, {}, -1), clock));
  CHECK_THROWS(Batcher(config(8, {}, kMaxDurationUs + 1), clock));
  BatcherConfig c = config(8, {}, 0);
  c.priority_levels = 2;
  c.default_priority = 2;
  CHECK_THROWS(Batcher(c, clock));
  c.default_priority = 0;
  c.policies.resize(3);
  CHECK_THROWS(Batcher(c, clock));
  c.policies.assign(1, QueuePolicy{});
  c.policies[0].default_timeout_us = -1;
  CHECK_THROWS(Batcher(c, clock));
  c.policies.clear();
  c.slots = 0;
  CHECK_THROWS(Batcher(c, clock));
}

TEST(batcher, pool_grows_when_unbounded) {
  FakeClock clock;
  BatcherConfig c = config(64, {}, 1000);
  c.initial_capacity = 2;
  Batcher b(c, clock);
  submit_n(b, 1, 50);
  CHECK_EQ(b.depth(), size_t{50});
  clock.set(1000);
  Batch batch;
  CHECK(b.try_form(&batch));
  CHECK_EQ(batch.size(), size_t{50});
  for (size_t i = 0; i < batch.size(); ++i) CHECK_EQ(batch.items[i].id, uint64_t{i + 1});
}

// ---------------------------------------------------------------- with shapes

TEST(batcher, padding_rule_failure_ends_the_batch) {
  FakeClock clock;
  BatcherConfig c = config(8, {}, 100000);
  c.slots = 2;
  Batcher b(c, clock);
  Batch batch;
  b.submit(shaped(1, {3, 32, 100}));   // 9600 elements
  b.submit(shaped(2, {3, 32, 110}));   // 10560: padded 10560, 2 * 9600 >= 10560
  b.submit(shaped(3, {3, 32, 1000}));  // 96000: fails both conditions
  b.submit(shaped(4, {3, 32, 100}));
  CHECK(b.try_form(&batch));
  CHECK(batch.reason == BatchReason::kShapeBreak);
  CHECK(ids(batch) == (std::vector<uint64_t>{1, 2}));
  CHECK(batch.padded == make_shape({3, 32, 110}));
  CHECK_EQ(batch.real_elements, int64_t{9600 + 10560});
  CHECK_EQ(batch.padded_elements, int64_t{2 * 10560});
  CHECK(b.try_form(&batch));  // the request that failed heads the next batch
  CHECK(ids(batch) == (std::vector<uint64_t>{3}));
  CHECK(batch.reason == BatchReason::kShapeBreak);
  CHECK_EQ(b.depth(), size_t{1});
}

TEST(batcher, equal_shapes_are_never_split) {
  FakeClock clock;
  Batcher b(config(4, {}, 100), clock);
  Batch batch;
  for (uint64_t i = 1; i <= 4; ++i) b.submit(shaped(i, {3, 224, 224}));
  CHECK(b.try_form(&batch));
  CHECK_EQ(batch.size(), size_t{4});
  CHECK_EQ(batch.real_elements, batch.padded_elements);
}

// ---------------------------------------------------------------- blocking, threads

TEST(batcher_threads, clients_and_drainers) {
  SteadyClock clock;
  BatcherConfig c = config(8, {4, 8}, 200);
  c.slots = 2;
  QueuePolicy p;
  p.max_queue_size = 64;
  c.policies = {p};
  std::atomic<uint64_t> dropped{0};
  Batcher b(c, clock, [&](const Dropped&) { dropped.fetch_add(1); });
  constexpr int kClients = 4, kEach = 300;
  std::atomic<uint64_t> batched{0}, rejected{0}, sum_ids{0};
  std::vector<std::thread> drainers;
  for (int d = 0; d < 2; ++d)
    drainers.emplace_back([&] {
      Batch batch;
      batch.items.reserve(8);
      while (b.wait_batch(&batch)) {
        for (const BatchItem& it : batch.items) sum_ids.fetch_add(it.id);
        batched.fetch_add(batch.size());
        b.release();
      }
    });
  std::vector<std::thread> clients;
  for (int k = 0; k < kClients; ++k)
    clients.emplace_back([&, k] {
      for (int i = 0; i < kEach; ++i) {
        uint64_t id = static_cast<uint64_t>(k * kEach + i + 1);
        if (b.submit(req(id)) != SubmitResult::kQueued) {
          rejected.fetch_add(1);
          sum_ids.fetch_add(id);
        }
        if (i % 16 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    });
  for (std::thread& t : clients) t.join();
  b.close();
  for (std::thread& t : drainers) t.join();
  const uint64_t total = kClients * kEach;
  CHECK_EQ(batched.load() + rejected.load() + dropped.load(), total);
  CHECK_EQ(sum_ids.load(), total * (total + 1) / 2);  // every request exactly once
  CHECK_EQ(b.depth(), size_t{0});
  BatcherCounters n = b.counters();
  CHECK_EQ(n.batched_requests, batched.load());
  CHECK_EQ(n.rejected_queue_full, rejected.load());
}

TEST(batcher_threads, wait_batch_wakes_when_the_delay_expires) {
  SteadyClock clock;
  Batcher b(config(8, {8}, 2000), clock);
  int64_t t0 = clock.now_us();
  b.submit(req(1));
  Batch batch;
  CHECK(b.wait_batch(&batch));
  int64_t waited = clock.now_us() - t0;
  CHECK(batch.reason == BatchReason::kDelayExpired);
  CHECK(waited >= 2000);
  CHECK(batch.items[0].queue_us >= 2000);
}

TEST(batcher_threads, wait_batch_wakes_on_release) {
  SteadyClock clock;
  Batcher b(config(1, {}, 0), clock);
  b.submit(req(1));
  b.submit(req(2));
  Batch first;
  CHECK(b.wait_batch(&first));
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    b.release();
  });
  Batch second;
  CHECK(b.wait_batch(&second));
  releaser.join();
  CHECK_EQ(second.items[0].id, uint64_t{2});
}

TEST(batcher, own_timeout_without_a_default) {
  FakeClock clock;
  BatcherConfig c = config(8, {}, 100000);
  QueuePolicy p;  // no default timeout
  p.allow_timeout_override = true;
  c.policies = {p};
  std::vector<uint64_t> dropped;
  Batcher b(c, clock, [&](const Dropped& d) { dropped.push_back(d.id); });
  Batch batch;
  b.submit(req(1, -1, 300));
  b.submit(req(2, -1, std::numeric_limits<int64_t>::max()));  // clamped, no overflow
  b.submit(req(3));                                           // none at all
  int64_t wake = 0;
  CHECK(!b.try_form(&batch, &wake));
  CHECK_EQ(wake, int64_t{300});
  clock.set(300);
  CHECK(!b.try_form(&batch, &wake));
  CHECK(dropped == (std::vector<uint64_t>{1}));
  CHECK_EQ(wake, int64_t{100000});  // the delay of request 2, before its far deadline
  clock.set(100000);
  CHECK(b.try_form(&batch));
  CHECK(ids(batch) == (std::vector<uint64_t>{2, 3}));
}

TEST(batcher, durations_scale_with_the_host_clock) {
  BatcherConfig c;
  c.max_queue_delay_us = 2000;
  c.policies = {QueuePolicy{256, 1000000, false, TimeoutAction::kReject},
                QueuePolicy{0, 0, false, TimeoutAction::kDelay}};
  scale_durations(&c, 3.0);
  CHECK_EQ(c.max_queue_delay_us, int64_t{6000});
  CHECK_EQ(c.policies[0].default_timeout_us, int64_t{3000000});
  CHECK_EQ(c.policies[1].default_timeout_us, int64_t{0});  // no timeout stays none
  CHECK_EQ(c.policies[0].max_queue_size, uint32_t{256});
  c.max_queue_delay_us = kMaxDurationUs / 2;
  scale_durations(&c, 3.0);
  CHECK_EQ(c.max_queue_delay_us, kMaxDurationUs);  // capped: times plus durations never overflow
  scale_durations(&c, 0.5);
  CHECK_EQ(c.max_queue_delay_us, kMaxDurationUs / 2);
}
