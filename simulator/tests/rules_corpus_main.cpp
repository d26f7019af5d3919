// Driver of the rule corpus (rules_corpus.h).
//
//   sim_rules check <case>      runs both twins as children, checks them (ctest)
//   sim_rules run <case> bad|good   one twin in this process
//   sim_rules list              the case names
//
// A child is this binary again (/proc/self/exe) with its stderr on a pipe, so a
// twin that crashes (a signal, a sanitizer's report) fails the check as well
// as one that passes silently.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "rules_corpus.h"

std::string corpus::temp_file(const std::string& name) {
  const char* dir = std::getenv("ACL_SIM_CORPUS_TMP");
  if (dir != nullptr && *dir != '\0') return std::string(dir) + "/" + name;
  return (std::filesystem::temp_directory_path() /
          ("acl_sim_corpus_" + std::to_string(getpid()) + "_" + name))
      .string();
}

namespace {

const corpus::Case* find(const char* name) {
  for (const corpus::Case& c : corpus::cases())
    if (std::strcmp(c.name, name) == 0) return &c;
  return nullptr;
}

void apply_env(const char* spec) {
  std::string all = spec;
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find(';', start);
    if (end == std::string::npos) end = all.size();
    std::string item = all.substr(start, end - start);
    size_t eq = item.find('=');
    if (eq != std::string::npos) setenv(item.substr(0, eq).c_str(), item.substr(eq + 1).c_str(), 1);
    start = end + 1;
  }
}

// Runs "<self> run <case> <variant>" with `env`; returns its wait status and stderr.
int spawn(const char* name, const char* variant, const char* env, std::string* err) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    apply_env(env);
    execl("/proc/self/exe", "sim_rules", "run", name, variant, static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) err->append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

bool crashed(const std::string& err) {
  return err.find("Sanitizer") != std::string::npos ||
         err.find("runtime error:") != std::string::npos;
}

int check(const corpus::Case& c) {
  int failures = 0;
  std::string err;
  int st = spawn(c.name, "bad", c.bad_env, &err);
  bool ok = WIFEXITED(st) && WEXITSTATUS(st) == c.status &&
            err.find(c.expect) != std::string::npos && !crashed(err);
  std::printf("%s bad: %s (status %d%s, want %d and \"%s\")\n", c.name, ok ? "reported" : "FAILED",
              WIFEXITED(st) ? WEXITSTATUS(st) : -1, WIFSIGNALED(st) ? ", signal" : "", c.status,
              c.expect);
  if (!ok) {
    std::printf("--- stderr of %s bad ---\n%s\n", c.name, err.c_str());
    ++failures;
  }
  err.clear();
  st = spawn(c.name, "good", c.good_env, &err);
  ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && err.find("ERROR RULE") == std::string::npos &&
       err.find("HAZARD") == std::string::npos && err.find("LEAK") == std::string::npos &&
       !crashed(err);
  std::printf("%s good: %s (status %d%s)\n", c.name, ok ? "clean" : "FAILED",
              WIFEXITED(st) ? WEXITSTATUS(st) : -1, WIFSIGNALED(st) ? ", signal" : "");
  if (!ok) {
    std::printf("--- stderr of %s good ---\n%s\n", c.name, err.c_str());
    ++failures;
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "list") {
    for (const corpus::Case& c : corpus::cases()) std::printf("%s\n", c.name);
    return 0;
  }
  const corpus::Case* c = argc > 2 ? find(argv[2]) : nullptr;
  if (c == nullptr) {
    std::fprintf(stderr, "usage: sim_rules check <case> | run <case> bad|good | list\n");
    return 2;
  }
  if (mode == "check") {
    // The twins' scratch files go to a folder of this check's own, removed after them
    // (a twin that breaks a rule ends in _exit and cannot clean up itself).
    std::string dir = (std::filesystem::temp_directory_path() / "acl_sim_rules.XXXXXX").string();
    if (mkdtemp(dir.data()) == nullptr) {
      std::perror("sim_rules: cannot create a temporary folder");
      return 2;
    }
    setenv("ACL_SIM_CORPUS_TMP", dir.c_str(), 1);
    const int status = check(*c);
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    return status;
  }
  if (mode == "run" && argc > 3) return c->run(std::strcmp(argv[3], "bad") == 0);
  std::fprintf(stderr, "usage: sim_rules check <case> | run <case> bad|good | list\n");
  return 2;
}
