// The one hook every public API entry goes through.
//
// Each exported function starts with SIM_API_ENTER() (or SIM_API_ENTER_OR(x)
// when it does not return aclError). The hook counts calls per API name and
// implements fault injection: ACL_SIM_FAIL="aclrtMemcpyAsync:3,aclrtMalloc:1:207001"
// makes the 3rd call of aclrtMemcpyAsync fail with that API's default code and
// the 1st aclrtMalloc with 207001. DVPP and model entry points get this for free
// by using the same macro.
#ifndef ACL_SIM_SRC_API_H_
#define ACL_SIM_SRC_API_H_

#include <cstdint>

#include "acl/acl_base.h"

namespace sim {

// Counts a call of `name`; returns the injected error code, or ACL_SUCCESS.
aclError api_enter(const char* name);

// Replaces the rules (ACL_SIM_FAIL syntax) and zeroes the counters.
aclError set_fault_rules(const char* spec);
uint64_t api_call_count(const char* name);

// The code a fault in `name` returns when the rule gives none.
aclError default_fault_code(const char* name);

// True if `name` is a public entry point of the library (api_names.cpp).
bool is_api_name(const char* name);

// The first bad rule of $ACL_SIM_FAIL as a message ("" if the variable is
// valid or unset). aclInit refuses to start with it (rule faults.spec), so a
// typo never silently disables the fault a test relies on.
const char* fault_env_error();

}  // namespace sim

#define SIM_API_ENTER()                                                            \
  do {                                                                             \
    if (aclError sim_injected_ = ::sim::api_enter(__func__)) return sim_injected_; \
  } while (0)

#define SIM_API_ENTER_OR(failure_value)                   \
  do {                                                    \
    if (::sim::api_enter(__func__)) return failure_value; \
  } while (0)

#endif  // ACL_SIM_SRC_API_H_
