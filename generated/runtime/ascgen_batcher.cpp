// ascgen_batcher.cpp: what ascgen_batcher.h declares (README.md: how it is compiled).

#include "ascgen_batcher.h"

namespace ascgen::serving {

Batcher::Batcher(BatcherConfig config, const Clock& clock, DropFn on_drop)
    : cfg_(std::move(config)), clock_(clock), on_drop_(std::move(on_drop)) {
  validate();
  std::sort(cfg_.preferred.begin(), cfg_.preferred.end());
  cfg_.preferred.erase(std::unique(cfg_.preferred.begin(), cfg_.preferred.end()),
                       cfg_.preferred.end());
  levels_.resize(static_cast<size_t>(cfg_.priority_levels));
  for (int l = 0; l < cfg_.priority_levels; ++l)
    levels_[static_cast<size_t>(l)].policy = policy_for(l);
  size_t bounded = 0;
  bool unbounded = false;
  for (const Level& lv : levels_) {
    if (lv.policy.max_queue_size == 0) unbounded = true;
    bounded += lv.policy.max_queue_size;
  }
  grow(unbounded ? std::max<size_t>(cfg_.initial_capacity, 1) : bounded);
  free_slots_ = cfg_.slots;
}

bool Batcher::form_locked(int64_t now, Batch* out, int64_t* wake) {
  int64_t earliest_deadline = expire(now);
  *wake = earliest_deadline;
  if (queued_ == 0 || free_slots_ == 0) return false;

  // What could go now: the first requests in serving order, up to max_batch, stopping at
  // the first that fails the padding rule. Requests join in order, so a batch that meets
  // such a request cannot grow and goes at once, as Triton sends its pending batch when
  // the next request's shape differs (triton-inference-server/core,
  // src/dynamic_batch_scheduler.cc); the request heads the next batch.
  PaddedShape shape;
  int reachable = 0;
  bool shape_break = false;
  int64_t oldest = kNever;
  const int max_batch = cfg_.max_batch;
  for_each_in_order([&](int32_t n) {
    const Node& node = nodes_[static_cast<size_t>(n)];
    if (reachable == max_batch) return false;
    if (!shape.accepts(node.req.shape)) {
      shape_break = true;
      return false;
    }
    shape.add(node.req.shape);
    oldest = std::min(oldest, node.enqueue_us);
    ++reachable;
    return true;
  });

  int take = 0;
  BatchReason reason = BatchReason::kMaxBatch;
  if (reachable == max_batch) {
    take = max_batch;
    reason = BatchReason::kMaxBatch;
  } else if (largest_preferred(reachable) > 0) {
    take = largest_preferred(reachable);
    reason = BatchReason::kPreferred;
  } else if (shape_break) {
    take = reachable;
    reason = BatchReason::kShapeBreak;
  } else if (closed_) {
    take = reachable;
    reason = BatchReason::kFlush;
  } else if (now - oldest >= cfg_.max_queue_delay_us) {
    take = reachable;
    reason = BatchReason::kDelayExpired;
  } else {
    *wake = std::min(earliest_deadline, oldest + cfg_.max_queue_delay_us);
    return false;
  }

  out->items.clear();
  out->items.reserve(static_cast<size_t>(max_batch));  // once per Batch object
  out->formed_us = now;
  out->reason = reason;
  PaddedShape taken;
  for_each_in_order([&](int32_t n) {
    if (static_cast<int>(out->items.size()) == take) return false;
    const Node& node = nodes_[static_cast<size_t>(n)];
    out->items.push_back(BatchItem{node.req.id, node.level, node.delayed, node.enqueue_us,
                                   now - node.enqueue_us, node.req.shape});
    taken.add(node.req.shape);
    return true;
  });
  for (const BatchItem& it : out->items) remove_taken(it);
  out->padded = taken.padded();
  out->real_elements = taken.real_elements();
  out->padded_elements = taken.padded_elements();
  --free_slots_;
  ++counters_.batches;
  counters_.batched_requests += static_cast<uint64_t>(take);
  ++counters_.by_reason[static_cast<int>(reason)];
  *wake = queued_ > 0 ? now : earliest_deadline;  // more may be ready at once
  return true;
}

}  // namespace ascgen::serving
