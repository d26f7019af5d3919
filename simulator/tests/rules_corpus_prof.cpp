// Rule corpus, part 5 (rules_corpus.h): misuse of the profiling API (acl/acl_prof.h, the
// prof.* rules). Each `bad` breaks the documented order once; its twin does the same work in
// order. The argument rules return a code the program sees: the bad twin exits 3 when it saw
// the documented one (2 when not); aclprofFinalize while profiling runs is a device rule (87).
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "rules_corpus.h"

namespace corpus {
namespace {

constexpr uint64_t kTypes = ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX;

// A folder for the profile (aclprofInit makes it), aclInit and device 0, and back.
struct Device {
  void* stream = nullptr;
  bool open = false;
  std::string dir;
  Device() : dir(temp_file("prof_result")) { open = open_device(&stream); }
  int close() { return close_device(stream); }
  aclError init() { return aclprofInit(dir.c_str(), dir.size()); }
};

// The status of a bad twin that saw `got` where the rule returns `want`.
int saw(aclError got, aclError want) {
  return got == want ? 3 : 2;
}

// aclprofFinalize twice (the second after profiling ended); the twin once.
int prof_init_required(bool bad) {
  Device d;
  if (!d.open || d.init() != ACL_SUCCESS || aclprofFinalize() != ACL_SUCCESS) return 2;
  const aclError again = bad ? aclprofFinalize() : ACL_SUCCESS;
  const int closed = d.close();
  return bad ? saw(again, ACL_ERROR_PROF_NOT_RUN) : closed;
}

// aclprofInit twice; the twin once.
int prof_init_twice(bool bad) {
  Device d;
  if (!d.open || d.init() != ACL_SUCCESS) return 2;
  const aclError again = bad ? d.init() : ACL_SUCCESS;
  if (aclprofFinalize() != ACL_SUCCESS) return 2;
  const int closed = d.close();
  return bad ? saw(again, ACL_ERROR_PROF_ALREADY_RUN) : closed;
}

// aclprofInit with the path's length plus one; the twin with its length.
int prof_path(bool bad) {
  Device d;
  if (!d.open) return 2;
  const aclError rc = aclprofInit(d.dir.c_str(), d.dir.size() + (bad ? 1 : 0));
  if (!bad && (rc != ACL_SUCCESS || aclprofFinalize() != ACL_SUCCESS)) return 2;
  const int closed = d.close();
  return bad ? saw(rc, ACL_ERROR_INVALID_PARAM) : closed;
}

// The config destroyed while it profiles; the twin stops first.
int prof_config(bool bad) {
  Device d;
  if (!d.open || d.init() != ACL_SUCCESS) return 2;
  uint32_t devices[] = {0};
  aclprofConfig* config = aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, nullptr, kTypes);
  if (config == nullptr || aclprofStart(config) != ACL_SUCCESS) return 2;
  const aclError early = bad ? aclprofDestroyConfig(config) : ACL_SUCCESS;
  if (aclprofStop(config) != ACL_SUCCESS || aclprofDestroyConfig(config) != ACL_SUCCESS) return 2;
  if (aclprofFinalize() != ACL_SUCCESS) return 2;
  const int closed = d.close();
  return bad ? saw(early, ACL_ERROR_INVALID_PARAM) : closed;
}

// aclprofStart twice (bad: before the first one's stop); aclprofStop without a start (bad:
// after the stop). The twins start once and stop once.
int start_stop(bool bad, bool second_start) {
  Device d;
  if (!d.open || d.init() != ACL_SUCCESS) return 2;
  uint32_t devices[] = {0};
  aclprofConfig* config = aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, nullptr, kTypes);
  if (config == nullptr || aclprofStart(config) != ACL_SUCCESS) return 2;
  const aclError twice = bad && second_start ? aclprofStart(config) : ACL_SUCCESS;
  if (aclprofStop(config) != ACL_SUCCESS) return 2;
  const aclError stop = bad && !second_start ? aclprofStop(config) : ACL_SUCCESS;
  if (aclprofDestroyConfig(config) != ACL_SUCCESS || aclprofFinalize() != ACL_SUCCESS) return 2;
  const int closed = d.close();
  if (!bad) return closed;
  return second_start ? saw(twice, ACL_ERROR_PROF_ALREADY_RUN) : saw(stop, ACL_ERROR_PROF_NOT_RUN);
}

int prof_start_twice(bool bad) {
  return start_stop(bad, true);
}

int prof_stop_not_started(bool bad) {
  return start_stop(bad, false);
}

// aclprofFinalize while profiling runs; the twin stops and destroys its config first.
int prof_finalize_running(bool bad) {
  Device d;
  if (!d.open || d.init() != ACL_SUCCESS) return 2;
  uint32_t devices[] = {0};
  aclprofConfig* config = aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, nullptr, kTypes);
  if (config == nullptr || aclprofStart(config) != ACL_SUCCESS) return 2;
  if (!bad && (aclprofStop(config) != ACL_SUCCESS || aclprofDestroyConfig(config) != ACL_SUCCESS))
    return 2;
  if (aclprofFinalize() != ACL_SUCCESS) return 2;
  return d.close();
}

// A range pushed and popped twice; the twin pops once.
int prof_range_unmatched(bool bad) {
  Device d;
  if (!d.open || d.init() != ACL_SUCCESS) return 2;
  void* stamp = aclprofCreateStamp();
  const char kName[] = "step";
  if (stamp == nullptr ||
      aclprofSetStampTraceMessage(stamp, kName, sizeof kName - 1) != ACL_SUCCESS)
    return 2;
  if (aclprofPush(stamp) != ACL_SUCCESS || aclprofPop() != ACL_SUCCESS) return 2;
  const aclError again = bad ? aclprofPop() : ACL_SUCCESS;
  aclprofDestroyStamp(stamp);
  if (aclprofFinalize() != ACL_SUCCESS) return 2;
  const int closed = d.close();
  return bad ? saw(again, ACL_ERROR_INVALID_PARAM) : closed;
}

}  // namespace

std::vector<Case> with_prof_cases(std::vector<Case> base) {
  base.push_back({"prof_init_required", "RULE prof.init_required ", 3, "", "", prof_init_required});
  base.push_back({"prof_init_twice", "RULE prof.init_twice ", 3, "", "", prof_init_twice});
  base.push_back({"prof_path", "RULE prof.path ", 3, "", "", prof_path});
  base.push_back({"prof_config", "RULE prof.config ", 3, "", "", prof_config});
  base.push_back({"prof_start_twice", "RULE prof.start_twice ", 3, "", "", prof_start_twice});
  base.push_back(
      {"prof_stop_not_started", "RULE prof.stop_not_started ", 3, "", "", prof_stop_not_started});
  base.push_back(
      {"prof_finalize_running", "RULE prof.finalize_running ", 87, "", "", prof_finalize_running});
  base.push_back(
      {"prof_range_unmatched", "RULE prof.range_unmatched ", 3, "", "", prof_range_unmatched});
  return base;
}

}  // namespace corpus
