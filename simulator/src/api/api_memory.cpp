// Memory: allocation, copies, memset and memory info.
#include <algorithm>
#include <cstring>
#include <iterator>

#include "acl/acl_rt.h"
#include "api/api.h"
#include "api/runtime.h"
#include "core/memory.h"
#include "core/profile.h"
#include "core/task.h"
#include "report/log.h"
#include "rules/guard.h"
#include "rules/hazard.h"
#include "rules/rules.h"

using namespace sim;

namespace {

bool on_device(MemKind k) {
  return k == MemKind::kDevice || k == MemKind::kDvpp;
}

const char* kind_name(MemKind k) {
  switch (k) {
    case MemKind::kDevice:
      return "device memory (aclrtMalloc)";
    case MemKind::kDvpp:
      return "DVPP memory (acldvppMalloc)";
    case MemKind::kHost:
      return "pinned host memory (aclrtMallocHost)";
    default:
      return "pageable host memory";
  }
}

// Checks one side of a copy: `device_side` says where the kind puts it.
aclError check_side(const char* api, const char* which, const void* p, size_t n, bool device_side,
                    bool async) {
  MemKind k = classify(p, n);
  if (device_side && !on_device(k))
    return raise_rule(Rule::kMemcpyDevicePointer, ACL_ERROR_RT_INVALID_MEMORY_TYPE, api,
                      "%s %p (+%zu bytes) must lie inside device or DVPP memory, found %s", which,
                      p, n, kind_name(k));
  if (!device_side && on_device(k))
    return raise_rule(Rule::kMemcpyHostPointer, ACL_ERROR_RT_INVALID_MEMORY_TYPE, api,
                      "%s %p is %s but the copy kind says host", which, p, kind_name(k));
  if (async && !device_side && k != MemKind::kHost)
    return raise_rule(Rule::kMemcpyAsyncPinnedHost, ACL_ERROR_RT_INVALID_MEMORY_TYPE, api,
                      "%s %p is pageable: async copies need host memory from aclrtMallocHost",
                      which, p);
  size_t align = static_cast<size_t>(profile().num("align.memcpy_async_addr", 64));
  if (async && reinterpret_cast<uintptr_t>(p) % align != 0)
    return raise_rule(Rule::kMemcpyAsyncAddrAligned, ACL_ERROR_RT_ADDR_UNALIGNED, api,
                      "%s %p is not %zu-byte aligned", which, p, align);
  return ACL_SUCCESS;
}

// Validates a copy and builds its task; *engine is kControl for host-to-host.
aclError plan_copy(const char* api, void* dst, size_t destMax, const void* src, size_t count,
                   aclrtMemcpyKind kind, bool async, TaskSpec* spec) {
  if (dst == nullptr || src == nullptr)
    return raise_rule(Rule::kMemcpyArgs, ACL_ERROR_INVALID_PARAM, api,
                      "dst %p, src %p: both needed", dst, src);
  if (count > destMax)
    return raise_rule(Rule::kMemcpyDestMax, ACL_ERROR_RT_PARAM_INVALID, api,
                      "count %zu exceeds destMax %zu", count, destMax);
  int k = static_cast<int>(kind);
  if (k < ACL_MEMCPY_HOST_TO_HOST || k > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
    return raise_rule(Rule::kMemcpyKind, ACL_ERROR_RT_PARAM_INVALID, api, "kind %d is not valid",
                      k);
  if (count == 0) return ACL_SUCCESS;  // nothing to copy; callers check count too
  bool src_dev = k == ACL_MEMCPY_DEVICE_TO_HOST || k >= ACL_MEMCPY_DEVICE_TO_DEVICE;
  bool dst_dev = k != ACL_MEMCPY_HOST_TO_HOST && k != ACL_MEMCPY_DEVICE_TO_HOST;
  if (k == ACL_MEMCPY_DEFAULT) {
    src_dev = on_device(classify(src, count));
    dst_dev = on_device(classify(dst, count));
  } else if (k == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE) {
    src_dev = false;
  }
  if (!src_dev && !dst_dev && async)
    return raise_rule(Rule::kMemcpyAsyncHostToHost, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, api,
                      "host-to-host copies cannot be asynchronous");
  if (aclError rc = check_side(api, "src", src, count, src_dev, async)) return rc;
  if (aclError rc = check_side(api, "dst", dst, count, dst_dev, async)) return rc;
  Engine engine = src_dev ? (dst_dev ? Engine::kD2D : Engine::kD2H)
                          : (dst_dev ? Engine::kH2D : Engine::kControl);
  spec->engine = engine;
  spec->service_us = engine == Engine::kControl ? 0.0 : copy_service_us(engine, count);
  spec->reads = {{src, count}};
  spec->writes = {{dst, count}};
  spec->work = [dst, src, count] { std::memmove(dst, src, count); };
  spec->name = std::string("memcpy_") + engine_name(engine);
  return ACL_SUCCESS;
}

aclError plan_memset(const char* api, void* devPtr, size_t maxCount, int32_t value, size_t count,
                     TaskSpec* spec) {
  if (devPtr == nullptr)
    return raise_rule(Rule::kMemsetArgs, ACL_ERROR_INVALID_PARAM, api, "devPtr is NULL");
  if (count > maxCount)
    return raise_rule(Rule::kMemsetMaxCount, ACL_ERROR_RT_PARAM_INVALID, api,
                      "count %zu exceeds maxCount %zu", count, maxCount);
  if (count == 0) return ACL_SUCCESS;
  if (!on_device(classify(devPtr, count)))
    return raise_rule(Rule::kMemsetDevicePointer, ACL_ERROR_RT_INVALID_MEMORY_TYPE, api,
                      "%p (+%zu bytes) is not inside device or DVPP memory", devPtr, count);
  spec->engine = Engine::kD2D;
  spec->service_us = copy_service_us(Engine::kD2D, count);
  spec->writes = {{devPtr, count}};
  spec->work = [devPtr, value, count] { std::memset(devPtr, value, count); };
  spec->name = "memset";
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  SIM_API_ENTER();
  (void)policy;  // huge and normal pages are one pool in the model
  if (aclError rc = require_context(__func__)) return rc;
  return device_alloc(__func__, devPtr, size);
}

aclError aclrtMallocAlign32(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  SIM_API_ENTER();
  (void)policy;
  if (aclError rc = require_context(__func__)) return rc;
  return device_alloc(__func__, devPtr, size);
}

aclError aclrtMallocCached(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  SIM_API_ENTER();
  (void)policy;
  if (aclError rc = require_context(__func__)) return rc;
  return device_alloc(__func__, devPtr, size);
}

aclError aclrtFree(void* devPtr) {
  SIM_API_ENTER();
  if (aclError rc = require_context(__func__)) return rc;
  return device_free(__func__, devPtr);
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  SIM_API_ENTER();
  if (aclError rc = require_context(__func__)) return rc;
  return host_alloc(__func__, hostPtr, size);
}

aclError aclrtFreeHost(void* hostPtr) {
  SIM_API_ENTER();
  if (aclError rc = require_context(__func__)) return rc;
  return host_free(__func__, hostPtr);
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  SIM_API_ENTER();
  if (aclError rc = require_context(__func__)) return rc;
  TaskSpec spec;
  if (aclError rc = plan_copy(__func__, dst, destMax, src, count, kind, false, &spec)) return rc;
  if (count == 0) return ACL_SUCCESS;
  if (spec.engine == Engine::kControl) {
    uint64_t access = 0;
    if (hazard::enabled()) {
      hazard::host_access(__func__, spec);    // a race is reported here...
      access = guard::begin_access(spec, 0);  // ...not again by a page guard
    }
    spec.work();  // host to host: the host copies, the device is not involved
    guard::end_access(access);
    return ACL_SUCCESS;
  }
  return submit_sync(__func__, std::move(spec));
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream) {
  SIM_API_ENTER();
  if (aclError rc = require_context(__func__)) return rc;
  TaskSpec spec;
  if (aclError rc = plan_copy(__func__, dst, destMax, src, count, kind, true, &spec)) return rc;
  if (count == 0) return ACL_SUCCESS;
  return submit(__func__, stream, std::move(spec));
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  SIM_API_ENTER();
  if (aclError rc = require_context(__func__)) return rc;
  TaskSpec spec;
  if (aclError rc = plan_memset(__func__, devPtr, maxCount, value, count, &spec)) return rc;
  if (count == 0) return ACL_SUCCESS;
  return submit_sync(__func__, std::move(spec));
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream) {
  SIM_API_ENTER();
  if (aclError rc = require_context(__func__)) return rc;
  TaskSpec spec;
  if (aclError rc = plan_memset(__func__, devPtr, maxCount, value, count, &spec)) return rc;
  if (count == 0) return ACL_SUCCESS;
  return submit(__func__, stream, std::move(spec));
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total) {
  SIM_API_ENTER();
  if (free == nullptr || total == nullptr) return null_arg(__func__, "free/total");
  if (static_cast<int>(attr) < ACL_DDR_MEM || static_cast<int>(attr) > ACL_HBM_MEM_P2P_NORMAL)
    return raise_rule(Rule::kMeminfoAttr, ACL_ERROR_INVALID_PARAM, __func__, "attr %d",
                      static_cast<int>(attr));
  if (aclError rc = require_context(__func__)) return rc;
  // The attribute names the memory kind: ACL_DDR_MEM* on DDR devices (310,
  // 310P: LPDDR4X), ACL_HBM_MEM* on HBM devices (910B); the other family
  // answers 0/0, as the device has none of it (features.memory_kind, ACL_FACTS
  // 1.3 aclrtMemAttr). Within a family: one memory, whatever the page kind.
  static const int kHbm[] = {ACL_HBM_MEM, ACL_HBM_MEM_HUGE, ACL_HBM_MEM_NORMAL,
                             ACL_HBM_MEM_P2P_HUGE, ACL_HBM_MEM_P2P_NORMAL};
  bool asks_hbm =
      std::find(std::begin(kHbm), std::end(kHbm), static_cast<int>(attr)) != std::end(kHbm);
  if (asks_hbm != (profile().str("features.memory_kind", "ddr") == "hbm")) {
    *free = *total = 0;
    return ACL_SUCCESS;
  }
  device_mem_info(free, total);
  return ACL_SUCCESS;
}

}  // extern "C"
