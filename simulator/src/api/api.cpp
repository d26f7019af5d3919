#include "api/api.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "acl/acl_rt.h"
#include "api/runtime.h"
#include "report/log.h"
#include "rules/callback_rules.h"

namespace sim {
namespace {

struct Rule {
  std::string api;
  uint64_t nth = 0;
  aclError code = 0;
  int device = -1;     // @D: only calls made while device D is current on the calling thread
  uint64_t calls = 0;  // those calls so far (device rules count their own)
};

struct Counter {
  uint64_t calls = 0;
  std::vector<Rule*> rules;  // rules naming this API
};

struct Faults {
  std::mutex mu;
  bool loaded = false;
  std::vector<Rule> rules;
  // Keyed by the __func__ pointer: one lookup per call, no string hashing.
  std::unordered_map<const char*, Counter> counters;
};

Faults& faults() {
  static Faults f;
  return f;
}

// All decimal digits, at least one.
bool digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos && s.size() <= 9;
}

// The device of the calling thread's current context, -1 if it has none.
int current_device() {
  const Context* ctx = current_context();
  return ctx == nullptr ? -1 : ctx->device_id;
}

// Parses API:N[:CODE][@DEVICE],...; on a bad rule returns false with *error naming it.
bool parse_rules(const char* spec, std::vector<Rule>* out, std::string* error) {
  out->clear();
  if (spec == nullptr) return true;
  std::stringstream all(spec);
  std::string item;
  while (std::getline(all, item, ',')) {
    if (item.empty()) continue;
    std::string device;
    const size_t at = item.find('@');
    if (at != std::string::npos) {
      device = item.substr(at + 1);
      item.resize(at);
    }
    std::stringstream parts(item);
    std::string api, nth, code, extra;
    std::getline(parts, api, ':');
    std::getline(parts, nth, ':');
    std::getline(parts, code, ':');
    std::getline(parts, extra);
    const char* why = nullptr;
    if (api.empty() || !is_api_name(api.c_str()))
      why = "no public API has this name";
    else if (!digits(nth) || std::strtoull(nth.c_str(), nullptr, 10) == 0)
      why = "N must be a call number >= 1";
    else if (!code.empty() && (!digits(code) || std::atoi(code.c_str()) == 0))
      why = "CODE must be a non-zero error code";
    else if (!extra.empty())
      why = "too many fields";
    else if (at != std::string::npos && !digits(device))
      why = "DEVICE must be a device id >= 0";
    if (why != nullptr) {
      *error = "bad rule '" + item + "': " + why +
               " (want API:N[:CODE][@DEVICE], e.g. aclrtMalloc:2:207001 or aclrtMalloc:2@1)";
      return false;
    }
    Rule r;
    r.api = api;
    r.nth = std::strtoull(nth.c_str(), nullptr, 10);
    r.code = code.empty() ? default_fault_code(api.c_str()) : std::atoi(code.c_str());
    r.device = device.empty() ? -1 : std::atoi(device.c_str());
    out->push_back(r);
  }
  return true;
}

void attach_rules(Faults& f, const char* name, Counter* c) {
  c->rules.clear();
  for (Rule& r : f.rules)
    if (r.api == name) c->rules.push_back(&r);
}

std::string g_env_error;  // guarded by Faults::mu

void ensure_loaded(Faults& f) {
  if (f.loaded) return;
  f.loaded = true;
  if (!parse_rules(std::getenv("ACL_SIM_FAIL"), &f.rules, &g_env_error)) f.rules.clear();
}

}  // namespace

aclError default_fault_code(const char* name) {
  struct Pattern {
    const char* part;
    aclError code;
  };
  static const Pattern kPatterns[] = {
      {"Malloc", ACL_ERROR_RT_MEMORY_ALLOCATION},
      {"Memcpy", ACL_ERROR_RT_SYS_DMA},
      {"Memset", ACL_ERROR_RT_SYS_DMA},
      {"CreateStream", ACL_ERROR_RT_NO_STREAM_RESOURCE},
      {"CreateEvent", ACL_ERROR_RT_NO_EVENT_RESOURCE},
      {"Execute", ACL_ERROR_RT_MODEL_EXECUTE},
      {"Load", ACL_ERROR_INVALID_FILE},
      {"aclInit", ACL_ERROR_INVALID_FILE},
      {"SetDevice", ACL_ERROR_RT_NO_DEVICE},
      {"Synchronize", ACL_ERROR_RT_STREAM_SYNC_TIMEOUT},
      {"ProcessReport", ACL_ERROR_RT_REPORT_TIMEOUT},
      {"acldvpp", ACL_ERROR_RT_FAILURE},
  };
  for (const Pattern& p : kPatterns)
    if (std::strstr(name, p.part) != nullptr) return p.code;
  return ACL_ERROR_RT_INTERNAL_ERROR;
}

aclError api_enter(const char* name) {
  if (aclError rc = callback_rules::check(name)) return rc;  // inside a host callback
  Faults& f = faults();
  std::lock_guard<std::mutex> lock(f.mu);
  ensure_loaded(f);
  auto it = f.counters.find(name);
  if (it == f.counters.end()) {
    it = f.counters.emplace(name, Counter{}).first;
    attach_rules(f, name, &it->second);
  }
  Counter& c = it->second;
  ++c.calls;
  for (Rule* r : c.rules) {
    uint64_t nth = c.calls;
    if (r->device >= 0) {
      if (current_device() != r->device) continue;
      nth = ++r->calls;
    }
    if (r->nth == nth) {
      log(LogLevel::kWarn, "ACL_SIM_FAIL: injected failure %d into call %llu of %s%s", r->code,
          static_cast<unsigned long long>(nth), name,
          r->device >= 0 ? (" on device " + std::to_string(r->device)).c_str() : "");
      return r->code;
    }
  }
  return ACL_SUCCESS;
}

aclError set_fault_rules(const char* spec) {
  Faults& f = faults();
  std::lock_guard<std::mutex> lock(f.mu);
  f.loaded = true;
  std::vector<Rule> rules;
  std::string error;
  if (!parse_rules(spec, &rules, &error)) {
    log(LogLevel::kError, "aclsimSetFaults: %s", error.c_str());
    return ACL_ERROR_INVALID_PARAM;
  }
  f.rules = std::move(rules);
  for (auto& kv : f.counters) {
    kv.second.calls = 0;
    attach_rules(f, kv.first, &kv.second);
  }
  return ACL_SUCCESS;
}

const char* fault_env_error() {
  Faults& f = faults();
  std::lock_guard<std::mutex> lock(f.mu);
  ensure_loaded(f);
  return g_env_error.c_str();
}

uint64_t api_call_count(const char* name) {
  Faults& f = faults();
  std::lock_guard<std::mutex> lock(f.mu);
  uint64_t n = 0;
  for (const auto& kv : f.counters)
    if (std::strcmp(kv.first, name) == 0) n += kv.second.calls;
  return n;
}

}  // namespace sim
