// ascgen_options.h: the command line of every generated program: the options, the flags
// table (--help is made from it) and their parsing, each value checked with a one-line usage
// error (exit 2) before any device work. No AscendCL here.
// Emitted verbatim by ascgen; hand-written, reviewed once, shared by every pipeline.

#ifndef ASCGEN_OPTIONS_H_
#define ASCGEN_OPTIONS_H_

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "ascgen_files.h"

namespace ascgen {

struct Options {
  Options();  // the special members in ascgen_options.cpp: not compiled by every program
  Options(const Options&);
  Options& operator=(const Options&);
  ~Options();
  int threads = 1;
  int depth = 4;
  double duration_s = 10.0;
  double warmup_s = 1.0;
  int64_t frames = 0;  // stop after this many measured frames (0: run for duration_s)
  std::string input;
  std::string model;
  std::string json_path;
  std::string profile_dir;  // --profile: write a device profile of the measured run here
  std::string pin;
  bool verify = false;
  bool quiet = false;               // no progress lines (the final JSON is still printed)
  bool skip_decode_errors = false;  // --on-decode-error skip: count failed frames, do not fail
  bool require_fps = false;  // --require-fps: a video stream below its fps, or dropping, fails
  std::string only_stage;    // --only-stage: after one full window, submit only this stage's steps
  std::string devices;       // --devices: the devices to run on ("": the program's one device)
  std::string deploy = "processes";  // --deploy: several devices as processes or threads
  std::string numa = "none";         // --numa: device, none or a node (ascgen_numa.h)
  std::string numa_topology;         // the simulated host's: "device0=0;node0=0-23;..."
  // The load of a server (source kind requests; ascgen_serving.h): a closed loop of --clients,
  // or an open loop at --rate requests/s (--arrival constant|poisson), or a --trace replay.
  int clients = 0;
  double rate = 0;
  bool poisson = false;
  std::string trace;
  std::string priority_mix;  // --priority-mix W0:W1:...: requests per priority level (servers)
  bool load_given = false;   // any of them on the command line
};

// Set by parse_options from --quiet; Progress reads it.
std::atomic<bool>& quiet_progress();

enum class FlagKind { kInt, kSeconds, kNumber, kText, kSwitch, kHelp };

struct FlagSpec {
  const char* name;
  FlagKind kind;
  const char* arg;   // shown in --help
  double lo, hi;     // kInt and kSeconds
  const char* help;  // one line
};

const FlagSpec* flag_specs(size_t* count);

// A usage error: one line on stderr, exit 2.
[[noreturn]] void usage_error(const char* program, const std::string& error);

[[noreturn]] void usage(const char* program, const char* error);

std::string format_limit(double v);

// A whole number in lo..hi, or why not.
bool parse_int(const std::string& text, double lo, double hi, int64_t* out);

// A finite number in lo..hi (no nan, inf or hex), or why not.
bool parse_seconds(const std::string& text, double lo, double hi, double* out);

Options parse_options(int argc, char** argv, Options o);

}  // namespace ascgen

#endif  // ASCGEN_OPTIONS_H_
