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

// One rule line, "[acl_sim] <LEVEL> RULE <rule> in <api> (<outcome>): <detail>", and
// `rule` as the calling thread's last rule. Only raise_rule (rules/rules.h) calls it.
void rule_line(LogLevel level, const char* rule, const char* api, const char* outcome,
               const char* detail);

const char* last_rule();
void set_last_rule(const char* rule);
void clear_last_rule();

}  // namespace sim

#endif  // ACL_SIM_SRC_LOG_H_
