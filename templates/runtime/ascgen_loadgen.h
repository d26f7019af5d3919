// ascgen_loadgen.h: the built-in load generator of a serving program (what it reports is
// ascgen_serving_stats.h).
// Closed loop (N clients, each sends its next request when its previous one completes, as
// perf_analyzer's concurrency mode), open loop at a rate with constant or Poisson arrivals
// (seeded; MLPerf LoadGen's server scenario), and trace replay (a list of timestamps).
// Requests sent later than a tolerance after their time are counted; more than 1 % of them
// and the run says the generator could not keep up. No AscendCL here.
#ifndef ASCGEN_LOADGEN_H_
#define ASCGEN_LOADGEN_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ascgen_batching.h"
#include "ascgen_options.h"

namespace ascgen {
namespace serving {

// ---------------------------------------------------------------- arrival schedules

// Send times in microseconds from the start of the run, in order.
class ArrivalSchedule {
 public:
  virtual ~ArrivalSchedule() = default;
  // The next send time; false when the schedule has ended.
  virtual bool next(int64_t* t_us) = 0;
};

// Request k at k / rate seconds exactly (each time computed from k, so nothing drifts).
class ConstantArrivals final : public ArrivalSchedule {
 public:
  explicit ConstantArrivals(double rate_per_s) : rate_(rate_per_s) {
    if (!(rate_per_s > 0) || !std::isfinite(rate_per_s))
      throw std::invalid_argument("the request rate must be a positive number per second");
  }
  bool next(int64_t* t_us) override {
    *t_us = std::llround(static_cast<double>(k_++) * 1e6 / rate_);
    return true;
  }

 private:
  double rate_;
  uint64_t k_ = 0;
};

// A Poisson process: exponential gaps of mean 1 / rate, by inversion of a uniform variate
// from a seeded mt19937_64 (whose sequence the C++ standard fixes), so a seed gives the same
// schedule on every machine. The first request is at 0.
class PoissonArrivals final : public ArrivalSchedule {
 public:
  PoissonArrivals(double rate_per_s, uint64_t seed) : rate_(rate_per_s), rng_(seed) {
    if (!(rate_per_s > 0) || !std::isfinite(rate_per_s))
      throw std::invalid_argument("the request rate must be a positive number per second");
  }
  bool next(int64_t* t_us) override {
    if (started_) t_s_ += gap_s();
    started_ = true;
    *t_us = std::llround(t_s_ * 1e6);
    return true;
  }
  // One exponential gap in seconds (exposed for the goodness-of-fit test).
  double gap_s() {
    double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;  // [0, 1)
    return -std::log1p(-u) / rate_;
  }

 private:
  double rate_;
  std::mt19937_64 rng_;
  double t_s_ = 0;
  bool started_ = false;
};

// Replays a trace: one timestamp in microseconds per line, non-decreasing; blank lines and
// lines starting with '#' are skipped. Timestamps are shifted so the first is at 0. Bounded
// before anything grows: a trace file of at most 64 MiB, lines of at most 64 bytes, at most
// 8,388,608 timestamps (64 MiB of them) spanning at most 90,000 s (the longest --warmup plus
// --duration), so every wait on it is bounded too.
class TraceArrivals final : public ArrivalSchedule {
 public:
  static constexpr size_t kMaxBytes = size_t{64} << 20;
  static constexpr size_t kMaxLine = 64;
  static constexpr size_t kMaxRequests = size_t{1} << 23;
  static constexpr int64_t kMaxSpanUs = int64_t{90000} * 1000000;

  explicit TraceArrivals(std::vector<int64_t> times_us) : times_(std::move(times_us)) {
    for (size_t i = 1; i < times_.size(); ++i)
      if (times_[i] < times_[i - 1])
        throw std::invalid_argument("trace: timestamp " + std::to_string(i + 1) +
                                    " is earlier than the one before it");
    if (!times_.empty()) {
      int64_t first = times_[0];
      for (int64_t& t : times_) t -= first;
    }
  }
  static TraceArrivals parse(std::istream& in, const std::string& name) {
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return parse(text, name);
  }
  static TraceArrivals parse(const std::string& text, const std::string& name) {
    std::vector<int64_t> times;
    size_t n = 0;
    for (size_t at = 0; at < text.size();) {
      size_t eol = text.find('\n', at);
      if (eol == std::string::npos) eol = text.size();
      const std::string where = name + ":" + std::to_string(++n) + ": ";
      if (eol - at > kMaxLine)
        throw std::invalid_argument(where + "a line of " + std::to_string(eol - at) +
                                    " bytes: a timestamp line holds at most " +
                                    std::to_string(kMaxLine) + " ('" +
                                    shown(text.substr(at, kMaxLine)) + "')");
      const std::string line = text.substr(at, eol - at);
      at = eol + 1;
      size_t a = line.find_first_not_of(" \t\r");
      if (a == std::string::npos || line[a] == '#') continue;
      size_t b = line.find_last_not_of(" \t\r");
      std::string value = line.substr(a, b - a + 1);
      int64_t v = 0;
      if (!parse_int(value, 0, 9.2e18, &v))
        throw std::invalid_argument(where + "not a timestamp in microseconds: '" + shown(value) +
                                    "'");
      if (!times.empty() && v < times.back())
        throw std::invalid_argument(where + "timestamp earlier than the one before it");
      if (!times.empty() && v - times.front() > kMaxSpanUs)
        throw std::invalid_argument(where + "timestamp " + std::to_string(v) + " is " +
                                    format_limit(static_cast<double>(v - times.front()) / 1e6) +
                                    " s after the first; a trace spans at most " +
                                    std::to_string(kMaxSpanUs / 1000000) +
                                    " s (--warmup plus --duration at most)");
      if (times.size() == kMaxRequests)
        throw std::invalid_argument(where + "more than " + std::to_string(kMaxRequests) +
                                    " timestamps; split the trace");
      times.push_back(v);
    }
    if (times.empty()) throw std::invalid_argument(name + ": no timestamps");
    return TraceArrivals(std::move(times));
  }
  // A regular file of at most kMaxBytes (a FIFO or /dev/zero is refused before any read).
  static TraceArrivals from_file(const std::string& path) {
    const std::vector<uint8_t> bytes = read_file(path, kMaxBytes, "trace", "the trace limit of");
    return parse(std::string(bytes.begin(), bytes.end()), shown(path, kShownPath));
  }
  bool next(int64_t* t_us) override {
    if (i_ >= times_.size()) return false;
    *t_us = times_[i_++];
    return true;
  }
  size_t size() const { return times_.size(); }
  // How many requests fall in [from_us, to_us) of the run (times from its first request).
  size_t count_between(int64_t from_us, int64_t to_us) const {
    return static_cast<size_t>(std::lower_bound(times_.begin(), times_.end(), to_us) -
                               std::lower_bound(times_.begin(), times_.end(), from_us));
  }
  int64_t last_us() const { return times_.empty() ? 0 : times_.back(); }

 private:
  std::vector<int64_t> times_;
  size_t i_ = 0;
};

// ---------------------------------------------------------------- keeping up

struct Lateness {
  uint64_t sent = 0;
  uint64_t late = 0;    // sent more than tolerance_us after their time
  uint64_t missed = 0;  // due more than tolerance_us before the generator stopped, never sent
  int64_t max_late_us = 0;
  int64_t tolerance_us = 0;

  void record(int64_t scheduled_us, int64_t actual_us) {
    ++sent;
    int64_t d = actual_us - scheduled_us;
    max_late_us = std::max(max_late_us, d);
    if (d > tolerance_us) ++late;
  }
  // More than 1 % of the requests due were late or never sent: the measured load is not the
  // one asked for. A generator that stalled (descheduled on a busy host) and was stopped sent
  // few requests, all on time: its missed ones say it did not keep up.
  bool could_not_keep_up() const { return (late + missed) * 100 > sent + missed; }
};

// ---------------------------------------------------------------- open loop

// Sends at the schedule's times, from the calling thread: `send(seq, scheduled_us)` must
// not block for long (it submits the request; completion is reported elsewhere). A request
// whose time has passed is sent at once (and counted late if beyond the tolerance).
class OpenLoop {
 public:
  OpenLoop(ArrivalSchedule& schedule, const Clock& clock, int64_t tolerance_us)
      : schedule_(schedule), clock_(clock) {
    lateness_.tolerance_us = tolerance_us;
  }

  // Runs until the schedule ends, `max_requests` are sent (0: no limit), the schedule
  // reaches `duration_us` (0: no limit; a late generator still sends every request due
  // before it) or stop() is called. Returns the lateness counts; ended() tells whether the
  // schedule ran out (or past duration_us) rather than being stopped.
  template <class F>
  Lateness run(F send, uint64_t max_requests = 0, int64_t duration_us = 0) {
    const int64_t start = clock_.now_us();
    int64_t t = 0;
    for (uint64_t seq = 0; max_requests == 0 || seq < max_requests; ++seq) {
      if (!schedule_.next(&t) || (duration_us > 0 && t >= duration_us)) {
        ended_ = true;
        break;
      }
      const int64_t due = saturating_add(start, t);
      if (!wait_until(due)) {
        count_missed(start, t, max_requests == 0 ? kMaxMissed : max_requests - seq, duration_us);
        break;
      }
      int64_t now = clock_.now_us();
      send(seq, due);
      lateness_.record(due, now);
    }
    return lateness_;
  }

  void stop() {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    cv_.notify_all();
  }
  bool ended() const { return ended_; }

  // a + b, held at the int64 limits instead of wrapping (a trace's time far in the future).
  static int64_t saturating_add(int64_t a, int64_t b) {
    int64_t out = 0;
    if (!__builtin_add_overflow(a, b, &out)) return out;
    return b > 0 ? INT64_MAX : INT64_MIN;
  }
  // The longest single sleep: a wait far in the future is taken in slices, so no duration
  // conversion can overflow and stop() is seen within one slice even if a notify is missed.
  static constexpr int64_t kMaxSleepUs = 100000;
  // The most missed requests counted after a stop (a lower bound beyond it: enough to decide
  // could_not_keep_up, and a flood's schedule is not walked for ever).
  static constexpr uint64_t kMaxMissed = uint64_t{1} << 24;

 private:
  // Stopped with the request due at start + t not sent: it and those after it that were due
  // more than the tolerance before now were missed (at most `limit`, within duration_us).
  void count_missed(int64_t start, int64_t t, uint64_t limit, int64_t duration_us) {
    const int64_t overdue = clock_.now_us() - lateness_.tolerance_us;
    for (uint64_t n = 0; n < std::min(limit, kMaxMissed) && saturating_add(start, t) < overdue;
         ++n) {
      ++lateness_.missed;
      if (!schedule_.next(&t) || (duration_us > 0 && t >= duration_us)) break;
    }
  }

  bool wait_until(int64_t due) {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      if (stopped_) return false;
      const int64_t now = clock_.now_us();
      if (now >= due) return true;
      int64_t left = 0;
      if (__builtin_sub_overflow(due, now, &left)) left = kMaxSleepUs;
      cv_.wait_for(lock, std::chrono::microseconds(std::min(left, kMaxSleepUs)));
    }
  }

  ArrivalSchedule& schedule_;
  const Clock& clock_;
  Lateness lateness_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;
  bool ended_ = false;
};

// ---------------------------------------------------------------- closed loop

// N client threads; each calls `request(client, seq)`, which returns when that request has
// completed (or was rejected), then sends its next one: at most N requests outstanding.
class ClosedLoop {
 public:
  using RequestFn = std::function<void(int client, uint64_t seq)>;

  explicit ClosedLoop(int clients) : clients_(clients) {
    if (clients < 1) throw std::invalid_argument("the closed loop needs at least one client");
  }
  ClosedLoop(const ClosedLoop&) = delete;
  ClosedLoop& operator=(const ClosedLoop&) = delete;
  ~ClosedLoop() { stop_and_join(); }

  // Starts the clients; each stops after `per_client` requests (0: until stop_and_join()).
  void start(RequestFn request, uint64_t per_client = 0) {
    request_ = std::move(request);
    threads_.reserve(static_cast<size_t>(clients_));
    for (int c = 0; c < clients_; ++c)
      threads_.emplace_back([this, c, per_client] {
        for (uint64_t seq = 0; !stop_.load() && (per_client == 0 || seq < per_client); ++seq) {
          uint64_t now_out = outstanding_.fetch_add(1) + 1;
          uint64_t seen = max_outstanding_.load();
          while (now_out > seen && !max_outstanding_.compare_exchange_weak(seen, now_out)) {
          }
          request_(c, seq);
          outstanding_.fetch_sub(1);
          completed_.fetch_add(1);
        }
      });
  }
  // Asks the clients to stop after their current request and waits for them.
  void stop_and_join() {
    stop_.store(true);
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }
  void join() {
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }
  int clients() const { return clients_; }
  uint64_t outstanding() const { return outstanding_.load(); }
  uint64_t max_outstanding() const { return max_outstanding_.load(); }
  uint64_t completed() const { return completed_.load(); }

 private:
  int clients_;
  RequestFn request_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> outstanding_{0}, max_outstanding_{0}, completed_{0};
};

// ---------------------------------------------------------------- priority levels

// --priority-mix W0:W1:...: the share of requests at each priority level (0 the highest), as
// whole weights. Request k (a closed loop: client k) of every cycle of sum(W) takes level l for
// W_l of its positions, in order: 1:3 gives 0, 1, 1, 1, 0, 1, 1, 1, ...
class PriorityMix {
 public:
  PriorityMix() = default;
  // Parses "1:3"; throws std::invalid_argument naming what is wrong.
  static PriorityMix parse(const std::string& text) {
    PriorityMix m;
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, ':')) {
      char* end = nullptr;
      const long w = std::strtol(part.c_str(), &end, 10);
      if (part.empty() || end == nullptr || *end != '\0' || w < 0 || w > 1000000)
        throw std::invalid_argument("'" + text +
                                    "': weights are whole numbers 0..1000000, e.g. 1:3");
      m.weights_.push_back(static_cast<uint64_t>(w));
      m.total_ += static_cast<uint64_t>(w);
    }
    if (m.weights_.empty() || m.total_ == 0 || m.weights_.size() > 16)
      throw std::invalid_argument("'" + text + "': give 1 to 16 weights, at least one above 0");
    return m;
  }
  int levels() const { return weights_.empty() ? 1 : static_cast<int>(weights_.size()); }
  // The level of request (or client) k: -1 (the batcher's default) without a mix.
  int level_of(uint64_t k) const {
    if (total_ == 0) return -1;
    uint64_t at = k % total_;
    for (size_t l = 0; l < weights_.size(); ++l) {
      if (at < weights_[l]) return static_cast<int>(l);
      at -= weights_[l];
    }
    return static_cast<int>(weights_.size()) - 1;
  }

 private:
  std::vector<uint64_t> weights_;
  uint64_t total_ = 0;
};

}  // namespace serving
}  // namespace ascgen

#endif  // ASCGEN_LOADGEN_H_
