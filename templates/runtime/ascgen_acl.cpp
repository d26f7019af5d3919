// ascgen_acl.cpp: the definitions ascgen_acl.h declares, compiled apart from main.cpp: once per
// build configuration in ascgen's build cache (a library each program links), or by a program
// folder's own CMakeLists.txt. Emitted verbatim by ascgen with the header.

#include "ascgen_acl.h"

namespace ascgen {

std::string call_name(const char* expr) {
  std::string s(expr);
  return s.substr(0, s.find('('));
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
