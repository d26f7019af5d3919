// ascgen_profile.cpp: what ascgen_profile.h declares (README.md: how it is compiled).

#include "ascgen_profile.h"

namespace ascgen {

void Profiler::init(const std::string& dir, int32_t device, Cleanup& cleanup) {
  if (dir.empty()) return;
  const std::string why = make_folders(dir);
  if (!why.empty()) throw std::runtime_error("--profile: " + why);
  check(aclprofInit(dir.c_str(), dir.size()), "profile", "aclprofInit");
  cleanup.add("aclprofFinalize", [] { return aclprofFinalize(); });
  dir_ = dir;
  device_ = static_cast<uint32_t>(device);
}

std::vector<void*> Profiler::step_stamps(const std::vector<const char*>& stages, Cleanup& cleanup) {
  std::vector<void*> stamps;
  if (!on()) return stamps;
  for (const char* stage : stages) {
    void* stamp = require(aclprofCreateStamp(), "profile", "aclprofCreateStamp");
    cleanup.add("aclprofDestroyStamp", [stamp] {
      aclprofDestroyStamp(stamp);
      return ACL_SUCCESS;
    });
    check(aclprofSetStampTraceMessage(stamp, stage, static_cast<uint32_t>(std::strlen(stage))),
          "profile", "aclprofSetStampTraceMessage");
    stamps.push_back(stamp);
  }
  return stamps;
}

void Profiler::start(Cleanup& cleanup) {
  if (!on()) return;
  aclprofConfig* config =
      require(aclprofCreateConfig(&device_, 1, ACL_AICORE_PIPE_UTILIZATION, nullptr, kProfileData),
              "profile", "aclprofCreateConfig");
  cleanup.add("aclprofDestroyConfig", [config] { return aclprofDestroyConfig(config); });
  check(aclprofStart(config), "profile", "aclprofStart");
  *running_ = config;
  // (the cleanup outlives this object: it holds the running config, not `this`)
  cleanup.add("aclprofStop", [running = running_] { return stop_now(*running); });
}

}  // namespace ascgen
