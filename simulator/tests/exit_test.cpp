// Process-exit behaviour, one mode per run (own main: no harness cleanup):
//   no_finalize     aclInit, work in flight, return from main without aclFinalize
//   finalize_fails  the same with aclFinalize failing (ACL_SIM_FAIL=aclFinalize:1)
//   hazard          an unconsumed hazard (ACL_SIM_HAZARD=1): the exit status is 86
//   leak            ACL_SIM_LEAK_CHECK=1 and objects left: aclFinalize returns 500001
// Each exits 0 on the expected behaviour (the hazard mode: 86, from the hook).
#define ENABLE_DVPP_INTERFACE
#include <cstdio>
#include <cstring>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "acl_sim/acl_sim.h"

namespace {

constexpr size_t kBytes = 1 << 20;

int fail(const char* what) {
  std::fprintf(stderr, "exit_test: %s\n", what);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return fail("init");
  aclrtStream a = nullptr, b = nullptr;
  void *host = nullptr, *dev = nullptr, *out = nullptr;
  if (aclrtCreateStream(&a) || aclrtCreateStream(&b) || aclrtMallocHost(&host, kBytes) ||
      aclrtMalloc(&dev, kBytes, ACL_MEM_MALLOC_HUGE_FIRST) ||
      aclrtMalloc(&out, kBytes, ACL_MEM_MALLOC_HUGE_FIRST))
    return fail("setup");
  if (std::strcmp(mode, "no_finalize") == 0) {
    for (int i = 0; i < 50; ++i)
      aclrtMemcpyAsync(dev, kBytes, host, kBytes, ACL_MEMCPY_HOST_TO_DEVICE, a);
    return 0;  // work still queued: exit must not terminate()
  }
  if (std::strcmp(mode, "finalize_fails") == 0) {
    for (int i = 0; i < 50; ++i)
      aclrtMemcpyAsync(dev, kBytes, host, kBytes, ACL_MEMCPY_HOST_TO_DEVICE, a);
    // The memory goes back first (LeakSanitizer); the device thread still runs.
    aclrtSynchronizeStream(a);
    aclrtFree(dev);
    aclrtFree(out);
    aclrtFreeHost(host);
    if (aclFinalize() == ACL_SUCCESS) return fail("aclFinalize should have failed (ACL_SIM_FAIL)");
    return 0;
  }
  if (std::strcmp(mode, "hazard") == 0) {
    aclsimSetStreamName(a, "upload");
    aclsimSetStreamName(b, "infer");
    aclrtMemcpyAsync(dev, kBytes, host, kBytes, ACL_MEMCPY_HOST_TO_DEVICE, a);
    aclrtMemcpyAsync(out, kBytes, dev, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, b);  // no wait
    aclrtSynchronizeDevice();
    if (aclsimHazardCount() != 1) return fail("one hazard expected");
    aclrtDestroyStream(a);
    aclrtDestroyStream(b);
    aclrtFree(dev);
    aclrtFree(out);
    aclrtFreeHost(host);
    aclrtResetDevice(0);
    if (aclFinalize() != ACL_ERROR_INTERNAL_ERROR) return fail("aclFinalize should return 500000");
    return 0;  // the exit hook turns this into 86
  }
  if (std::strcmp(mode, "leak") == 0) {
    aclrtEvent e = nullptr;
    void* dvpp = nullptr;
    if (aclrtCreateEvent(&e) || acldvppMalloc(&dvpp, 4096)) return fail("leak setup");
    acldvppPicDesc* pic = acldvppCreatePicDesc();
    (void)pic;
    aclError rc = aclFinalize();  // streams, event, memory, descriptor left
    if (rc != ACL_ERROR_FAILURE) return fail("aclFinalize should return 500001");
    return 0;
  }
  if (std::strcmp(mode, "clean") == 0) {
    aclrtDestroyStream(a);
    aclrtDestroyStream(b);
    aclrtFree(dev);
    aclrtFree(out);
    aclrtFreeHost(host);
    aclrtResetDevice(0);
    return aclFinalize() == ACL_SUCCESS ? 0 : fail("a clean teardown should finalize OK");
  }
  return fail("unknown mode");
}
