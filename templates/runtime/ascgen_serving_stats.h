// ascgen_serving_stats.h: what a server's run reports: the queue depth over time (sampled in
// fixed memory) and per request and per batch figures (latency, queue and compute time, batch
// sizes, fill, padding; per priority level and per gear), as JSON. No AscendCL here.
#ifndef ASCGEN_SERVING_STATS_H_
#define ASCGEN_SERVING_STATS_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ascgen_batching.h"
#include "ascgen_json.h"
#include "ascgen_loadgen.h"
#include "ascgen_metrics.h"

namespace ascgen {
namespace serving {

// ---------------------------------------------------------------- queue depth over time

// Samples of the pending queue depth, at most `capacity` of them: when full, every other
// sample is dropped and the interval doubles, so a run of any length fits in fixed memory.
class DepthSeries {
 public:
  explicit DepthSeries(size_t capacity = 4096) : capacity_(std::max<size_t>(capacity, 2)) {
    samples_.reserve(capacity_);
  }
  // Offers a sample at t_us; kept if it falls on the current stride.
  void offer(int64_t t_us, uint64_t depth) {
    if (offered_++ % stride_ != 0) return;
    if (samples_.size() == capacity_) {
      size_t w = 0;
      for (size_t r = 0; r < samples_.size(); r += 2) samples_[w++] = samples_[r];
      samples_.resize(w);
      stride_ *= 2;
      if ((offered_ - 1) % stride_ != 0) return;
    }
    samples_.push_back({t_us, depth});
  }
  struct Sample {
    int64_t t_us;
    uint64_t depth;
  };
  const std::vector<Sample>& samples() const { return samples_; }
  uint64_t stride() const { return stride_; }

 private:
  size_t capacity_;
  uint64_t stride_ = 1, offered_ = 0;
  std::vector<Sample> samples_;
};

// A thread that samples `depth()` every interval_us until stopped (it sleeps on a
// condition variable between samples).
class DepthSampler {
 public:
  DepthSampler(std::function<uint64_t()> depth, const Clock& clock, int64_t interval_us,
               size_t capacity = 4096)
      : depth_(std::move(depth)), clock_(clock), interval_us_(interval_us), series_(capacity) {
    if (interval_us < 1) throw std::invalid_argument("the sampling interval must be positive");
    start_us_ = clock_.now_us();
    thread_ = std::thread([this] { loop(); });
  }
  DepthSampler(const DepthSampler&) = delete;
  DepthSampler& operator=(const DepthSampler&) = delete;
  ~DepthSampler() { stop(); }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopped_ = true;
      cv_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
  }
  // After stop(): times relative to the sampler's start.
  const DepthSeries& series() const { return series_; }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    int64_t next = start_us_;
    while (!stopped_) {
      int64_t now = clock_.now_us();
      if (now >= next) {
        series_.offer(now - start_us_, depth_());
        next += interval_us_;  // the series thins itself out when full
        if (next < now) next = now + interval_us_;
        continue;
      }
      cv_.wait_for(lock, std::chrono::microseconds(next - now));
    }
  }

  std::function<uint64_t()> depth_;
  const Clock& clock_;
  int64_t interval_us_;
  int64_t start_us_ = 0;
  DepthSeries series_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;
  std::thread thread_;
};

// ---------------------------------------------------------------- what a run reports

// Per request: end-to-end latency (from its send time, so queueing counts), queue time and
// compute time; per batch: its size (Triton's batch_stats), fill and padding. Safe to record
// from several threads.
class ServingStats {
 public:
  // `levels`: the batcher's priority levels (more than 1: latency is reported per level too).
  explicit ServingStats(int max_batch, int levels = 1)
      : level_e2e_(levels > 1 ? static_cast<size_t>(levels) : 0),
        level_queue_(level_e2e_.size()),
        batch_sizes_(static_cast<size_t>(max_batch) + 1, 0) {
    gears_.reserve(kMaxGears);
  }

  void record_request(double e2e_us, double queue_us, double compute_us, int level = 0) {
    std::lock_guard<std::mutex> lock(mu_);
    e2e_.record(e2e_us);
    queue_.record(queue_us);
    compute_.record(compute_us);
    if (level >= 0 && static_cast<size_t>(level) < level_e2e_.size()) {
      level_e2e_[static_cast<size_t>(level)].record(e2e_us);
      level_queue_[static_cast<size_t>(level)].record(queue_us);
    }
  }
  // A batch of `size` requests executed at batch `executed` (>= size: the compiled batch
  // when padding to it, or the dynamic batch gear chosen), whose inputs hold `real_elements`
  // of data in `padded_elements` (per-request padding to the batch's shape; pass equal
  // values for fixed shapes).
  void record_batch(const Batch& b, int executed) {
    record_batch(static_cast<int>(b.size()), executed, b.real_elements, b.padded_elements);
  }
  void record_batch(int size, int executed, int64_t real_elements, int64_t padded_elements) {
    std::lock_guard<std::mutex> lock(mu_);
    size_t s = std::min(static_cast<size_t>(std::max(size, 0)), batch_sizes_.size() - 1);
    ++batch_sizes_[s];
    ++batches_;
    requests_in_batches_ += static_cast<uint64_t>(size);
    executed_slots_ += static_cast<uint64_t>(std::max(executed, size));
    real_elements_ += real_elements;
    // a padded slot of the executed batch holds the batch's padded shape, as a request does
    int64_t per_request = size > 0 ? padded_elements / size : 0;
    padded_elements_ += per_request * std::max(executed, size);
  }
  // Requests of their own shapes: the batch ran at gear `height` x `width`; its requests padded
  // to the widest hold `padded_elements` each, the smallest of them `smallest_elements` (a
  // batch the padding rule should not have merged is counted: rule_breaks).
  void record_shapes(int64_t height, int64_t width, int64_t padded_elements,
                     int64_t smallest_elements) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!padding_acceptable(padded_elements, smallest_elements)) ++rule_breaks_;
    for (GearCount& g : gears_)
      if (g.height == height && g.width == width) {
        ++g.batches;
        return;
      }
    if (gears_.size() < kMaxGears) gears_.push_back({height, width, 1});
  }
  void set_counters(const BatcherCounters& c) {
    std::lock_guard<std::mutex> lock(mu_);
    counters_ = c;
  }
  void set_lateness(const Lateness& l) {
    std::lock_guard<std::mutex> lock(mu_);
    lateness_ = l;
    has_lateness_ = true;
  }

  // Requests in batches over the batch slots executed (1: every batch full).
  double average_fill() const {
    std::lock_guard<std::mutex> lock(mu_);
    return fill_locked();
  }
  // The share of executed input elements that were padding (to the batch's shape and to
  // the executed batch size).
  double padding_waste() const {
    std::lock_guard<std::mutex> lock(mu_);
    return waste_locked();
  }
  std::vector<uint64_t> batch_histogram() const {
    std::lock_guard<std::mutex> lock(mu_);
    return batch_sizes_;
  }
  LatencyHistogram e2e() const {
    std::lock_guard<std::mutex> lock(mu_);
    return e2e_;
  }

  // Adds "serving": {...} to an open JSON object.
  void write_json(Json& j, const DepthSeries* depth = nullptr) const;

 private:
  double fill_locked() const {
    if (executed_slots_ == 0) return 0.0;
    return static_cast<double>(requests_in_batches_) / static_cast<double>(executed_slots_);
  }
  double waste_locked() const {
    if (padded_elements_ == 0) return 0.0;
    return 1.0 - static_cast<double>(real_elements_) / static_cast<double>(padded_elements_);
  }

  struct GearCount {
    int64_t height, width;
    uint64_t batches;
  };
  static constexpr size_t kMaxGears = 128;  // ACL_MAX_HW_NUM

  mutable std::mutex mu_;
  std::vector<GearCount> gears_;
  uint64_t rule_breaks_ = 0;
  LatencyHistogram e2e_, queue_, compute_;
  std::vector<LatencyHistogram> level_e2e_, level_queue_;  // per priority level (levels > 1)
  std::vector<uint64_t> batch_sizes_;
  uint64_t batches_ = 0, requests_in_batches_ = 0, executed_slots_ = 0;
  int64_t real_elements_ = 0, padded_elements_ = 0;
  BatcherCounters counters_;
  Lateness lateness_;
  bool has_lateness_ = false;
};

}  // namespace serving
}  // namespace ascgen

#endif  // ASCGEN_SERVING_STATS_H_
