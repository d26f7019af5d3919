// ascgen_acl.h: every AscendCL call checked (a failure throws ascgen::AclFailure naming the
// stage, the call and the error code), the cleanup stack that releases resources in reverse
// order on success and on every error path, and the streams and DVPP channels a worker creates.
// Emitted verbatim by ascgen; hand-written, reviewed once, shared by every pipeline.
#ifndef ASCGEN_ACL_H_
#define ASCGEN_ACL_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#if ASCGEN_BACKEND_SIM
#include "acl_sim/acl_sim.h"
// The simulator these headers call; a change of its ABI bumps ASCGEN_RUNTIME_ABI, which every
// generated main.cpp asserts, so a program and its simulator cannot drift apart either.
static_assert(ACL_SIM_ABI_VERSION == 1, "the simulator's ABI is not the runtime's; regenerate");
#endif

#define ASCGEN_CHECK(stage, call) ::ascgen::check((call), (stage), #call)

namespace ascgen {

struct AclFailure : std::runtime_error {
  AclFailure(const std::string& stage, const std::string& call, aclError code);
  aclError code;
};

std::string call_name(const char* expr);

inline void check(aclError ret, const char* stage, const char* expr) {
  if (ret != ACL_SUCCESS) throw AclFailure(stage, call_name(expr), ret);
}

// A create call that returns a pointer: NULL is a failure of that call (out of memory).
template <class T>
T* require(T* created, const char* stage, const char* call) {
  if (!created) throw AclFailure(stage, call, ACL_ERROR_BAD_ALLOC);
  return created;
}

// A LIFO of release actions. Each runs once; a failing release is reported and the rest
// still run, so nothing leaks whatever failed first.
class Cleanup {
 public:
  void add(std::string what, std::function<aclError()> release);
  int run();
  // The first release that failed in run(), as its line says ("" if none).
  const std::string& first_failure() const { return first_failure_; }

 private:
  struct Action {
    std::string what;
    std::function<aclError()> release;
  };
  std::mutex mu_;
  std::vector<Action> actions_;
  std::string first_failure_;
};

// A stream, named after its owner (worker -1: shared by the workers) for the simulator's hazard
// reports.
aclrtStream new_stream(const char* stage, const char* name, int worker, Cleanup& cleanup);

// A DVPP channel for the work of one stream: a channel is never used by two streams at once
// (CANN 5.0.4-9.0, acldvppCreateChannel).
// `modes` (acldvppChannelMode bits) is set where the device has channel modes, else 0.
acldvppChannelDesc* new_dvpp_channel(const char* stage, uint32_t modes, Cleanup& cleanup);

inline uint32_t align_up(uint32_t v, uint32_t a) {
  return (v + a - 1) / a * a;
}

}  // namespace ascgen

#endif  // ASCGEN_ACL_H_
