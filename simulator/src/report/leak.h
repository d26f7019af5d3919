// Leak report at aclFinalize (ACL_SIM_LEAK_CHECK=1): one line per kind of
// user-created object still live, "[acl_sim] LEAK <n> <kind> ... still live at
// aclFinalize"; aclFinalize then returns ACL_ERROR_FAILURE (500001).
#ifndef ACL_SIM_SRC_LEAK_H_
#define ACL_SIM_SRC_LEAK_H_

#include <atomic>

#include "acl/acl_base.h"

namespace sim {

// Live aclDataBuffer objects (data_buffer.cpp).
extern std::atomic<long> g_live_data_buffers;

// Logs what is still live; returns ACL_ERROR_FAILURE if anything is (and the
// check is on), else ACL_SUCCESS. Call before anything is torn down.
// device_only: the device teardown (aclrtResetDevice) checks what lives on the
// device (memory, streams, events, contexts, DVPP channels, models) before it
// reclaims it, so that a program that skipped its frees (e.g. on an error
// path) is still reported; aclFinalize then returns ACL_ERROR_FAILURE too.
aclError leak_check(const char* api, bool device_only = false);

}  // namespace sim

#endif  // ACL_SIM_SRC_LEAK_H_
