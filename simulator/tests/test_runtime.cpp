// Init, profile, devices, contexts, data buffers and fault injection.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "check.h"
#include "session.h"

using namespace testing_sim;

TEST(profile, missing_file_refuses_init) {
  use_profile("/nonexistent/acl_sim.flat");
  CHECK_RULE(aclInit(nullptr), ACL_ERROR_INVALID_FILE, "init.profile");
  CHECK_EQ(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
}

TEST(profile, missing_key_refuses_init) {
  use_profile(write_profile("nokey", {{"engines.h2d.units", ""}}));
  CHECK_RULE(aclInit(nullptr), ACL_ERROR_INVALID_FILE, "init.profile");
  use_profile(write_profile("badkey", {{"memory.device_bytes", "lots"}}));
  CHECK_RULE(aclInit(nullptr), ACL_ERROR_INVALID_FILE, "init.profile");
}

TEST(profile, bad_time_scale_refuses_init) {
  // not a number, not finite, or beyond 0.001..1000 (a clock that never or always ends a task)
  for (const char* bad : {"0", "-1", "x", "nan", "inf", "1e300", "1e-300", "1001", "0.0009"}) {
    setenv("ACL_SIM_TIME_SCALE", bad, 1);
    CHECK_RULE(aclInit(nullptr), ACL_ERROR_INVALID_PARAM, "init.time_scale");
  }
  for (const char* edge : {"0.001", "1000"}) {
    setenv("ACL_SIM_TIME_SCALE", edge, 1);
    CHECK_OK(aclInit(nullptr));
    CHECK_OK(aclFinalize());
  }
}

TEST(profile, init_finalize_lifecycle) {
  CHECK(aclrtGetSocName() == nullptr);
  CHECK_OK(aclInit(nullptr));
  CHECK_EQ(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE);
  CHECK(std::strcmp(aclrtGetSocName(), "Ascend310") == 0);
  CHECK_OK(aclFinalize());
  CHECK_EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
  CHECK_EQ(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_FILE);
}

TEST(device, set_get_reset) {
  CHECK_OK(aclInit(nullptr));
  uint32_t count = 0;
  CHECK_OK(aclrtGetDeviceCount(&count));
  CHECK_EQ(count, 4u);  // the profile's topology: an Atlas 300I card's four 310s
  CHECK_RULE(aclrtSetDevice(4), ACL_ERROR_RT_INVALID_DEVICEID, "device.valid_id");
  int32_t id = -1;
  CHECK_EQ(aclrtGetDevice(&id), ACL_ERROR_RT_CONTEXT_NULL);
  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtSetDevice(0));  // reference counted
  CHECK_OK(aclrtGetDevice(&id));
  CHECK_EQ(id, 0);
  aclrtRunMode mode = ACL_DEVICE;
  CHECK_OK(aclrtGetRunMode(&mode));
  CHECK_EQ(mode, ACL_HOST);
  CHECK_OK(aclrtResetDevice(0));
  void* p = nullptr;
  CHECK_OK(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST));  // still set once
  CHECK_OK(aclrtFree(p));
  CHECK_OK(aclrtResetDevice(0));
  CHECK_RULE(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL,
             "context.current_required");
}

TEST(device, several_devices_in_one_process) {
  CHECK_OK(aclInit(nullptr));
  CHECK_OK(aclrtSetDevice(0));
  void* p0 = nullptr;
  CHECK_OK(aclrtMalloc(&p0, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  size_t free0 = 0, total = 0;
  CHECK_OK(aclrtGetMemInfo(ACL_DDR_MEM, &free0, &total));
  aclrtStream s0 = nullptr;
  CHECK_OK(aclrtCreateStream(&s0));
  // Device 1: its own context, streams and memory; the thread's current context moves there.
  CHECK_OK(aclrtSetDevice(1));
  int32_t id = -1;
  CHECK_OK(aclrtGetDevice(&id));
  CHECK_EQ(id, 1);
  size_t free1 = 0;
  CHECK_OK(aclrtGetMemInfo(ACL_DDR_MEM, &free1, &total));
  CHECK(free1 > free0);  // device 0's megabyte is not device 1's
  aclrtStream s1 = nullptr;
  CHECK_OK(aclrtCreateStream(&s1));
  void* p1 = nullptr;
  CHECK_OK(aclrtMalloc(&p1, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  // A stream of device 0 is no stream of the current context (device 1).
  CHECK_RULE(aclrtSynchronizeStream(s0), ACL_ERROR_RT_INVALID_HANDLE, "stream.valid_handle");
  // Device memory of device 0 in a task of device 1: a device rule (no peer access here).
  CHECK_DEVICE_RULE(aclrtMemcpyAsync(p1, 1024, p0, 1024, ACL_MEMCPY_DEVICE_TO_DEVICE, s1),
                    ACL_SUCCESS, "memory.other_device");
  CHECK_OK(aclrtSynchronizeStream(s1));
  // Each device resets on its own: device 1's objects go, device 0's stay usable.
  CHECK_OK(aclrtFree(p1));
  CHECK_OK(aclrtDestroyStream(s1));
  CHECK_OK(aclrtResetDevice(1));
  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtMemsetAsync(p0, 1024, 0, 1024, s0));
  CHECK_OK(aclrtSynchronizeStream(s0));
  CHECK_OK(aclrtDestroyStream(s0));
  CHECK_OK(aclrtFree(p0));
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());
}

TEST(device, faults_on_one_device) {
  CHECK_OK(aclInit(nullptr));
  // API:N@DEVICE counts only the calls made while that device is current.
  CHECK_OK(aclsimSetFaults("aclrtMalloc:1@1"));
  CHECK_OK(aclrtSetDevice(0));
  void* p = nullptr;
  CHECK_OK(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST));  // device 0: not counted
  CHECK_OK(aclrtFree(p));
  CHECK_OK(aclrtSetDevice(1));
  CHECK_EQ(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
  CHECK_OK(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclrtFree(p));
  CHECK_OK(aclsimSetFaults(""));
  CHECK_EQ(aclsimSetFaults("aclrtMalloc:1@x"), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtResetDevice(1));
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());
}

TEST(device, reset_with_live_objects_logs_and_cleans) {
  CHECK_OK(open_device());
  aclrtStream s = nullptr;
  aclrtEvent e = nullptr;
  void* p = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  CHECK_OK(aclrtCreateEvent(&e));
  CHECK_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  aclsimClearLastRule();
  CHECK_OK(aclrtResetDevice(0));
  CHECK(std::strncmp(aclsimLastRule(), "teardown.", 9) == 0);
  aclsimObjectStats os{};
  CHECK_OK(aclsimGetObjectStats(&os));
  CHECK_EQ(os.streams, 0u);
  CHECK_EQ(os.events, 0u);
  aclsimMemStats ms{};
  CHECK_OK(aclsimGetMemStats(&ms));
  CHECK_EQ(ms.deviceAllocs, 0u);
  CHECK_EQ(ms.deviceBytes, 0u);
}

TEST(context, create_set_destroy) {
  CHECK_OK(open_device());
  aclrtContext def = nullptr, mine = nullptr, cur = nullptr;
  CHECK_OK(aclrtGetCurrentContext(&def));
  CHECK_OK(aclrtCreateContext(&mine, 0));
  CHECK_OK(aclrtGetCurrentContext(&cur));
  CHECK(cur == mine);
  CHECK_RULE(aclrtDestroyContext(def), ACL_ERROR_RT_PARAM_INVALID,
             "context.default_not_destroyable");
  CHECK_OK(aclrtSetCurrentContext(def));
  CHECK_OK(aclrtDestroyContext(mine));
  CHECK_RULE(aclrtSetCurrentContext(mine), ACL_ERROR_RT_INVALID_HANDLE, "context.valid_handle");
}

TEST(context, stream_belongs_to_its_context) {
  CHECK_OK(open_device());
  aclrtContext def = nullptr, other = nullptr;
  CHECK_OK(aclrtGetCurrentContext(&def));
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));  // in the default context
  CHECK_OK(aclrtCreateContext(&other, 0));
  CHECK_RULE(aclrtSynchronizeStream(s), ACL_ERROR_RT_STREAM_CONTEXT, "stream.own_context");
  CHECK_OK(aclrtSynchronizeStream(nullptr));  // other's default stream
  CHECK_OK(aclrtSetCurrentContext(def));
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK_OK(aclrtDestroyStream(s));
  CHECK_OK(aclrtDestroyContext(other));
}

TEST(context, other_thread_needs_current_context) {
  CHECK_OK(open_device());
  aclrtContext def = nullptr;
  CHECK_OK(aclrtGetCurrentContext(&def));
  aclError without = 0, with = 1;
  std::thread t([&] {
    void* p = nullptr;
    without = aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtSetCurrentContext(def);
    with = aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    if (with == ACL_SUCCESS) aclrtFree(p);
  });
  t.join();
  CHECK_EQ(without, ACL_ERROR_RT_CONTEXT_NULL);
  CHECK_EQ(with, ACL_SUCCESS);
}

TEST(databuffer, create_update_destroy) {
  char block[16];
  aclDataBuffer* b = aclCreateDataBuffer(block, sizeof block);
  CHECK(b != nullptr);
  CHECK(aclGetDataBufferAddr(b) == block);
  CHECK_EQ(aclGetDataBufferSizeV2(b), sizeof block);
  CHECK_OK(aclUpdateDataBuffer(b, block + 8, 8));
  CHECK(aclGetDataBufferAddr(b) == block + 8);
  CHECK_EQ(aclGetDataBufferSizeV2(b), static_cast<size_t>(8));
  CHECK_OK(aclDestroyDataBuffer(b));
  CHECK_EQ(aclDestroyDataBuffer(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(faults, nth_call_fails_with_default_or_given_code) {
  CHECK_OK(open_device());
  CHECK_OK(aclsimSetFaults("aclrtMalloc:2,aclrtCreateStream:1:100000,aclCreateDataBuffer:1"));
  void* p[3] = {};
  CHECK_OK(aclrtMalloc(&p[0], 64, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_EQ(aclrtMalloc(&p[1], 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_MEMORY_ALLOCATION);
  CHECK_OK(aclrtMalloc(&p[2], 64, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_EQ(aclsimCallCount("aclrtMalloc"), 3u);
  aclrtStream s = nullptr;
  CHECK_EQ(aclrtCreateStream(&s), ACL_ERROR_INVALID_PARAM);
  CHECK(aclCreateDataBuffer(nullptr, 0) == nullptr);
  CHECK_OK(aclrtFree(p[0]));
  CHECK_OK(aclrtFree(p[2]));
  CHECK_EQ(aclsimSetFaults("aclrtMalloc"), ACL_ERROR_INVALID_PARAM);  // bad rule
}

TEST(faults, memcpy_async_third_call) {
  CHECK_OK(open_device(0.01));
  CHECK_OK(aclsimSetFaults("aclrtMemcpyAsync:3"));
  void *h = nullptr, *d = nullptr;
  CHECK_OK(aclrtMallocHost(&h, 256));
  CHECK_OK(aclrtMalloc(&d, 256, ACL_MEM_MALLOC_HUGE_FIRST));
  for (int i = 1; i <= 4; ++i) {
    aclError rc = aclrtMemcpyAsync(d, 256, h, 256, ACL_MEMCPY_HOST_TO_DEVICE, nullptr);
    CHECK_EQ(rc, i == 3 ? ACL_ERROR_RT_SYS_DMA : ACL_SUCCESS);
  }
  CHECK_OK(aclrtSynchronizeStream(nullptr));
  CHECK_OK(aclrtFree(d));
  CHECK_OK(aclrtFreeHost(h));
}

// Run by ctest with ACL_SIM_FAIL=aclrtMalloc:2:207018,aclrtSetDevice:2.
TEST(faults_env, rules_from_environment) {
  CHECK_OK(open_device());
  void *a = nullptr, *b = nullptr;
  CHECK_OK(aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_EQ(aclrtMalloc(&b, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_DEVICE_OOM);
  CHECK_EQ(aclrtSetDevice(0), ACL_ERROR_RT_NO_DEVICE);
  CHECK_OK(aclrtFree(a));
}

// Run by ctest with ACL_SIM_LOG=<file>: one line per broken rule, naming it.
TEST(log_file, rule_lines_name_rule_file_and_key) {
  const char* path = std::getenv("ACL_SIM_LOG");
  CHECK(path != nullptr);
  std::remove(path);  // the sink opens the file at its first line
  std::string bad = write_profile("logkey", {{"engines.h2d.units", ""}});
  use_profile(bad);
  CHECK_EQ(aclInit(nullptr), ACL_ERROR_INVALID_FILE);
  use_profile(default_profile());
  CHECK_OK(open_device());
  void* h = nullptr;
  CHECK_OK(aclrtMallocHost(&h, 256));
  CHECK_EQ(aclrtMemcpyAsync(static_cast<char*>(h) + 8, 64, h, 64, ACL_MEMCPY_HOST_TO_HOST, nullptr),
           ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
  CHECK_OK(aclrtFreeHost(h));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string log = text.str();
  CHECK(log.find("RULE init.profile in aclInit") != std::string::npos);
  CHECK(log.find(bad) != std::string::npos);
  CHECK(log.find("'engines.h2d.units'") != std::string::npos);
  CHECK(log.find("RULE memcpy_async.host_to_host in aclrtMemcpyAsync (-> 207000)") !=
        std::string::npos);
}
