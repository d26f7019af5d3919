// Memory accounting, the DVPP allocator and copies of every kind.
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"
#include "core/memory.h"
#include "session.h"

using namespace testing_sim;

namespace {

size_t accounted(size_t n) {
  return (n + 31) / 32 * 32 + 32;
}

}  // namespace

TEST(memory, alignment_and_accounting) {
  CHECK_OK(open_device());
  size_t free0 = 0, total = 0;
  CHECK_OK(aclrtGetMemInfo(ACL_DDR_MEM, &free0, &total));
  CHECK_EQ(total, static_cast<size_t>(8589934592ULL));
  void *a = nullptr, *b = nullptr;
  CHECK_OK(aclrtMalloc(&a, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclrtMalloc(&b, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
  CHECK_EQ(reinterpret_cast<uintptr_t>(a) % 128, 0u);
  CHECK_EQ(reinterpret_cast<uintptr_t>(b) % 128, 0u);
  aclsimMemStats st{};
  CHECK_OK(aclsimGetMemStats(&st));
  CHECK_EQ(st.deviceAllocs, 2u);
  CHECK_EQ(st.deviceBytes, accounted(1000) + accounted(64));
  size_t free1 = 0;
  CHECK_OK(aclrtGetMemInfo(ACL_DDR_MEM, &free1, &total));
  CHECK_EQ(free0 - free1, accounted(1000) + accounted(64));
  CHECK_RULE(aclrtFree(static_cast<char*>(a) + 8), ACL_ERROR_RT_MEMORY_FREE, "free.owner");
  CHECK_OK(aclrtFree(a));
  CHECK_OK(aclrtFree(b));
  CHECK_EQ(aclrtFree(b), ACL_ERROR_RT_MEMORY_FREE);
  CHECK_OK(aclsimGetMemStats(&st));
  CHECK_EQ(st.deviceAllocs, 0u);
  CHECK_EQ(st.deviceBytes, 0u);
  CHECK_EQ(aclrtMalloc(&a, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
}

// aclrtGetMemInfo answers the attribute family of the device's memory kind
// (features.memory_kind): DDR on the 310, HBM on the 910B, 0/0 for the other.
TEST(memory, mem_info_follows_the_memory_kind) {
  CHECK_OK(open_device());  // ascend310: DDR
  size_t free_bytes = 1, total = 1;
  CHECK_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total));
  CHECK_EQ(free_bytes + total, size_t{0});
  CHECK_OK(aclrtGetMemInfo(ACL_DDR_MEM_HUGE, &free_bytes, &total));
  CHECK(total > 0 && free_bytes > 0);
  aclFinalize();
  use_profile(write_profile("hbm", {{"features.memory_kind", "hbm"}}));
  CHECK_OK(open_device());
  CHECK_OK(aclrtGetMemInfo(ACL_DDR_MEM, &free_bytes, &total));
  CHECK_EQ(free_bytes + total, size_t{0});
  CHECK_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total));
  CHECK(total > 0 && free_bytes > 0);
}

// A block freed while a queued copy still uses it stays reserved until the
// copy ran (rule free.in_use), then goes back; the copy's bytes still land.
TEST(memory, free_under_a_queued_task_is_deferred) {
  CHECK_OK(open_device(0.2));
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  const size_t n = 32u << 20;
  void *host = nullptr, *dev = nullptr;
  CHECK_OK(aclrtMallocHost(&host, n));
  CHECK_OK(aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclrtMemcpyAsync(dev, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE, s));
  CHECK_DEVICE_RULE(aclrtFree(dev), ACL_SUCCESS, "free.in_use");
  CHECK_RULE(aclrtFree(dev), ACL_ERROR_RT_MEMORY_FREE, "free.owner");  // already freed
  CHECK_OK(aclrtSynchronizeStream(s));
  aclsimMemStats ms{};
  CHECK_OK(aclsimGetMemStats(&ms));
  CHECK_EQ(ms.deviceAllocs, size_t{0});  // released once the copy ran
  CHECK_OK(aclrtFreeHost(host));
  CHECK_OK(aclrtDestroyStream(s));
}

TEST(memory, exhaustion_with_tiny_profile) {
  use_profile(write_profile("tiny", {{"memory.device_bytes", "1048576"},
                                     {"memory.reserved_bytes", "0"},
                                     {"memory.dvpp_bytes", "262144"}}));
  CHECK_OK(open_device());
  std::vector<void*> blocks;
  void* p = nullptr;
  aclError rc = ACL_SUCCESS;
  while ((rc = aclrtMalloc(&p, 100000, ACL_MEM_MALLOC_HUGE_FIRST)) == ACL_SUCCESS)
    blocks.push_back(p);
  CHECK_EQ(rc, ACL_ERROR_RT_MEMORY_ALLOCATION);
  CHECK_EQ(blocks.size(), static_cast<size_t>(1048576 / accounted(100000)));
  CHECK_EQ(std::string(aclsimLastRule()), std::string("malloc.device_budget"));
  size_t free_bytes = 0, total = 0;
  CHECK_OK(aclrtGetMemInfo(ACL_DDR_MEM, &free_bytes, &total));
  CHECK_EQ(free_bytes, 1048576 - blocks.size() * accounted(100000));
  for (void* b : blocks) CHECK_OK(aclrtFree(b));
  aclsimMemStats st{};
  CHECK_OK(aclsimGetMemStats(&st));
  CHECK_EQ(st.deviceBytes, 0u);
}

TEST(memory, dvpp_pool_budget) {
  use_profile(write_profile("dvpp", {{"memory.dvpp_bytes", "262144"}}));
  CHECK_OK(open_device());
  void *a = nullptr, *b = nullptr;
  CHECK_OK(sim::dvpp_alloc("acldvppMalloc", &a, 200000));
  CHECK_EQ(reinterpret_cast<uintptr_t>(a) % 128, 0u);
  CHECK_EQ(sim::classify(a, 200000), sim::MemKind::kDvpp);
  CHECK_EQ(sim::dvpp_alloc("acldvppMalloc", &b, 100000), ACL_ERROR_RT_MEMORY_ALLOCATION);
  aclsimMemStats st{};
  CHECK_OK(aclsimGetMemStats(&st));
  CHECK_EQ(st.dvppAllocs, 1u);
  CHECK_EQ(st.dvppBytes, accounted(200000));
  CHECK_EQ(sim::device_free("aclrtFree", a), ACL_ERROR_RT_MEMORY_FREE);  // wrong allocator
  CHECK_OK(sim::dvpp_free("acldvppFree", a));
  CHECK_OK(aclsimGetMemStats(&st));
  CHECK_EQ(st.dvppBytes + st.deviceBytes, 0u);
}

TEST(memcpy, sync_every_kind_moves_bytes) {
  CHECK_OK(open_device(0.1));
  const size_t n = 4096;
  std::vector<unsigned char> src(n), back(n, 0);
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(i * 7);
  void *d1 = nullptr, *d2 = nullptr;
  CHECK_OK(aclrtMalloc(&d1, n, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclrtMalloc(&d2, n, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclrtMemcpy(d1, n, src.data(), n, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK_OK(aclrtMemcpy(d2, n, d1, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
  CHECK_OK(aclrtMemcpy(back.data(), n, d2, n, ACL_MEMCPY_DEVICE_TO_HOST));
  CHECK(back == src);
  std::vector<unsigned char> h2(n, 0);
  CHECK_OK(aclrtMemcpy(h2.data(), n, back.data(), n, ACL_MEMCPY_HOST_TO_HOST));
  CHECK(h2 == src);
  CHECK_OK(aclrtMemset(d1, n, 0x5a, n));
  CHECK_OK(aclrtMemcpy(back.data(), n, d1, n, ACL_MEMCPY_DEFAULT));  // inferred D2H
  CHECK_EQ(back[100], 0x5a);
  CHECK_RULE(aclrtMemcpy(d1, n - 1, src.data(), n, ACL_MEMCPY_HOST_TO_DEVICE),
             ACL_ERROR_RT_PARAM_INVALID, "memcpy.dest_max");
  CHECK_RULE(aclrtMemcpy(back.data(), n, src.data(), n, ACL_MEMCPY_HOST_TO_DEVICE),
             ACL_ERROR_RT_INVALID_MEMORY_TYPE, "memcpy.device_pointer");
  CHECK_RULE(aclrtMemcpy(d1, n, src.data(), n, static_cast<aclrtMemcpyKind>(9)),
             ACL_ERROR_RT_PARAM_INVALID, "memcpy.kind");
  CHECK_OK(aclrtMemcpy(d1, n, src.data(), 0, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK_OK(aclrtFree(d1));
  CHECK_OK(aclrtFree(d2));
}

TEST(memcpy, async_rules) {
  CHECK_OK(open_device(0.1));
  const size_t n = 1024;
  void *h = nullptr, *d = nullptr;
  CHECK_OK(aclrtMallocHost(&h, n));
  CHECK_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  std::vector<unsigned char> pageable(n);
  char* hc = static_cast<char*>(h);
  CHECK_RULE(aclrtMemcpyAsync(d, n, hc + 32, 64, ACL_MEMCPY_HOST_TO_DEVICE, nullptr),
             ACL_ERROR_RT_ADDR_UNALIGNED, "memcpy_async.addr_aligned");
  CHECK_RULE(aclrtMemcpyAsync(d, n, pageable.data(), n, ACL_MEMCPY_HOST_TO_DEVICE, nullptr),
             ACL_ERROR_RT_INVALID_MEMORY_TYPE, "memcpy_async.pinned_host");
  CHECK_RULE(aclrtMemcpyAsync(h, n, hc + 512, 256, ACL_MEMCPY_HOST_TO_HOST, nullptr),
             ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "memcpy_async.host_to_host");
  CHECK_RULE(aclrtMemcpyAsync(d, 64, h, 128, ACL_MEMCPY_HOST_TO_DEVICE, nullptr),
             ACL_ERROR_RT_PARAM_INVALID, "memcpy.dest_max");
  std::memset(h, 0x11, n);
  CHECK_OK(aclrtMemcpyAsync(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  CHECK_OK(aclrtMemsetAsync(d, n, 0x22, 64, nullptr));
  CHECK_OK(aclrtMemcpyAsync(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST, nullptr));
  CHECK_OK(aclrtSynchronizeStream(nullptr));
  CHECK_EQ(static_cast<unsigned char*>(h)[0], 0x22);
  CHECK_EQ(static_cast<unsigned char*>(h)[64], 0x11);
  CHECK_OK(aclrtFree(d));
  CHECK_OK(aclrtFreeHost(h));
}
