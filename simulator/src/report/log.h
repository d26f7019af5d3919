// Simulator log: one line per message to the sink chosen by ACL_SIM_LOG.
//
//   unset          warnings and errors to stderr
//   "stderr"       everything (info too) to stderr
//   "none"         nothing
//   any other      everything, appended to that file path
// ACL_SIM_LOG_LEVEL=error|warn|info|debug overrides the level.
#ifndef ACL_SIM_SRC_LOG_H_
#define ACL_SIM_SRC_LOG_H_

#include "acl/acl_base.h"

namespace sim {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

bool log_enabled(LogLevel level);
void log(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// An error-level line with its own tag instead of ERROR: "[acl_sim] <tag> <message>"
// (HAZARD, LEAK).
void report(const char* tag, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// A device rule was broken: logs one line "RULE <rule> in <api>: <detail> -> <code>",
// remembers `rule` as the calling thread's last rule, and returns `code`.
aclError violate(aclError code, const char* api, const char* rule, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));

// A documented-but-dubious use (ACL_FACTS section 7): a warning naming the rule.
void warn_rule(const char* api, const char* rule, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// Shorthands for the two commonest violations.
aclError null_arg(const char* api, const char* what);  // 100000, rule args.non_null
aclError not_initialized(const char* api);             // 100001, rule init.required

const char* last_rule();
void set_last_rule(const char* rule);
void clear_last_rule();

}  // namespace sim

#endif  // ACL_SIM_SRC_LOG_H_
