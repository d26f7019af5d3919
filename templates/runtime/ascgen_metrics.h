// ascgen_metrics.h: clocks and what a run measures with them: CPU times, the latency
// histogram and a worker's completion rate. No AscendCL here.
// Emitted verbatim by ascgen; hand-written, reviewed once, shared by every pipeline.
#ifndef ASCGEN_METRICS_H_
#define ASCGEN_METRICS_H_

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>

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

// One worker's completion rate: frames completed after its first measured completion,
// over the time from that completion to its last. Completions seen in bursts (per_thread:
// a whole sync window at once) then count whole windows over whole periods, where
// frames / duration would depend on where the bursts fall against the window's ends.
class CompletionRate {
 public:
  void add(double now, int64_t frames) {
    if (first_ < 0) first_ = now;  // frames completing with the first instant open the span
    if (now > first_) {
      frames_ += frames;
      last_ = now;
    }
  }
  bool known() const { return last_ > first_; }
  double qps() const { return known() ? static_cast<double>(frames_) / (last_ - first_) : 0.0; }

 private:
  double first_ = -1, last_ = -1;
  int64_t frames_ = 0;
};

}  // namespace ascgen

#endif  // ASCGEN_METRICS_H_
