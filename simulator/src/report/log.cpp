#include "report/log.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace sim {
namespace {

struct Sink {
  FILE* file = nullptr;
  LogLevel level = LogLevel::kWarn;
  bool enabled = true;

  Sink() {
    const char* where = std::getenv("ACL_SIM_LOG");
    if (where == nullptr || *where == '\0') {
      file = stderr;
    } else if (std::strcmp(where, "none") == 0) {
      enabled = false;
    } else if (std::strcmp(where, "stderr") == 0) {
      file = stderr;
      level = LogLevel::kInfo;
    } else {
      file = std::fopen(where, "a");
      level = LogLevel::kInfo;
      if (file == nullptr) file = stderr;
    }
    if (const char* lv = std::getenv("ACL_SIM_LOG_LEVEL")) {
      if (std::strcmp(lv, "error") == 0) level = LogLevel::kError;
      if (std::strcmp(lv, "warn") == 0) level = LogLevel::kWarn;
      if (std::strcmp(lv, "info") == 0) level = LogLevel::kInfo;
      if (std::strcmp(lv, "debug") == 0) level = LogLevel::kDebug;
    }
  }
};

Sink& sink() {
  static Sink s;
  return s;
}

std::mutex& sink_mutex() {
  static std::mutex m;
  return m;
}

thread_local std::string t_last_rule;

const char* level_name(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "DEBUG";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarn:
      return "WARN";
    case LogLevel::kError:
      return "ERROR";
  }
  return "?";
}

void vlog(LogLevel level, const char* prefix, const char* fmt, va_list ap,
          const char* tag = nullptr) {
  if (!log_enabled(level)) return;
  char body[1024];
  std::vsnprintf(body, sizeof body, fmt, ap);
  std::lock_guard<std::mutex> lock(sink_mutex());
  std::fprintf(sink().file, "[acl_sim] %s %s%s\n", tag ? tag : level_name(level), prefix, body);
  std::fflush(sink().file);
}

void prefixed(LogLevel level, const char* prefix, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
void prefixed(LogLevel level, const char* prefix, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlog(level, prefix, fmt, ap);
  va_end(ap);
}

}  // namespace

bool log_enabled(LogLevel level) {
  const Sink& s = sink();
  return s.enabled && level >= s.level;
}

void log(LogLevel level, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlog(level, "", fmt, ap);
  va_end(ap);
}

void report(const char* tag, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlog(LogLevel::kError, "", fmt, ap, tag);
  va_end(ap);
}

void rule_line(LogLevel level, const char* rule, const char* api, const char* outcome,
               const char* detail) {
  t_last_rule = rule;
  char prefix[256];
  std::snprintf(prefix, sizeof prefix, "RULE %s in %s (%s): ", rule, api, outcome);
  prefixed(level, prefix, "%s", detail);
}

const char* last_rule() {
  return t_last_rule.c_str();
}
void set_last_rule(const char* rule) {
  t_last_rule = rule;
}
void clear_last_rule() {
  t_last_rule.clear();
}

}  // namespace sim
