// Device rules (rules.h): the RULE line, the count and the exit status.
#include "rules/rules.h"

#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "core/device.h"
#include "report/log.h"

namespace sim {
namespace {

std::atomic<uint64_t> g_rules{0};

// A pipeline that breaks a rule breaks it every frame: the first kShown lines
// of each rule are logged, then one line saying the rest are only counted.
constexpr int kShown = 10;

bool shown(const char* rule) {
  static auto* mu = new std::mutex;  // never destroyed: rules may fire during exit
  static auto* seen = new std::map<std::string, int>;
  std::lock_guard<std::mutex> lock(*mu);
  int n = ++(*seen)[rule];
  if (n == kShown + 1) report("RULE", "%s: further violations are counted, not shown", rule);
  return n <= kShown;
}

void exit_hook() {
  uint64_t n = g_rules.load();
  if (n == 0) return;
  std::fflush(nullptr);
  std::fprintf(stderr, "[acl_sim] RULE %llu device rule violation(s): exit status %d\n",
               static_cast<unsigned long long>(n), rules::kExitStatus);
  std::fflush(stderr);
  _exit(rules::kExitStatus);
}

}  // namespace

aclError raise_rule(Rule rule, aclError code, const char* api, const char* fmt, ...) {
  const RuleInfo& info = rule_info(rule);
  char detail[768];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  char outcome[32];
  std::snprintf(outcome, sizeof outcome, "-> %d", code);
  switch (info.kind) {
    case RuleKind::kArgument:
      rule_line(LogLevel::kError, info.id, api, outcome, detail);
      break;
    case RuleKind::kWarning:
      rule_line(LogLevel::kWarn, info.id, api, "warning", detail);
      break;
    case RuleKind::kDevice: {
      g_rules.fetch_add(1);
      if (!shown(info.id)) {
        set_last_rule(info.id);
        break;
      }
      char line[1024];
      std::snprintf(line, sizeof line, "%s [source: %s]", detail, info.source);
      rule_line(LogLevel::kError, info.id, api, outcome, line);
      break;
    }
  }
  return code;
}

aclError null_arg(const char* api, const char* what) {
  return raise_rule(Rule::kArgsNonNull, ACL_ERROR_INVALID_PARAM, api, "%s is NULL", what);
}

aclError not_initialized(const char* api) {
  return raise_rule(Rule::kInitRequired, ACL_ERROR_UNINITIALIZE, api, "call aclInit first");
}

std::string stream_label(const Stream* s) {
  if (s == nullptr) return "stream ?";
  std::string out = "stream " + std::to_string(s->id);
  if (s->is_default) out += " (default)";
  if (!s->name.empty()) out += " '" + s->name + "'";
  return out;
}

namespace rules {

void configure() {
  static bool hooked = false;  // aclInit holds Runtime::mu
  if (!hooked) {
    hooked = true;
    std::atexit(exit_hook);
  }
}

uint64_t count() {
  return g_rules.load();
}

uint64_t take() {
  return g_rules.exchange(0);
}

aclError finalize() {
  uint64_t n = g_rules.load();
  if (n == 0) return ACL_SUCCESS;
  report("RULE", "%llu device rule violation(s): aclFinalize returns %d, the process exits %d",
         static_cast<unsigned long long>(n), ACL_ERROR_INTERNAL_ERROR, kExitStatus);
  return ACL_ERROR_INTERNAL_ERROR;
}

}  // namespace rules
}  // namespace sim
