// A very small test harness for the serving headers (after simulator/tests/check.h, without
// the simulator): TEST(group, name) registers a test, CHECK* fail it, run() runs the groups
// named on the command line (all without one) and returns the exit status.
#ifndef ASCGEN_SERVING_TESTS_CHECK_H_
#define ASCGEN_SERVING_TESTS_CHECK_H_

#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace check {

struct Case {
  const char* group;
  const char* name;
  void (*fn)();
};

inline std::vector<Case>& cases() {
  static std::vector<Case> c;
  return c;
}
inline bool& current_failed() {
  static bool f = false;
  return f;
}

template <typename T>
std::string show(const T& v) {
  if constexpr (std::is_enum_v<T>) {
    return std::to_string(static_cast<long long>(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_arithmetic_v<T>) {
    return std::to_string(v);
  } else if constexpr (std::is_convertible_v<T, std::string>) {
    return std::string(v);
  } else {
    return "<value>";
  }
}

struct Registrar {
  Registrar(const char* g, const char* n, void (*fn)()) { cases().push_back({g, n, fn}); }
};

inline void fail(const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, what.c_str());
  current_failed() = true;
}

inline int run(int argc, char** argv) {
  int ran = 0, failed = 0;
  for (const Case& c : cases()) {
    bool wanted = argc < 2;
    for (int i = 1; i < argc; ++i) wanted |= std::strcmp(argv[i], c.group) == 0;
    if (!wanted) continue;
    current_failed() = false;
    std::fprintf(stderr, "[ RUN  ] %s.%s\n", c.group, c.name);
    c.fn();
    ++ran;
    failed += current_failed();
    std::fprintf(stderr, "[ %s ] %s.%s\n", current_failed() ? "FAIL" : " OK ", c.group, c.name);
  }
  std::fprintf(stderr, "%d test(s), %d failed\n", ran, failed);
  return ran == 0 || failed != 0 ? 1 : 0;
}

}  // namespace check

#define TEST(group, name)                                                      \
  static void group##_##name();                                                \
  static check::Registrar group##_##name##_reg(#group, #name, group##_##name); \
  static void group##_##name()

#define CHECK(cond)                           \
  do {                                        \
    if (!(cond)) {                            \
      check::fail(__FILE__, __LINE__, #cond); \
      return;                                 \
    }                                         \
  } while (0)

#define CHECK_EQ(a, b)                                                              \
  do {                                                                              \
    auto check_a_ = (a);                                                            \
    auto check_b_ = (b);                                                            \
    if (!(check_a_ == check_b_)) {                                                  \
      check::fail(__FILE__, __LINE__,                                               \
                  std::string(#a " == " #b ": ") + check::show(check_a_) + " vs " + \
                      check::show(check_b_));                                       \
      return;                                                                       \
    }                                                                               \
  } while (0)

#define CHECK_THROWS(expr)                                                  \
  do {                                                                      \
    bool check_threw_ = false;                                              \
    try {                                                                   \
      (void)(expr);                                                         \
    } catch (const std::exception&) {                                       \
      check_threw_ = true;                                                  \
    }                                                                       \
    if (!check_threw_) check::fail(__FILE__, __LINE__, "no throw: " #expr); \
    if (!check_threw_) return;                                              \
  } while (0)

#endif  // ASCGEN_SERVING_TESTS_CHECK_H_
