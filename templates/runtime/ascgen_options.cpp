// ascgen_options.cpp: what ascgen_options.h declares (README.md: how it is compiled).

#include "ascgen_options.h"

namespace ascgen {

Options::Options() = default;
Options::Options(const Options&) = default;
Options& Options::operator=(const Options&) = default;
Options::~Options() = default;

std::atomic<bool>& quiet_progress() {
  static std::atomic<bool> quiet{false};
  return quiet;
}

const FlagSpec* flag_specs(size_t* count) {
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
      {"--profile", FlagKind::kText, "DIR", 0, 0,
       "profile the measured run into DIR (CANN: msprof data; simulator: DIR/trace.json)"},
      {"--pin", FlagKind::kText, "CPUS", 0, 0,
       "pin threads to big, little, all or a list of CPUs (0,2,4)"},
      {"--verify", FlagKind::kSwitch, "", 0, 0,
       "check every output against a serial reference run"},
      {"--quiet", FlagKind::kSwitch, "", 0, 0,
       "no progress lines on stderr (the final JSON is still printed)"},
      {"--require-fps", FlagKind::kSwitch, "", 0, 0,
       "video: exit 1 when a stream completes less than its fps or drops a frame"},
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
      {"--priority-mix", FlagKind::kText, "W0:W1:...", 0, 0,
       "servers: requests at priority level k (0 highest) in proportion Wk (closed loop: clients)"},
      {"--help", FlagKind::kHelp, "", 0, 0, "print this help and exit"},
  };
  *count = sizeof specs / sizeof specs[0];
  return specs;
}

[[noreturn]] void usage_error(const char* program, const std::string& error) {
  std::fprintf(stderr, "%s: %s (see --help)\n", program, error.c_str());
  std::exit(2);
}

[[noreturn]] void usage(const char* program, const char* error) {
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

std::string format_limit(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

bool parse_int(const std::string& text, double lo, double hi, int64_t* out) {
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

bool parse_seconds(const std::string& text, double lo, double hi, double* out) {
  if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v) || v < lo || v > hi) return false;
  *out = v;
  return true;
}

Options parse_options(int argc, char** argv, Options o) {
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
      if (arg.compare(0, 1, "-") != 0)
        usage_error(program, "unexpected argument '" + shown(arg) + "'");
      usage_error(program, "unknown flag '" + shown(name) + "'");
    }
    if (spec->kind == FlagKind::kSwitch || spec->kind == FlagKind::kHelp) {
      if (inline_value) usage_error(program, name + " takes no value");
      if (spec->kind == FlagKind::kHelp) usage(program, nullptr);
      if (name == "--verify") o.verify = true;
      if (name == "--quiet") o.quiet = true;
      if (name == "--require-fps") o.require_fps = true;
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
                                 format_limit(spec->hi) + ", not '" + shown(text) + "'");
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
                                 ".." + format_limit(spec->hi) + ", not '" + shown(text) + "'");
      if (name == "--duration") o.duration_s = v;
      if (name == "--warmup") o.warmup_s = v;
    } else if (spec->kind == FlagKind::kNumber) {
      double v = 0;
      if (!parse_seconds(text, spec->lo, spec->hi, &v))
        usage_error(program, name + " takes a number in " + format_limit(spec->lo) + ".." +
                                 format_limit(spec->hi) + ", not '" + shown(text) + "'");
      if (name == "--rate") o.rate = v;
      o.load_given = true;
      if (std::find(loads.begin(), loads.end(), name) == loads.end()) loads.push_back(name);
    } else {
      if (text.empty()) usage_error(program, name + " needs a value");
      if (name == "--input") o.input = text;
      if (name == "--model") o.model = text;
      if (name == "--json") o.json_path = text;
      if (name == "--profile") o.profile_dir = text;
      if (name == "--pin") o.pin = text;
      if (name == "--only-stage") o.only_stage = text;
      if (name == "--devices") o.devices = text;
      if (name == "--numa") {
        int64_t node = 0;
        if (text != "device" && text != "none" && !parse_int(text, 0, 255, &node))
          usage_error(program,
                      "--numa takes device, none or a node 0..255, not '" + shown(text) + "'");
        o.numa = text;
      }
      if (name == "--deploy") {
        if (text != "processes" && text != "threads")
          usage_error(program, "--deploy takes processes or threads, not '" + shown(text) + "'");
        o.deploy = text;
      }
      if (name == "--trace") {
        o.trace = text;
        o.load_given = true;
        if (std::find(loads.begin(), loads.end(), name) == loads.end()) loads.push_back(name);
      }
      if (name == "--priority-mix") o.priority_mix = text;
      if (name == "--arrival") {
        if (text != "constant" && text != "poisson")
          usage_error(program, "--arrival takes constant or poisson, not '" + shown(text) + "'");
        o.poisson = text == "poisson";
      }
      if (name == "--on-decode-error") {
        if (text != "fail" && text != "skip")
          usage_error(program, "--on-decode-error takes fail or skip, not '" + shown(text) + "'");
        o.skip_decode_errors = text == "skip";
      }
    }
  }
  struct stat model_st{};
  // (a folder is left to the program: one without a model stage ignores --model)
  if (!o.model.empty() && stat(o.model.c_str(), &model_st) == 0 && !S_ISREG(model_st.st_mode) &&
      !S_ISDIR(model_st.st_mode))
    usage_error(program, "--model: '" + shown(o.model, kShownPath) + "' is " +
                             file_kind(model_st.st_mode) + ", not a regular file");
  if (loads.size() > 1) usage_error(program, "give one load: --clients, --rate or --trace");
  if (!o.profile_dir.empty() && o.deploy == "threads" && o.devices.find(',') != std::string::npos)
    usage_error(program, "--profile profiles one device per process: use --deploy processes");
  if (!o.json_path.empty()) {
    std::string why = cannot_write(o.json_path);
    if (!why.empty())
      usage_error(program, "--json: cannot write '" + shown(o.json_path, kShownPath) + "': " + why);
  }
  quiet_progress() = o.quiet;
  return o;
}

}  // namespace ascgen
