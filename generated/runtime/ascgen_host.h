// ascgen_host.h: the host side of every generated program: CPU affinity, inputs, signals,
// latency histogram, progress lines and the final JSON report (the command line is in
// ascgen_options.h). No AscendCL here.
// Emitted verbatim by ascgen; hand-written, reviewed once, shared by every pipeline.
#ifndef ASCGEN_HOST_H_
#define ASCGEN_HOST_H_

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ascgen_options.h"

namespace ascgen {

// ---------------------------------------------------------------- time and metrics

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

// ---------------------------------------------------------------- CPU affinity

// big / little: CPUs whose cpufreq maximum is the highest / lowest (as mobile inference
// runtimes pick cores); all; or a comma-separated list of CPU numbers.
inline std::vector<int> cpus_for(const std::string& pin) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  std::vector<int> cpus;
  if (pin.empty() || pin == "all") {
    for (int c = 0; c < n; ++c) cpus.push_back(c);
    return cpus;
  }
  if (pin == "big" || pin == "little") {
    std::vector<std::pair<long, int>> freq;
    for (int c = 0; c < n; ++c) {
      std::ifstream f("/sys/devices/system/cpu/cpu" + std::to_string(c) +
                      "/cpufreq/cpuinfo_max_freq");
      long khz = 0;
      if (!(f >> khz)) khz = 0;
      freq.push_back({khz, c});
    }
    long want = 0;
    for (auto& fc : freq)
      want = (pin == "big") ? std::max(want, fc.first)
                            : (want == 0 ? fc.first : std::min(want, fc.first));
    for (auto& fc : freq)
      if (fc.first == want) cpus.push_back(fc.second);
    return cpus;
  }
  size_t pos = 0;
  while (pos < pin.size()) {
    size_t comma = pin.find(',', pos);
    std::string item =
        pin.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    long c = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || c < 0 || c >= n)
      throw std::invalid_argument("--pin: '" + item + "' is not a CPU of this machine (0.." +
                                  std::to_string(n - 1) + ")");
    cpus.push_back(static_cast<int>(c));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return cpus;
}

inline void pin_current_thread(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  sched_setaffinity(0, sizeof(set), &set);
}

// ---------------------------------------------------------------- inputs

struct InputFile {
  std::string name;
  std::vector<uint8_t> bytes;
};

constexpr size_t kMaxInputFiles = 4096;                // inputs are held in memory, all of them
constexpr size_t kMaxHostFileBytes = size_t{1} << 30;  // read_file without a limit of its own

// The bytes of the regular file `path`, at most `max_bytes` of them. Opened without blocking
// (a FIFO would wait for a writer) and never read past max_bytes + 1 (/dev/zero never ends).
// `what` names the file in messages ("input", "trace"), `limit` its limit ("the spec's
// max_bytes").
inline std::vector<uint8_t> read_file(const std::string& path, size_t max_bytes,
                                      const char* what = "input",
                                      const char* limit = "the spec's max_bytes") {
  const std::string named = std::string(what) + " '" + shown(path, kShownPath) + "'";
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw std::runtime_error("cannot read " + named + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st{};
  if (fstat(fd, &st) != 0)
    throw std::runtime_error("cannot read " + named + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw std::runtime_error(named + " is " + file_kind(st.st_mode) + ", not a regular file");
  auto too_big = [&](size_t bytes) {
    return std::runtime_error(named + " has " + std::to_string(bytes) + " bytes, more than " +
                              limit + " " + std::to_string(max_bytes));
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes) throw too_big(static_cast<size_t>(st.st_size));
  // st_size is a hint (0 for /proc files): read until the end, never past max_bytes + 1.
  std::vector<uint8_t> out(std::min(max_bytes, static_cast<size_t>(st.st_size)) + 1);
  size_t got = 0;
  for (;;) {
    if (got == out.size()) {
      if (got > max_bytes) throw too_big(got);
      out.resize(std::min(max_bytes + 1, got * 2));
    }
    ssize_t r = read(fd, out.data() + got, out.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw std::runtime_error("cannot read " + named + ": " + std::strerror(errno));
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  if (got > max_bytes) throw too_big(got);
  out.resize(got);
  return out;
}

inline std::vector<uint8_t> read_file(const std::string& path) {
  return read_file(path, kMaxHostFileBytes);
}

// A deterministic pseudo-random tensor: input i of a tensor source.
inline std::vector<uint8_t> pattern_tensor(size_t bytes, uint64_t seed) {
  std::vector<uint8_t> out(bytes);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < bytes; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out[i] = static_cast<uint8_t>(x);
  }
  return out;
}

// ---------------------------------------------------------------- signals

inline std::atomic<int>& stop_signal() {
  static std::atomic<int> sig{0};
  return sig;
}

extern "C" inline void ascgen_on_signal(int sig) {
  if (stop_signal().exchange(sig) != 0) _exit(128 + sig);  // a second signal: stop at once
}

inline void install_signal_handlers() {
  struct sigaction sa{};
  sa.sa_handler = ascgen_on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// ---------------------------------------------------------------- JSON

class Json {
 public:
  Json& key(const char* k) {
    sep();
    out_ += '"';
    out_ += k;
    out_ += "\": ";
    fresh_ = true;
    return *this;
  }
  Json& str(const std::string& v) {
    value_sep();
    out_ += '"';
    for (char c : v) {
      if (c == '"' || c == '\\') out_ += '\\';
      if (static_cast<unsigned char>(c) >= 0x20) out_ += c;
    }
    out_ += '"';
    return *this;
  }
  Json& num(double v) {
    if (!std::isfinite(v)) return null();  // JSON has no nan or inf
    value_sep();
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    out_ += buf;
    return *this;
  }
  Json& integer(int64_t v) {
    value_sep();
    out_ += std::to_string(v);
    return *this;
  }
  Json& boolean(bool v) {
    value_sep();
    out_ += v ? "true" : "false";
    return *this;
  }
  Json& null() {
    value_sep();
    out_ += "null";
    return *this;
  }
  Json& raw(const std::string& json) {  // a value that is already JSON text
    value_sep();
    out_ += json;
    return *this;
  }
  Json& open(char c) {
    value_sep();
    out_ += c;
    fresh_ = true;
    return *this;
  }
  Json& close(char c) {
    out_ += c;
    fresh_ = false;
    return *this;
  }
  const std::string& text() const { return out_; }

 private:
  void sep() {
    if (!fresh_) out_ += ", ";
    fresh_ = false;
  }
  void value_sep() { sep(); }
  std::string out_;
  bool fresh_ = true;
};

// A file, or every *.jpg / *.jpeg (or every file ending in `suffix`) in a folder, sorted by name
// (a reproducible frame order).
// Each must be a regular file of at most max_bytes; at most kMaxInputFiles of them.
inline std::vector<InputFile> load_inputs(const std::string& path, size_t max_bytes,
                                          const char* suffix = nullptr) {
  std::vector<std::string> files;
  struct stat st{};
  if (stat(path.c_str(), &st) != 0)
    throw std::runtime_error("cannot read input '" + path + "': " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) {
    DIR* dir = opendir(path.c_str());
    if (dir == nullptr)
      throw std::runtime_error("cannot read input '" + path + "': " + std::strerror(errno));
    while (dirent* e = readdir(dir)) {
      std::string name = e->d_name;
      std::string lower = name;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      auto ends = [&](const char* suffix) {
        size_t n = std::strlen(suffix);
        return lower.size() >= n && lower.compare(lower.size() - n, n, suffix) == 0;
      };
      if (suffix != nullptr ? ends(suffix) : ends(".jpg") || ends(".jpeg"))
        files.push_back(path + "/" + name);
    }
    closedir(dir);
    std::sort(files.begin(), files.end());
    if (files.empty())
      throw std::runtime_error(std::string("no ") + (suffix ? suffix : ".jpg or .jpeg") +
                               " files in '" + path + "'");
    if (files.size() > kMaxInputFiles)
      throw std::runtime_error("'" + path + "' holds " + std::to_string(files.size()) +
                               " inputs, more than " + std::to_string(kMaxInputFiles) +
                               "; use a folder with fewer");
  } else {
    files.push_back(path);
  }
  std::vector<InputFile> inputs;
  for (const std::string& f : files) {
    InputFile in{f, read_file(f, max_bytes)};
    if (in.bytes.empty()) throw std::runtime_error("input '" + f + "' is empty");
    inputs.push_back(std::move(in));
  }
  return inputs;
}

// ---------------------------------------------------------------- progress and report

// Prints one progress line per second on stderr and keeps the measured QPS of each window.
class Progress {
 public:
  // Returns when `stop` is set, a signal arrives or the measuring window ends.
  void run_until(std::atomic<bool>& stop, const std::atomic<int64_t>& completed, double start,
                 double end) {
    const double t0 = now_s();
    int64_t last = 0;
    double next = t0 + 1.0;
    while (!stop && stop_signal() == 0 && now_s() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      double now = now_s();
      if (now < next) continue;
      int64_t done = completed.load();
      if (now >= start + 1.0)
        windows_.push_back(static_cast<double>(done - last) / (now - next + 1.0));
      if (!quiet_progress())
        std::fprintf(stderr, "progress: t=%.1fs frames=%" PRId64 " qps=%.1f\n", now - t0, done,
                     static_cast<double>(done - last) / (now - next + 1.0));
      last = done;
      next += 1.0;
    }
  }
  const std::vector<double>& windows() const { return windows_; }

 private:
  std::vector<double> windows_;
};

struct StageCount {
  const char* name;
  int64_t count;
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

// The program's result: one JSON document (schema_version 1), to stdout and/or a file.
struct Report {
  const char* program = "";
  const char* profile = "";
  const char* streams = "";
  int threads = 0, depth = 0, batch = 0, sync_every = 0;
  int64_t frames = 0;
  double duration_s = 0, host_cpu_s = 0, process_cpu_s = 0;
  double qps = -1;  // the workers' summed completion rates; < 0: frames / duration_s
  int64_t device_memory_bytes = 0;
  bool interrupted = false;
  int verified = -1;                // -1 not asked, 0 mismatch, 1 every output matched
  int64_t frames_failed = 0;        // frames whose decode reported a non-zero result code
  std::string first_failure_input;  // the input of the first of them, and its code
  int64_t first_failure_code = 0;
  std::vector<double> windows_qps;
  std::vector<std::pair<double, double>> windows_latency;  // per second measured: p99, max (ms)
  std::vector<StageCount> stages;
  std::function<void(Json&)> more;  // adds keys to the object (a server's "serving")

  // To stdout and to `path` (if any); one device of several hands it to its device_output()
  // instead, for the parent's merged report.
  void write(const LatencyHistogram& latency, const std::string& path, bool quiet) const;
  std::string json(const LatencyHistogram& latency) const {
    Json j;
    j.open('{');
    j.key("schema_version").integer(1).key("program").str(program).key("backend").str(backend());
    j.key("profile").str(profile).key("streams").str(streams).key("threads").integer(threads);
    j.key("depth").integer(depth).key("batch").integer(batch).key("sync_every").integer(sync_every);
    j.key("frames").integer(frames).key("duration_s").num(duration_s);
    j.key("qps").num(qps >= 0         ? qps
                     : duration_s > 0 ? static_cast<double>(frames) / duration_s
                                      : 0.0);
    j.key("latency_ms").open('{');
    j.key("p50").num(latency.percentile_ms(50)).key("p90").num(latency.percentile_ms(90));
    j.key("p99").num(latency.percentile_ms(99)).key("max").num(latency.max_ms()).close('}');
    j.key("latency_histogram_us").open('[');
    latency.for_each_bucket([&j](uint64_t upper, uint64_t n) {
      j.open('[').integer(static_cast<int64_t>(upper)).integer(static_cast<int64_t>(n)).close(']');
    });
    j.close(']');
    j.key("stages").open('{');
    for (const StageCount& s : stages) j.key(s.name).integer(s.count);
    j.close('}');
    j.key("host_cpu_s").num(host_cpu_s).key("process_cpu_s").num(process_cpu_s);
    j.key("device_memory_bytes").integer(device_memory_bytes);
    j.key("windows_qps").open('[');
    for (double w : windows_qps) j.num(w);
    j.close(']');
    j.key("windows_latency_ms").open('[');  // [p99, max] per second: a spike shows here
    for (const auto& [p99, max] : windows_latency) j.open('[').num(p99).num(max).close(']');
    j.close(']');
    j.key("frames_failed").integer(frames_failed).key("first_failure");
    if (frames_failed == 0) {
      j.null();
    } else {
      j.open('{')
          .key("input")
          .str(first_failure_input.c_str())
          .key("code")
          .integer(first_failure_code)
          .close('}');
    }
    j.key("interrupted").boolean(interrupted).key("verified");
    if (verified < 0)
      j.null();
    else
      j.boolean(verified == 1);
    if (more) more(j);
    j.close('}');
    return j.text();
  }
  static const char* backend() {
#if ASCGEN_BACKEND_SIM
    return "simulator";
#else
    return "cann";
#endif
  }
};

// What one device of several leaves for the parent that merges their reports: its report and
// its error line, in memory (deploy: threads, set on the device's thread) or sent up a pipe
// (deploy: processes, set in the device's process). nullptr: the program's only device.
struct DeviceOutput {
  std::string report;
  std::string error;
};

inline DeviceOutput*& device_output() {
  thread_local DeviceOutput* out = nullptr;
  return out;
}

// A JSON document to stdout and, if given, to a file; a failed write is an error.
inline void write_json(const std::string& text, const std::string& path) {
  std::printf("%s\n", text.c_str());
  std::fflush(stdout);
  if (path.empty()) return;
  std::ofstream f(path);
  f << text << "\n";
  f.close();
  if (!f) throw std::runtime_error("cannot write the JSON report to '" + path + "'");
}

inline void Report::write(const LatencyHistogram& latency, const std::string& path,
                          bool quiet) const {
  (void)quiet;  // --quiet drops the progress lines only; the result is always printed
  if (DeviceOutput* out = device_output())
    out->report = json(latency);
  else
    write_json(json(latency), path);
}

// ---------------------------------------------------------------- host postprocess

// Top-k of one frame's scores, folded into a checksum so the work cannot be optimised away.
inline uint64_t top_k_checksum(const float* scores, int n, int k) {
  int best[64];
  k = std::min(k, 64);
  int filled = 0;
  for (int i = 0; i < n; ++i) {
    if (filled == k && !(scores[i] > scores[best[k - 1]])) continue;
    int pos = filled < k ? filled++ : k - 1;
    while (pos > 0 && scores[i] > scores[best[pos - 1]]) {
      best[pos] = best[pos - 1];
      --pos;
    }
    best[pos] = i;
  }
  uint64_t sum = 0;
  for (int i = 0; i < filled; ++i) sum = sum * 31 + static_cast<uint64_t>(best[i]);
  return sum;
}

inline bool same_bytes(const std::vector<uint8_t>& expected, const uint8_t* got, size_t n) {
  return expected.size() == n && std::memcmp(expected.data(), got, n) == 0;
}

}  // namespace ascgen

#endif  // ASCGEN_HOST_H_
