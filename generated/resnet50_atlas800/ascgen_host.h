// ascgen_host.h: the host side of every generated program: options, CPU affinity, inputs,
// signals, latency histogram, progress lines and the final JSON report. No AscendCL here.
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

// ---------------------------------------------------------------- options

struct Options {
  int threads = 1;
  int depth = 4;
  double duration_s = 10.0;
  double warmup_s = 1.0;
  int64_t frames = 0;  // stop after this many measured frames (0: run for duration_s)
  std::string input;
  std::string model;
  std::string json_path;
  std::string pin;
  bool verify = false;
  bool quiet = false;               // no progress lines (the final JSON is still printed)
  bool skip_decode_errors = false;  // --on-decode-error skip: count failed frames, do not fail
  std::string only_stage;  // --only-stage: after one full window, submit only this stage's steps
  std::string devices;     // --devices: the devices to run on ("": the program's one device)
  std::string deploy = "processes";  // --deploy: several devices as processes or threads
  std::string numa = "none";         // --numa: device, none or a node (ascgen_numa.h)
  std::string numa_topology;         // the simulated host's: "device0=0;node0=0-23;..."
  std::string error_path;  // a device's process: where its error line goes too (for the parent)
  // The load of a server (source kind requests; ascgen_serving.h): a closed loop of --clients,
  // or an open loop at --rate requests/s (--arrival constant|poisson), or a --trace replay.
  int clients = 0;
  double rate = 0;
  bool poisson = false;
  std::string trace;
  bool load_given = false;  // any of them on the command line
};

// Set by parse_options from --quiet; Progress reads it.
inline std::atomic<bool>& quiet_progress() {
  static std::atomic<bool> quiet{false};
  return quiet;
}

enum class FlagKind { kInt, kSeconds, kNumber, kText, kSwitch, kHelp };

struct FlagSpec {
  const char* name;
  FlagKind kind;
  const char* arg;   // shown in --help
  double lo, hi;     // kInt and kSeconds
  const char* help;  // one line
};

inline const FlagSpec* flag_specs(size_t* count) {
  static const FlagSpec specs[] = {
      {"--threads", FlagKind::kInt, "N", 1, 64,
       "host threads, each its own pipeline (default: the spec's)"},
      {"--depth", FlagKind::kInt, "D", 1, 256, "frames in flight per thread (default: the spec's)"},
      {"--duration", FlagKind::kSeconds, "S", 0.1, 86400,
       "seconds measured, after the warm-up (default 10)"},
      {"--warmup", FlagKind::kSeconds, "S", 0, 3600, "seconds run before measuring (default 1)"},
      {"--frames", FlagKind::kInt, "N", 1, 1e12,
       "stop after N measured frames instead of --duration"},
      {"--input", FlagKind::kText, "PATH", 0, 0,
       "a JPEG file or a folder of them (default: the spec's source.path)"},
      {"--model", FlagKind::kText, "PATH", 0, 0, "the model file (default: the spec's model path)"},
      {"--json", FlagKind::kText, "PATH", 0, 0, "also write the final JSON report to PATH"},
      {"--pin", FlagKind::kText, "CPUS", 0, 0,
       "pin threads to big, little, all or a list of CPUs (0,2,4)"},
      {"--verify", FlagKind::kSwitch, "", 0, 0,
       "check every output against a serial reference run"},
      {"--quiet", FlagKind::kSwitch, "", 0, 0,
       "no progress lines on stderr (the final JSON is still printed)"},
      {"--only-stage", FlagKind::kText, "STAGE", 0, 0,
       "measure one stage alone: after one full window, submit only its steps (per_thread by_step "
       "programs)"},
      {"--on-decode-error", FlagKind::kText, "fail|skip", 0, 0,
       "a frame whose decode failed: fail the run (exit 1, default) or skip it and count it"},
      {"--devices", FlagKind::kText, "LIST", 0, 0,
       "run on these devices (0,2); default: the spec's"},
      {"--numa", FlagKind::kText, "device|none|NODE", 0, 0,
       "bind each device's threads and pinned memory to its NUMA node, none, or node NODE"},
      {"--deploy", FlagKind::kText, "processes|threads", 0, 0,
       "several devices: a process each, or a thread each in one process (default: the spec's)"},
      {"--clients", FlagKind::kInt, "N", 1, 4096,
       "servers: N closed-loop clients, each sends its next request when its last one completes"},
      {"--rate", FlagKind::kNumber, "R", 0.001, 1e7, "servers: open loop at R requests/s"},
      {"--arrival", FlagKind::kText, "constant|poisson", 0, 0,
       "servers: the open loop's arrivals (default constant)"},
      {"--trace", FlagKind::kText, "FILE", 0, 0,
       "servers: replay the request times in FILE (one time in microseconds per line)"},
      {"--help", FlagKind::kHelp, "", 0, 0, "print this help and exit"},
  };
  *count = sizeof specs / sizeof specs[0];
  return specs;
}

// A usage error: one line on stderr, exit 2.
[[noreturn]] inline void usage_error(const char* program, const std::string& error) {
  std::fprintf(stderr, "%s: %s (see --help)\n", program, error.c_str());
  std::exit(2);
}

[[noreturn]] inline void usage(const char* program, const char* error) {
  if (error) usage_error(program, error);
  std::printf("usage: %s [flags]  (--flag VALUE or --flag=VALUE)\n", program);
  size_t n = 0;
  const FlagSpec* specs = flag_specs(&n);
  for (size_t i = 0; i < n; ++i) {
    std::string left = std::string(specs[i].name) + (specs[i].arg[0] ? " " : "") + specs[i].arg;
    std::printf("  %-18s %s\n", left.c_str(), specs[i].help);
  }
  std::exit(0);
}

inline std::string format_limit(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

// A whole number in lo..hi, or why not.
inline bool parse_int(const std::string& text, double lo, double hi, int64_t* out) {
  if (text.empty() ||
      !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-' || text[0] == '+'))
    return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  if (static_cast<double>(v) < lo || static_cast<double>(v) > hi) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

// A finite number in lo..hi (no nan, inf or hex), or why not.
inline bool parse_seconds(const std::string& text, double lo, double hi, double* out) {
  if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v) || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// What `path` is when it is not a regular file ("a FIFO", ...), for messages.
inline const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Whether `path` can be written: an existing file is opened for writing (not truncated); a
// new one is created and removed. Checked at start-up, before any device work.
inline std::string cannot_write(const std::string& path) {
  struct stat st{};
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "it is a folder";
    int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return std::strerror(errno);
    close(fd);
    return "";
  }
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return std::strerror(errno);
  close(fd);
  unlink(path.c_str());
  return "";
}

inline Options parse_options(int argc, char** argv, Options o) {
  const char* slash = std::strrchr(argv[0], '/');
  const char* program = slash ? slash + 1 : argv[0];
  size_t n = 0;
  const FlagSpec* specs = flag_specs(&n);
  std::vector<std::string> loads;  // the load flags given (a server takes one)
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string name = arg, text;
    bool inline_value = false;
    size_t eq = arg.find('=');
    if (arg.compare(0, 2, "--") == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      text = arg.substr(eq + 1);
      inline_value = true;
    }
    if (name == "-h") name = "--help";
    const FlagSpec* spec = nullptr;
    for (size_t k = 0; k < n; ++k)
      if (name == specs[k].name) spec = &specs[k];
    if (spec == nullptr) {
      if (arg.compare(0, 1, "-") != 0) usage_error(program, "unexpected argument '" + arg + "'");
      usage_error(program, "unknown flag '" + name + "'");
    }
    if (spec->kind == FlagKind::kSwitch || spec->kind == FlagKind::kHelp) {
      if (inline_value) usage_error(program, name + " takes no value");
      if (spec->kind == FlagKind::kHelp) usage(program, nullptr);
      if (name == "--verify") o.verify = true;
      if (name == "--quiet") o.quiet = true;
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argc) usage_error(program, name + " needs a value");
      text = argv[++i];
    }
    if (spec->kind == FlagKind::kInt) {
      int64_t v = 0;
      if (!parse_int(text, spec->lo, spec->hi, &v))
        usage_error(program, name + " takes a whole number in " + format_limit(spec->lo) + ".." +
                                 format_limit(spec->hi) + ", not '" + text + "'");
      if (name == "--threads") o.threads = static_cast<int>(v);
      if (name == "--depth") o.depth = static_cast<int>(v);
      if (name == "--frames") o.frames = v;
      if (name == "--clients") {
        o.clients = static_cast<int>(v);
        o.load_given = true;
        if (std::find(loads.begin(), loads.end(), name) == loads.end()) loads.push_back(name);
      }
    } else if (spec->kind == FlagKind::kSeconds) {
      double v = 0;
      if (!parse_seconds(text, spec->lo, spec->hi, &v))
        usage_error(program, name + " takes a number of seconds in " + format_limit(spec->lo) +
                                 ".." + format_limit(spec->hi) + ", not '" + text + "'");
      if (name == "--duration") o.duration_s = v;
      if (name == "--warmup") o.warmup_s = v;
    } else if (spec->kind == FlagKind::kNumber) {
      double v = 0;
      if (!parse_seconds(text, spec->lo, spec->hi, &v))
        usage_error(program, name + " takes a number in " + format_limit(spec->lo) + ".." +
                                 format_limit(spec->hi) + ", not '" + text + "'");
      if (name == "--rate") o.rate = v;
      o.load_given = true;
      if (std::find(loads.begin(), loads.end(), name) == loads.end()) loads.push_back(name);
    } else {
      if (text.empty()) usage_error(program, name + " needs a value");
      if (name == "--input") o.input = text;
      if (name == "--model") o.model = text;
      if (name == "--json") o.json_path = text;
      if (name == "--pin") o.pin = text;
      if (name == "--only-stage") o.only_stage = text;
      if (name == "--devices") o.devices = text;
      if (name == "--numa") {
        int64_t node = 0;
        if (text != "device" && text != "none" && !parse_int(text, 0, 255, &node))
          usage_error(program, "--numa takes device, none or a node 0..255, not '" + text + "'");
        o.numa = text;
      }
      if (name == "--deploy") {
        if (text != "processes" && text != "threads")
          usage_error(program, "--deploy takes processes or threads, not '" + text + "'");
        o.deploy = text;
      }
      if (name == "--trace") {
        o.trace = text;
        o.load_given = true;
        if (std::find(loads.begin(), loads.end(), name) == loads.end()) loads.push_back(name);
      }
      if (name == "--arrival") {
        if (text != "constant" && text != "poisson")
          usage_error(program, "--arrival takes constant or poisson, not '" + text + "'");
        o.poisson = text == "poisson";
      }
      if (name == "--on-decode-error") {
        if (text != "fail" && text != "skip")
          usage_error(program, "--on-decode-error takes fail or skip, not '" + text + "'");
        o.skip_decode_errors = text == "skip";
      }
    }
  }
  struct stat model_st{};
  // (a folder is left to the program: one without a model stage ignores --model)
  if (!o.model.empty() && stat(o.model.c_str(), &model_st) == 0 && !S_ISREG(model_st.st_mode) &&
      !S_ISDIR(model_st.st_mode))
    usage_error(program, "--model: '" + o.model + "' is " + file_kind(model_st.st_mode) +
                             ", not a regular file");
  if (loads.size() > 1) usage_error(program, "give one load: --clients, --rate or --trace");
  if (!o.json_path.empty()) {
    std::string why = cannot_write(o.json_path);
    if (!why.empty()) usage_error(program, "--json: cannot write '" + o.json_path + "': " + why);
  }
  quiet_progress() = o.quiet;
  return o;
}

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
inline std::vector<uint8_t> read_file(const std::string& path, size_t max_bytes) {
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw std::runtime_error("cannot read input '" + path + "': " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st{};
  if (fstat(fd, &st) != 0)
    throw std::runtime_error("cannot read input '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw std::runtime_error("input '" + path + "' is " + file_kind(st.st_mode) +
                             ", not a regular file");
  auto too_big = [&](size_t bytes) {
    return std::runtime_error("input '" + path + "' has " + std::to_string(bytes) +
                              " bytes, more than the spec's max_bytes " +
                              std::to_string(max_bytes));
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
    if (r < 0)
      throw std::runtime_error("cannot read input '" + path + "': " + std::strerror(errno));
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

// A file, or every *.jpg / *.jpeg in a folder sorted by name (a reproducible frame order).
// Each must be a regular file of at most max_bytes; at most kMaxInputFiles of them.
inline std::vector<InputFile> load_inputs(const std::string& path, size_t max_bytes) {
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
      if (ends(".jpg") || ends(".jpeg")) files.push_back(path + "/" + name);
    }
    closedir(dir);
    std::sort(files.begin(), files.end());
    if (files.empty()) throw std::runtime_error("no .jpg or .jpeg files in '" + path + "'");
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

  // print: also on stdout (not for one device of several: the merged report is printed).
  void write(const LatencyHistogram& latency, const std::string& path, bool quiet,
             bool print = true) const {
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
    (void)quiet;  // --quiet drops the progress lines only; the result is always printed
    if (print) {
      std::printf("%s\n", j.text().c_str());
      std::fflush(stdout);
    }
    if (!path.empty()) {
      std::ofstream f(path);
      f << j.text() << "\n";
      f.close();
      if (!f) throw std::runtime_error("cannot write the JSON report to '" + path + "'");
    }
  }
  static const char* backend() {
#if ASCGEN_BACKEND_SIM
    return "simulator";
#else
    return "cann";
#endif
  }
};

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
