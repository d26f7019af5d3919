#include "core/profile.h"

#include <cstdlib>
#include <fstream>

namespace sim {
namespace {

// Keys the runtime core cannot work without; each must parse as a number > 0
// unless listed in kMayBeZero. DVPP and model code check their own keys.
const char* const kRequired[] = {
    "memory.device_bytes",        "memory.dvpp_bytes",
    "align.device_addr",          "align.dvpp_addr",
    "align.memcpy_async_addr",    "align.alloc_granule",
    "align.alloc_padding",        "engines.h2d.units",
    "engines.h2d.latency_us",     "engines.h2d.bandwidth_GBps",
    "engines.d2h.units",          "engines.d2h.latency_us",
    "engines.d2h.bandwidth_GBps", "engines.d2d.units",
    "engines.d2d.latency_us",     "engines.d2d.bandwidth_GBps",
    "engines.jpegd.units",        "engines.vpc.units",
    "engines.aicore.units",       "engines.scheduler.per_task_us",
    "engines.host.submit_us",
};
const char* const kMayBeZero[] = {"align.alloc_padding",           "engines.h2d.latency_us",
                                  "engines.d2h.latency_us",        "engines.d2d.latency_us",
                                  "engines.scheduler.per_task_us", "engines.host.submit_us"};

bool parse_number(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return end != nullptr && *end == '\0';
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

Profile g_profile;

}  // namespace

bool Profile::load(const std::string& path, std::string* error) {
  values_.clear();
  path_ = path;
  if (path.empty()) {
    *error =
        "no device profile: set ACL_SIM_PROFILE to a flat profile "
        "(ascgen profile ascend310 --flat > f) or build with ACL_SIM_DEFAULT_PROFILE";
    return false;
  }
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read device profile '" + path + "'";
    return false;
  }
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos) {
      *error = path + ":" + std::to_string(lineno) + ": expected key=value, got '" + line + "'";
      return false;
    }
    values_[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
  }
  for (const char* key : kRequired) {
    auto it = values_.find(key);
    if (it == values_.end()) {
      *error = "device profile '" + path + "' lacks key '" + key + "'";
      return false;
    }
    double v = 0;
    bool zero_ok = false;
    for (const char* z : kMayBeZero) zero_ok |= it->first == z;
    if (!parse_number(it->second, &v) || v < 0 || (v == 0 && !zero_ok)) {
      *error =
          "device profile '" + path + "': key '" + key + "' has bad value '" + it->second + "'";
      return false;
    }
  }
  return true;
}

double Profile::num(const std::string& key, double fallback) const {
  auto it = values_.find(key);
  double v = 0;
  if (it == values_.end() || !parse_number(it->second, &v)) return fallback;
  return v;
}

std::string Profile::str(const std::string& key, const std::string& fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

const Profile& profile() {
  return g_profile;
}
Profile& mutable_profile() {
  return g_profile;
}

std::string profile_path() {
  const char* env = std::getenv("ACL_SIM_PROFILE");
  if (env != nullptr && *env != '\0') return env;
#ifdef ACL_SIM_DEFAULT_PROFILE
  return ACL_SIM_DEFAULT_PROFILE;
#else
  return "";
#endif
}

}  // namespace sim
