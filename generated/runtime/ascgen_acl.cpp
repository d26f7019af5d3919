// ascgen_acl.cpp: what ascgen_acl.h declares (README.md: how it is compiled).

#include "ascgen_acl.h"

namespace ascgen {

AclFailure::AclFailure(const std::string& stage, const std::string& call, aclError code)
    : std::runtime_error("stage '" + stage + "': " + call + " failed with error " +
                         std::to_string(code)),
      code(code) {}

std::string call_name(const char* expr) {
  std::string s(expr);
  return s.substr(0, s.find('('));
}

void Cleanup::add(std::string what, std::function<aclError()> release) {
  std::lock_guard<std::mutex> lock(mu_);
  actions_.push_back({std::move(what), std::move(release)});
}

int Cleanup::run() {
  std::lock_guard<std::mutex> lock(mu_);
  int failures = 0;
  while (!actions_.empty()) {
    Action a = std::move(actions_.back());
    actions_.pop_back();
    aclError ret = a.release();
    if (ret != ACL_SUCCESS) {
      const std::string line = "cleanup: " + a.what + " failed with error " + std::to_string(ret);
      std::fprintf(stderr, "%s\n", line.c_str());
      if (failures++ == 0) first_failure_ = line;
    }
  }
  return failures;
}

aclrtStream new_stream(const char* stage, const char* name, int worker, Cleanup& cleanup) {
  aclrtStream s = nullptr;
  check(aclrtCreateStream(&s), stage, "aclrtCreateStream");
  cleanup.add(std::string("aclrtDestroyStream ") + name, [s] { return aclrtDestroyStream(s); });
#if ASCGEN_BACKEND_SIM
  std::string label =
      std::string(name) + (worker < 0 ? " (shared)" : " of worker " + std::to_string(worker));
  check(aclsimSetStreamName(s, label.c_str()), stage, "aclsimSetStreamName");
#else
  (void)worker;
#endif
  return s;
}

acldvppChannelDesc* new_dvpp_channel(const char* stage, uint32_t modes, Cleanup& cleanup) {
  acldvppChannelDesc* c = require(acldvppCreateChannelDesc(), stage, "acldvppCreateChannelDesc");
  cleanup.add("acldvppDestroyChannelDesc", [c] { return acldvppDestroyChannelDesc(c); });
  if (modes != 0) check(acldvppSetChannelDescMode(c, modes), stage, "acldvppSetChannelDescMode");
  check(acldvppCreateChannel(c), stage, "acldvppCreateChannel");
  cleanup.add("acldvppDestroyChannel", [c] { return acldvppDestroyChannel(c); });
  return c;
}

}  // namespace ascgen
