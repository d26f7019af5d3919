// A very small test harness: TEST(group, name) registers a test, CHECK* fail
// it, main() runs the groups named on the command line (all without one).
#ifndef ACL_SIM_TESTS_CHECK_H_
#define ACL_SIM_TESTS_CHECK_H_

#include <cstdio>
#include <cstring>
#include <functional>
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
inline int& failures() {
  static int n = 0;
  return n;
}
inline bool& current_failed() {
  static bool f = false;
  return f;
}

template <typename T>
std::string show(const T& v) {
  if constexpr (std::is_enum_v<T>) {
    return std::to_string(static_cast<long long>(v));
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

// Runs the tests of the groups in argv (all if none); `after_each` cleans up.
inline int run(int argc, char** argv, const std::function<void()>& after_each) {
  int ran = 0;
  for (const Case& c : cases()) {
    bool wanted = argc < 2;
    for (int i = 1; i < argc; ++i) wanted |= std::strcmp(argv[i], c.group) == 0;
    if (!wanted) continue;
    current_failed() = false;
    std::fprintf(stderr, "[ RUN  ] %s.%s\n", c.group, c.name);
    c.fn();
    after_each();
    ++ran;
    failures() += current_failed();
    std::fprintf(stderr, "[ %s ] %s.%s\n", current_failed() ? "FAIL" : " OK ", c.group, c.name);
  }
  std::fprintf(stderr, "%d test(s), %d failed\n", ran, failures());
  return ran == 0 || failures() != 0 ? 1 : 0;
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

#define CHECK_OK(expr) CHECK_EQ((expr), 0)

// A device rule (rules.h): also counted once, and consumed so that the test
// binary's exit status stays 0. No other device rule may be pending.
#define CHECK_DEVICE_RULE(expr, code, rule)       \
  do {                                            \
    CHECK_EQ(aclsimRuleCount(), uint64_t{0});     \
    CHECK_RULE(expr, code, rule);                 \
    CHECK_EQ(aclsimTakeRuleCount(), uint64_t{1}); \
  } while (0)

#define CHECK_RULE(expr, code, rule)                                                              \
  do {                                                                                            \
    aclsimClearLastRule();                                                                        \
    CHECK_EQ((expr), (code));                                                                     \
    if (std::strcmp(aclsimLastRule(), (rule)) != 0) {                                             \
      check::fail(__FILE__, __LINE__, std::string("rule ") + aclsimLastRule() + " != " + (rule)); \
      return;                                                                                     \
    }                                                                                             \
  } while (0)

#endif  // ACL_SIM_TESTS_CHECK_H_
