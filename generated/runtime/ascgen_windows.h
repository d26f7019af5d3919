// ascgen_windows.h: latency per measuring window of one second (p99 and max), so that a spike
// (pages migrating between NUMA nodes, a stalled thread) shows in the report where the run's
// percentiles would average it away. Emitted verbatim by ascgen.
#ifndef ASCGEN_WINDOWS_H_
#define ASCGEN_WINDOWS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace ascgen {

class WindowLatency {
 public:
  // Room for the windows a run of `seconds` measures: no allocation while it runs (a run
  // bounded by --frames, of unknown length, grows once per second at most).
  void reserve(double seconds) {
    std::lock_guard<std::mutex> lock(mu_);
    windows_.reserve(static_cast<size_t>(std::max(0.0, seconds)) + 2);
  }
  // n latencies (us) observed `at_s` seconds into the measurement.
  void record(double at_s, const double* us, int n) {
    if (at_s < 0) return;
    const size_t w = static_cast<size_t>(at_s);
    std::lock_guard<std::mutex> lock(mu_);
    if (w >= windows_.size()) windows_.resize(w + 1);
    for (int i = 0; i < n; ++i) windows_[w].record(us[i]);
  }
  // Per window: (p99, max) in milliseconds; an empty window (nothing completed) is (0, 0).
  std::vector<std::pair<double, double>> p99_max_ms() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::pair<double, double>> out;
    for (const Window& w : windows_) out.emplace_back(w.percentile_us(99) / 1e3, w.max_us / 1e3);
    return out;
  }

 private:
  // 16 buckets per power of two from 1 us to ~67 s: within 4.4 % of each latency.
  static constexpr int kPerOctave = 16;
  static constexpr int kBuckets = kPerOctave * 26;
  struct Window {
    uint32_t counts[kBuckets] = {};
    uint64_t n = 0;
    double max_us = 0;
    static int bucket(double us) {
      const int b = static_cast<int>(std::log2(std::max(us, 1.0)) * kPerOctave);
      return std::min(b, kBuckets - 1);
    }
    void record(double us) {
      ++counts[bucket(us)];
      ++n;
      max_us = std::max(max_us, us);
    }
    double percentile_us(double p) const {
      if (n == 0) return 0.0;
      const uint64_t rank = static_cast<uint64_t>(p / 100.0 * static_cast<double>(n - 1)) + 1;
      uint64_t seen = 0;
      for (int b = 0; b < kBuckets; ++b) {
        seen += counts[b];
        if (seen >= rank) return std::min(max_us, std::exp2((b + 0.5) / kPerOctave));
      }
      return max_us;
    }
  };
  mutable std::mutex mu_;
  std::vector<Window> windows_;
};

}  // namespace ascgen

#endif  // ASCGEN_WINDOWS_H_
