// ascgen_batcher.h: a priority queue of requests with a queue policy, and a dynamic batcher
// that forms batches by Triton's documented rule, with Paddle Serving's padding rule for
// requests of different shapes (their types: ascgen_batching.h). No AscendCL here; the clock is
// injected, so the rule is unit-tested against a fake clock (tests/serving/). See docs/serving.md
// for the sources.
//
// Threads: any number of client threads call submit(); one or more pipeline threads call
// wait_batch() (or try_form()) and release() a slot when a batch has completed. One mutex
// and one condition variable; nothing busy-waits. After construction nothing allocates in
// the steady state: queued requests live in a pool of nodes linked into per-level lists,
// and a Batch reuses its items' storage.
#ifndef ASCGEN_BATCHER_H_
#define ASCGEN_BATCHER_H_

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "ascgen_batching.h"

namespace ascgen {
namespace serving {

// ---------------------------------------------------------------- the batcher

// The rule, applied whenever something changes (a submit, a release, a deadline):
//  0. Timeouts first: a request past its deadline is rejected (reported through on_drop)
//     or, under TimeoutAction::kDelay, served after every live request of its level.
//  1. No batch while no executor slot is free.
//  2. Candidates are the queued requests in serving order (level 0 first; within a level
//     arrival order, then the delayed ones), up to max_batch, ending before the first one
//     that fails the padding rule.
//  3. max_batch candidates: send them. Else the largest preferred size <= candidates: send
//     that many. Else, if the padding rule ended the candidates or the batcher is closed:
//     send them. Else, if the oldest candidate has waited max_queue_delay_us: send them.
//     Else wait until it has (or until something changes).
// Sources: Triton's user guide, "Batchers: Dynamic Batcher" (preferred batch sizes, delayed
// batching, priority levels, queue policy) and model_config.proto (ModelQueuePolicy).
class Batcher {
 public:
  using DropFn = std::function<void(const Dropped&)>;

  // `on_drop` is called, with the batcher's lock held, for every request that times out
  // under TimeoutAction::kReject; it must not call into the batcher.
  Batcher(BatcherConfig config, const Clock& clock, DropFn on_drop = nullptr);

  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  const BatcherConfig& config() const { return cfg_; }

  // A new request, timestamped now. Rejected at once when its level's queue is full
  // (Triton's max_queue_size) or the batcher is closed.
  SubmitResult submit(const Request& r) {
    std::lock_guard<std::mutex> lock(mu_);
    ++counters_.submitted;
    if (closed_) {
      ++counters_.rejected_closed;
      return SubmitResult::kRejectedClosed;
    }
    // A level beyond the last is served as the last (the lowest priority).
    int level =
        r.priority < 0 ? cfg_.default_priority : std::min(r.priority, cfg_.priority_levels - 1);
    Level& lv = levels_[static_cast<size_t>(level)];
    if (lv.policy.max_queue_size != 0 &&
        lv.live.size + lv.delayed.size >= lv.policy.max_queue_size) {
      ++counters_.rejected_queue_full;
      return SubmitResult::kRejectedQueueFull;
    }
    if (free_ < 0) grow(nodes_.size() * 2);
    int32_t n = free_;
    free_ = nodes_[static_cast<size_t>(n)].next;
    Node& node = nodes_[static_cast<size_t>(n)];
    node.req = r;
    node.level = level;
    node.delayed = false;
    node.enqueue_us = clock_.now_us();
    // Triton's allow_timeout_override: a request may shorten the level's timeout, never
    // lengthen it (no default timeout: any timeout of its own is shorter).
    int64_t timeout = lv.policy.default_timeout_us;
    if (r.timeout_us > 0 && lv.policy.allow_timeout_override &&
        (timeout == 0 || r.timeout_us < timeout))
      timeout = std::min(r.timeout_us, kMaxDurationUs);
    node.deadline_us = timeout > 0 ? node.enqueue_us + timeout : kNever;
    push_back(lv.live, n);
    ++queued_;
    cv_.notify_all();
    return SubmitResult::kQueued;
  }

  // Applies the rule now, without blocking: true when a batch was formed into `out` (an
  // executor slot is then taken until release()). `wake_us`, if given, receives the time
  // at which the rule should be applied again if nothing else happens (kNever: only a
  // submit, a release or close() can change the answer).
  bool try_form(Batch* out, int64_t* wake_us = nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t wake = kNever;
    bool formed = form_locked(clock_.now_us(), out, &wake);
    if (wake_us) *wake_us = wake;
    return formed;
  }

  // Blocks until a batch is formed (true) or the batcher is closed and empty (false).
  bool wait_batch(Batch* out) {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      int64_t now = clock_.now_us();
      int64_t wake = kNever;
      if (form_locked(now, out, &wake)) return true;
      if (closed_ && queued_ == 0) return false;
      if (wake == kNever)
        cv_.wait(lock);
      else if (wake > now)
        cv_.wait_for(lock, std::chrono::microseconds(wake - now));
    }
  }

  // A batch formed by this batcher has completed: its executor slot is free again.
  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_slots_ < cfg_.slots) ++free_slots_;
    cv_.notify_all();
  }

  // No more submits; the queued requests are flushed without waiting (wait_batch returns
  // false once they are all batched).
  void close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    cv_.notify_all();
  }

  size_t depth() const {
    std::lock_guard<std::mutex> lock(mu_);
    return queued_;
  }
  size_t depth(int level) const {
    std::lock_guard<std::mutex> lock(mu_);
    const Level& lv = levels_[static_cast<size_t>(level)];
    return lv.live.size + lv.delayed.size;
  }
  int free_slots() const {
    std::lock_guard<std::mutex> lock(mu_);
    return free_slots_;
  }
  BatcherCounters counters() const {
    std::lock_guard<std::mutex> lock(mu_);
    return counters_;
  }

 private:
  struct Node {
    Request req;
    int64_t enqueue_us = 0;
    int64_t deadline_us = kNever;
    int32_t prev = -1, next = -1;
    int level = 0;
    bool delayed = false;
  };
  struct List {
    int32_t head = -1, tail = -1;
    size_t size = 0;
  };
  struct Level {
    QueuePolicy policy;
    List live;     // in arrival order
    List delayed;  // timed out under kDelay: after every live request of this level
  };

  void validate() const {
    auto bad = [](const std::string& what) { throw std::invalid_argument("batcher: " + what); };
    if (cfg_.max_batch < 1) bad("max_batch must be at least 1");
    for (int p : cfg_.preferred)
      if (p < 1 || p > cfg_.max_batch)
        bad("preferred batch size " + std::to_string(p) + " is not in 1..max_batch (" +
            std::to_string(cfg_.max_batch) + ")");
    if (cfg_.max_queue_delay_us < 0 || cfg_.max_queue_delay_us > kMaxDurationUs)
      bad("max_queue_delay_us must be in 0..10^12");
    if (cfg_.priority_levels < 1) bad("priority_levels must be at least 1");
    if (cfg_.default_priority < 0 || cfg_.default_priority >= cfg_.priority_levels)
      bad("default_priority must be a level in 0..priority_levels-1");
    if (cfg_.policies.size() > 1 &&
        cfg_.policies.size() != static_cast<size_t>(cfg_.priority_levels))
      bad("policies: give none, one for every level, or one per level");
    for (const QueuePolicy& p : cfg_.policies)
      if (p.default_timeout_us < 0 || p.default_timeout_us > kMaxDurationUs)
        bad("default_timeout_us must be in 0..10^12");
    if (cfg_.slots < 1) bad("slots must be at least 1");
  }

  QueuePolicy policy_for(int level) const {
    if (cfg_.policies.empty()) return QueuePolicy{};
    if (cfg_.policies.size() == 1) return cfg_.policies[0];
    return cfg_.policies[static_cast<size_t>(level)];
  }

  void grow(size_t capacity) {
    size_t old = nodes_.size();
    if (capacity <= old) capacity = old + 1;
    nodes_.resize(capacity);
    for (size_t i = capacity; i-- > old;) {
      nodes_[i].next = free_;
      free_ = static_cast<int32_t>(i);
    }
  }

  void push_back(List& l, int32_t n) {
    Node& node = nodes_[static_cast<size_t>(n)];
    node.prev = l.tail;
    node.next = -1;
    if (l.tail >= 0)
      nodes_[static_cast<size_t>(l.tail)].next = n;
    else
      l.head = n;
    l.tail = n;
    ++l.size;
  }

  void unlink(List& l, int32_t n) {
    Node& node = nodes_[static_cast<size_t>(n)];
    if (node.prev >= 0)
      nodes_[static_cast<size_t>(node.prev)].next = node.next;
    else
      l.head = node.next;
    if (node.next >= 0)
      nodes_[static_cast<size_t>(node.next)].prev = node.prev;
    else
      l.tail = node.prev;
    --l.size;
  }

  void release_node(int32_t n) {
    nodes_[static_cast<size_t>(n)].next = free_;
    free_ = n;
    --queued_;
  }

  // Timeouts: a live request past its deadline is rejected (reported) or moved behind the
  // level's other live requests (Triton's DELAY). Returns the earliest deadline still open.
  int64_t expire(int64_t now) {
    int64_t earliest = kNever;
    for (Level& lv : levels_) {
      for (int32_t n = lv.live.head; n >= 0;) {
        Node& node = nodes_[static_cast<size_t>(n)];
        int32_t next = node.next;
        if (node.deadline_us <= now) {
          unlink(lv.live, n);
          if (lv.policy.timeout_action == TimeoutAction::kDelay) {
            node.delayed = true;
            node.deadline_us = kNever;
            push_back(lv.delayed, n);
            ++counters_.timed_out_delayed;
          } else {
            ++counters_.timed_out_rejected;
            if (on_drop_)
              on_drop_(
                  Dropped{node.req.id, node.level, DropReason::kTimeout, now - node.enqueue_us});
            release_node(n);
          }
        } else {
          earliest = std::min(earliest, node.deadline_us);
        }
        n = next;
      }
    }
    return earliest;
  }

  // Calls f(node index, list) for queued requests in the order they are served: level 0's
  // live requests in arrival order, then its delayed ones, then level 1's, ...; stops when
  // f returns false.
  template <class F>
  void for_each_in_order(F f) {
    for (Level& lv : levels_) {
      for (List* l : {&lv.live, &lv.delayed})
        for (int32_t n = l->head; n >= 0; n = nodes_[static_cast<size_t>(n)].next)
          if (!f(n)) return;
    }
  }

  bool form_locked(int64_t now, Batch* out, int64_t* wake);

  // The batch's requests are the first `take` in serving order: pop them from the fronts.
  void remove_taken(const BatchItem& it) {
    Level& lv = levels_[static_cast<size_t>(it.level)];
    List& l = it.delayed ? lv.delayed : lv.live;
    int32_t n = l.head;
    unlink(l, n);
    release_node(n);
  }

  int largest_preferred(int reachable) const {
    int best = 0;
    for (int p : cfg_.preferred)
      if (p <= reachable) best = p;
    return best;
  }

  BatcherConfig cfg_;
  const Clock& clock_;
  DropFn on_drop_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Node> nodes_;
  int32_t free_ = -1;
  std::vector<Level> levels_;
  size_t queued_ = 0;
  int free_slots_ = 0;
  bool closed_ = false;
  BatcherCounters counters_;
};

}  // namespace serving
}  // namespace ascgen

#endif  // ASCGEN_BATCHER_H_
