// ascgen_batching.h: what the batcher (ascgen_batcher.h) works with: an injected clock, request
// shapes and Paddle Serving's padding rule, the batcher's configuration (Triton's dynamic
// batching and queue policy), requests, batches and the counters. No AscendCL here.
// See docs/serving.md for the sources.
#ifndef ASCGEN_BATCHING_H_
#define ASCGEN_BATCHING_H_

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

namespace ascgen {
namespace serving {

// ---------------------------------------------------------------- clock

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t now_us() const = 0;
};

class SteadyClock final : public Clock {
 public:
  int64_t now_us() const override {
    using namespace std::chrono;
    return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
  }
};

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
// The longest delay or timeout (about 11.6 days): times plus durations never overflow.
constexpr int64_t kMaxDurationUs = int64_t{1000000} * 1000000;

// ---------------------------------------------------------------- shapes and padding

// The shape of one request's input without its batch dimension, e.g. {3, 32, 320} for a
// text line 320 wide. rank 0: every request has the model's one shape (no padding rule).
constexpr int kMaxRank = 4;

struct Shape {
  int rank = 0;
  int64_t dims[kMaxRank] = {};

  int64_t elements() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= dims[i];
    return n;
  }
  bool operator==(const Shape& o) const {
    if (rank != o.rank) return false;
    for (int i = 0; i < rank; ++i)
      if (dims[i] != o.dims[i]) return false;
    return true;
  }
};

Shape make_shape(std::initializer_list<int64_t> dims);

// Paddle Serving's merge rule (C++ Serving asynchronous mode, "动态批量"): requests of
// different shapes are padded to the element-wise maximum shape, and they may be merged
// when either
//   1. the padded element count exceeds each request's by at most 1024 elements, or
//   2. each request keeps at least half of the padded elements.
// Both take the smallest request in the batch as the worst case, so a batch is acceptable
// when padded - smallest <= 1024 or 2 * smallest >= padded.
//
// This is the documented intent. Paddle's own code (core/predictor/framework/bsf.h,
// BatchTasks::padding) computes condition 2 as `padded / original >= 0.5` with size_t
// operands: padded over original, integer division, so the quotient is at least 1 for
// every pair and condition 2 always holds: any two shapes of equal rank merge. We divide
// the other way round, in exact integer arithmetic (2 * smallest >= padded).
constexpr int64_t kPaddingAbsoluteElements = 1024;

bool padding_acceptable(int64_t padded_elements, int64_t smallest_elements);

// The padded shape of a batch being formed: the element-wise maximum of its requests'
// shapes and the smallest element count among them.
class PaddedShape {
 public:
  void clear() {
    count_ = 0;
    max_ = Shape{};
    smallest_ = 0;
    real_ = 0;
  }
  // Whether a request of shape `s` may join under the padding rule (same rank, and the
  // rule holds for every request with the new padded shape).
  bool accepts(const Shape& s) const {
    if (count_ == 0) return true;
    if (s.rank != max_.rank) return false;
    Shape m = max_;
    for (int i = 0; i < m.rank; ++i) m.dims[i] = std::max(m.dims[i], s.dims[i]);
    return padding_acceptable(m.elements(), std::min(smallest_, s.elements()));
  }
  void add(const Shape& s) {
    if (count_ == 0) {
      max_ = s;
      smallest_ = s.elements();
    } else {
      for (int i = 0; i < max_.rank; ++i) max_.dims[i] = std::max(max_.dims[i], s.dims[i]);
      smallest_ = std::min(smallest_, s.elements());
    }
    real_ += s.elements();
    ++count_;
  }
  const Shape& padded() const { return max_; }
  int64_t real_elements() const { return real_; }
  int64_t padded_elements() const { return max_.elements() * count_; }

 private:
  int64_t count_ = 0;
  Shape max_;
  int64_t smallest_ = 0;
  int64_t real_ = 0;
};

// ---------------------------------------------------------------- configuration

// Triton's ModelQueuePolicy, per priority level.
enum class TimeoutAction { kReject, kDelay };

struct QueuePolicy {
  uint32_t max_queue_size = 0;          // 0: unbounded; else a request beyond it is rejected
  int64_t default_timeout_us = 0;       // 0: no timeout
  bool allow_timeout_override = false;  // a request may set a timeout below the default
  TimeoutAction timeout_action = TimeoutAction::kReject;
};

// Triton's ModelDynamicBatching, plus the number of executor slots (batches in flight).
// Priority levels are numbered from 0, the highest (Triton's priority p >= 1 is level p-1).
struct BatcherConfig {
  int max_batch = 1;
  std::vector<int> preferred;      // preferred batch sizes, each in 1..max_batch
  int64_t max_queue_delay_us = 0;  // 0: never wait for more requests
  int priority_levels = 1;
  int default_priority = 0;           // the level of a request that gives none (-1)
  std::vector<QueuePolicy> policies;  // empty: defaults; one: every level; else one per level
  int slots = 1;                      // executor slots: batches formed and not yet released
  size_t initial_capacity = 1024;     // queued requests before the pool grows (unbounded)
};

// The batcher's durations (the queue delay and every level's timeout) times `factor`, capped at
// kMaxDurationUs: what they are on a host clock that runs `factor` times faster than the
// device's (ascgen_serving.h: the simulator's ACL_SIM_TIME_SCALE).
void scale_durations(BatcherConfig* config, double factor);

// ---------------------------------------------------------------- requests and batches

struct Request {
  uint64_t id = 0;         // the caller's token, returned in the batch or the drop report
  int priority = -1;       // level, or -1 for the default
  int64_t timeout_us = 0;  // 0: the level's default; a smaller one if the policy allows
  Shape shape;             // rank 0: the model's fixed shape
};

enum class SubmitResult { kQueued, kRejectedQueueFull, kRejectedClosed };

// Why a queued request left without being batched (reported through the drop callback).
enum class DropReason { kTimeout };

struct Dropped {
  uint64_t id;
  int level;
  DropReason reason;
  int64_t queue_us;
};

// Which branch of the rule sent a batch.
enum class BatchReason {
  kMaxBatch,      // max_batch requests were there
  kPreferred,     // the largest preferred size reachable now
  kDelayExpired,  // the oldest request waited max_queue_delay_us: what is there
  kShapeBreak,    // the next request fails the padding rule: the batch cannot grow
  kFlush,         // the batcher is closed: the rest, without waiting
};
constexpr int kBatchReasons = 5;

const char* batch_reason_name(BatchReason r);

struct BatchItem {
  uint64_t id;
  int level;
  bool delayed;  // it had timed out under TimeoutAction::kDelay
  int64_t enqueue_us;
  int64_t queue_us;  // formed_us - enqueue_us
  Shape shape;
};

struct Batch {
  std::vector<BatchItem> items;  // in the order they were taken
  int64_t formed_us = 0;
  BatchReason reason = BatchReason::kMaxBatch;
  Shape padded;                 // element-wise maximum shape (rank 0: fixed shapes)
  int64_t real_elements = 0;    // sum of the requests' elements
  int64_t padded_elements = 0;  // padded shape's elements times the batch size
  size_t size() const { return items.size(); }
};

struct BatcherCounters {
  uint64_t submitted = 0;
  uint64_t rejected_queue_full = 0;
  uint64_t rejected_closed = 0;
  uint64_t timed_out_rejected = 0;
  uint64_t timed_out_delayed = 0;
  uint64_t batches = 0;
  uint64_t batched_requests = 0;
  uint64_t by_reason[kBatchReasons] = {};
};

}  // namespace serving
}  // namespace ascgen

#endif  // ASCGEN_BATCHING_H_
