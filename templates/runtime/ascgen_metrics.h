// ascgen_metrics.h: clocks and what a run measures with them: CPU times, the latency
// histogram and a run's completion rate. No AscendCL here.
// Emitted verbatim by ascgen; hand-written, reviewed once, shared by every pipeline.
#ifndef ASCGEN_METRICS_H_
#define ASCGEN_METRICS_H_

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace ascgen {

inline double now_s() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

inline double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

inline double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Log-linear histogram of latencies in microseconds: 64 buckets per power of two, from
// 1 us to ~1 hour; fixed size, so recording never allocates. Relative error < 1.6 %.
class LatencyHistogram {
 public:
  void record(double us) {
    uint64_t v = us < 1.0 ? 1 : static_cast<uint64_t>(us);
    counts_[bucket(v)]++;
    total_++;
    max_us_ = std::max(max_us_, us);
  }
  // n latencies in the bucket whose upper bound is upper_us (for_each_bucket's form).
  void add_bucket(uint64_t upper_us, uint64_t n, double max_us) {
    counts_[bucket(upper_us > 1 ? upper_us - 1 : 1)] += n;
    total_ += n;
    max_us_ = std::max(max_us_, max_us);
  }
  void merge(const LatencyHistogram& o) {
    for (size_t i = 0; i < kBuckets; ++i) counts_[i] += o.counts_[i];
    total_ += o.total_;
    max_us_ = std::max(max_us_, o.max_us_);
  }
  double percentile_ms(double p) const {
    if (total_ == 0) return 0.0;
    uint64_t rank = static_cast<uint64_t>(p / 100.0 * static_cast<double>(total_ - 1)) + 1;
    uint64_t seen = 0;
    for (size_t i = 0; i < kBuckets; ++i) {
      seen += counts_[i];
      if (seen >= rank) return std::min(value(i), max_us_) / 1000.0;
    }
    return max_us_ / 1000.0;
  }
  double max_ms() const { return max_us_ / 1000.0; }
  uint64_t count() const { return total_; }
  // Calls f(upper bound in us, count) for every non-empty bucket, in ascending order: what a
  // bench merges across runs for the percentiles of all frames.
  template <class F>
  void for_each_bucket(F f) const {
    for (size_t i = 0; i < kBuckets; ++i)
      if (counts_[i] != 0) f(upper_us(i), counts_[i]);
  }

 private:
  static constexpr size_t kSub = 64;
  static constexpr size_t kBuckets = kSub * 33;
  static size_t bucket(uint64_t v) {
    if (v < kSub) return static_cast<size_t>(v);
    int msb = 63 - __builtin_clzll(v);
    int shift = msb - 6;
    size_t idx = static_cast<size_t>(shift + 1) * kSub + static_cast<size_t>((v >> shift) - kSub);
    return std::min(idx, kBuckets - 1);
  }
  static uint64_t upper_us(size_t idx) {  // the bucket holds [lower, upper) us
    if (idx < kSub) return idx + 1;
    size_t shift = idx / kSub - 1;
    return (kSub + idx % kSub + 1) << shift;
  }
  static double value(size_t idx) {  // midpoint of the bucket
    if (idx < kSub) return static_cast<double>(idx);
    size_t shift = idx / kSub - 1;
    double lo = static_cast<double>((kSub + idx % kSub) << shift);
    return lo + static_cast<double>((uint64_t{1} << shift)) / 2.0;
  }
  uint64_t counts_[kBuckets] = {};
  uint64_t total_ = 0;
  double max_us_ = 0.0;
};

// A run's completion rate: the least-squares slope of the frames completed so far against the
// time, one point per completion. Completions come in bursts: per_thread completes a whole sync
// window at once, and a graph's one AI Core stream runs the queued detector batches, then the
// queued executions of the model of objects, so its frames complete in runs. Frames over the span
// from the first completion to the last read such runs high (the span starts and ends inside one)
// and frames / duration depends on where they fall against the window's ends; the slope of the
// whole staircase does neither: steps of N frames every T s give N/T however the window cuts them.
class CompletionRate {
 public:
  void add(double now, int64_t frames) {  // Welford's online co-moments: no cancellation
    total_ += static_cast<double>(frames);
    ++n_;
    const double dx = now - mean_t_;
    mean_t_ += dx / static_cast<double>(n_);
    mean_f_ += (total_ - mean_f_) / static_cast<double>(n_);
    co_ += dx * (total_ - mean_f_);
    var_ += dx * (now - mean_t_);
  }
  bool known() const { return n_ >= 2 && var_ > 0; }
  double qps() const { return known() ? co_ / var_ : 0.0; }

 private:
  double total_ = 0, mean_t_ = 0, mean_f_ = 0, co_ = 0, var_ = 0;
  int64_t n_ = 0;
};

// The rate of every worker's completions (finish_batch: the report thread under per_stage, each
// worker after its window's sync under per_thread).
class SharedCompletionRate {
 public:
  void add(double now, int64_t frames) {
    std::lock_guard<std::mutex> lock(mu_);
    rate_.add(now, frames);
  }
  CompletionRate get() const {
    std::lock_guard<std::mutex> lock(mu_);
    return rate_;
  }

 private:
  mutable std::mutex mu_;
  CompletionRate rate_;
};

}  // namespace ascgen

#endif  // ASCGEN_METRICS_H_
