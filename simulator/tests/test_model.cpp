// The simulated model: descriptor files, load/unload memory, execution
// outputs as a function of each input item, timing, and the one-stream rule.
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "acl/acl_mdl.h"
#include "check.h"
#include "dvpp_helpers.h"
#include "session.h"

using namespace testing_sim;

namespace {

constexpr uint32_t kBatch = 4;
constexpr size_t kItemIn = 1000, kItemOut = 400;  // bytes per batch item

std::string write_model(const std::string& tag, const std::string& body) {
  std::string path = scratch_file("model_" + tag + ".model");
  std::ofstream(path) << body;
  return path;
}

std::string good_model(size_t memory_bytes = 1 << 20,
                       const std::string& latency = "latency_ms.1=1.0\nlatency_ms.8=4.0\n") {
  return write_model("good",
                     "# test model\nformat=acl_sim_model\nversion=1\nname=t\nbatch=4\n"
                     "inputs=1\ninput.0.bytes=4000\noutputs=1\noutput.0.bytes=1600\n"
                     "memory_bytes=" +
                         std::to_string(memory_bytes) + "\n" + latency);
}

size_t accounted(size_t n) {
  return (n + 31) / 32 * 32 + 32;
}

struct Io {
  void* in = nullptr;
  void* out = nullptr;
  aclmdlDataset* ins = nullptr;
  aclmdlDataset* outs = nullptr;
  aclDataBuffer* bin = nullptr;
  aclDataBuffer* bout = nullptr;
};

Io make_io(size_t in_bytes = kBatch * kItemIn) {
  Io io;
  aclrtMalloc(&io.in, in_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&io.out, kBatch * kItemOut, ACL_MEM_MALLOC_HUGE_FIRST);
  io.ins = aclmdlCreateDataset();
  io.outs = aclmdlCreateDataset();
  io.bin = aclCreateDataBuffer(io.in, in_bytes);
  io.bout = aclCreateDataBuffer(io.out, kBatch * kItemOut);
  aclmdlAddDatasetBuffer(io.ins, io.bin);
  aclmdlAddDatasetBuffer(io.outs, io.bout);
  return io;
}

void free_io(Io& io) {
  aclmdlDestroyDataset(io.ins);
  aclmdlDestroyDataset(io.outs);
  aclDestroyDataBuffer(io.bin);
  aclDestroyDataBuffer(io.bout);
  aclrtFree(io.in);
  aclrtFree(io.out);
}

// Runs the model on `items` (kBatch items of kItemIn bytes) and returns the output.
std::vector<uint8_t> run(uint32_t id, Io& io, const std::vector<uint8_t>& items) {
  aclrtMemcpy(io.in, items.size(), items.data(), items.size(), ACL_MEMCPY_HOST_TO_DEVICE);
  std::vector<uint8_t> out(kBatch * kItemOut);
  if (aclmdlExecute(id, io.ins, io.outs) != ACL_SUCCESS) return {};
  aclrtMemcpy(out.data(), out.size(), io.out, out.size(), ACL_MEMCPY_DEVICE_TO_HOST);
  return out;
}

std::vector<uint8_t> item(int seed) {
  std::vector<uint8_t> v(kItemIn);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>(i * 7 + seed * 13);
  return v;
}

std::vector<uint8_t> out_item(const std::vector<uint8_t>& out, size_t k) {
  return std::vector<uint8_t>(out.begin() + k * kItemOut, out.begin() + (k + 1) * kItemOut);
}

}  // namespace

TEST(model, load_describe_unload_memory) {
  CHECK_OK(open_device(0.05));
  size_t free0 = 0, total = 0;
  CHECK_OK(aclrtGetMemInfo(ACL_DDR_MEM, &free0, &total));
  std::string path = good_model(10 << 20);
  size_t work = 0, weight = 0;
  CHECK_OK(aclmdlQuerySize(path.c_str(), &work, &weight));
  CHECK_EQ(work + weight, static_cast<size_t>(10 << 20));
  uint32_t id = 0;
  CHECK_OK(aclmdlLoadFromFile(path.c_str(), &id));
  size_t free1 = 0;
  CHECK_OK(aclrtGetMemInfo(ACL_DDR_MEM, &free1, &total));
  CHECK_EQ(free0 - free1, accounted(10 << 20));
  aclmdlDesc* d = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDesc(d, id));
  CHECK_EQ(aclmdlGetNumInputs(d), 1u);
  CHECK_EQ(aclmdlGetNumOutputs(d), 1u);
  CHECK_EQ(aclmdlGetInputSizeByIndex(d, 0), static_cast<size_t>(4000));
  CHECK_EQ(aclmdlGetOutputSizeByIndex(d, 0), static_cast<size_t>(1600));
  aclmdlIODims dims{};
  CHECK_OK(aclmdlGetInputDims(d, 0, &dims));
  CHECK_EQ(dims.dimCount, 2u);
  CHECK_EQ(dims.dims[0], 4);
  CHECK_OK(aclmdlDestroyDesc(d));
  CHECK_OK(aclmdlUnload(id));
  CHECK_EQ(aclmdlUnload(id), ACL_ERROR_INVALID_MODEL_ID);
  // With the caller's memory: nothing allocated by the load.
  void *wk = nullptr, *wt = nullptr;
  CHECK_OK(aclrtMalloc(&wk, work, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclrtMalloc(&wt, weight, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclmdlLoadFromFileWithMem(path.c_str(), &id, wk, work, wt, weight));
  CHECK_RULE(aclmdlLoadFromFileWithMem(path.c_str(), &id, wk, work, wt, weight / 2),
             ACL_ERROR_INVALID_PARAM, "model.weight_memory");
  CHECK_OK(aclmdlUnload(id));
  CHECK_OK(aclrtFree(wk));
  CHECK_OK(aclrtFree(wt));
  aclsimMemStats st{};
  CHECK_OK(aclsimGetMemStats(&st));
  CHECK_EQ(st.deviceAllocs, 0u);
  CHECK_EQ(st.deviceBytes, 0u);
}

TEST(model, bad_files_and_out_of_memory) {
  use_profile(write_profile("mdl_tiny", {{"memory.device_bytes", "8388608"},
                                         {"memory.reserved_bytes", "0"},
                                         {"memory.dvpp_bytes", "1048576"}}));
  CHECK_OK(open_device(0.05));
  uint32_t id = 0;
  CHECK_RULE(aclmdlLoadFromFile("/nonexistent/x.om", &id), ACL_ERROR_INVALID_FILE, "model.file");
  std::string wrong = write_model("fmt", "format=om\nversion=1\n");
  CHECK_RULE(aclmdlLoadFromFile(wrong.c_str(), &id), ACL_ERROR_PARSE_MODEL, "model.descriptor");
  std::string nokey = write_model("key", "format=acl_sim_model\nversion=1\nbatch=4\ninputs=1\n");
  CHECK_RULE(aclmdlLoadFromFile(nokey.c_str(), &id), ACL_ERROR_PARSE_MODEL, "model.descriptor");
  std::string binary = write_model("bin", std::string("\x7f"
                                                      "ELF\x01\x02\x00garbage",
                                                      15));
  CHECK_RULE(aclmdlLoadFromFile(binary.c_str(), &id), ACL_ERROR_PARSE_MODEL, "model.descriptor");
  std::string big = good_model(16 << 20);  // more than the 8 MiB device
  CHECK_RULE(aclmdlLoadFromFile(big.c_str(), &id), ACL_ERROR_RT_MEMORY_ALLOCATION,
             "malloc.device_budget");
  aclsimMemStats st{};
  CHECK_OK(aclsimGetMemStats(&st));
  CHECK_EQ(st.deviceBytes, 0u);
}

TEST(model, outputs_are_a_function_of_each_input_item) {
  CHECK_OK(open_device(0.05));
  uint32_t id = 0;
  CHECK_OK(aclmdlLoadFromFile(good_model().c_str(), &id));
  Io io = make_io();
  std::vector<uint8_t> a, b;
  for (int k = 0; k < 4; ++k) {
    std::vector<uint8_t> x = item(k), y = item(k == 2 ? 0 : 10 + k);  // b[2] == a[0]
    a.insert(a.end(), x.begin(), x.end());
    b.insert(b.end(), y.begin(), y.end());
  }
  std::vector<uint8_t> oa = run(id, io, a), ob = run(id, io, b), oa2 = run(id, io, a);
  CHECK(!oa.empty() && !ob.empty());
  CHECK(oa == oa2);                           // deterministic
  CHECK(out_item(oa, 1) != out_item(ob, 1));  // different input item, different output
  CHECK(out_item(ob, 2) == out_item(oa, 0));  // same item in another position, same output
  CHECK(out_item(oa, 0) != out_item(oa, 1));
  for (size_t i = 0; i < oa.size(); i += 4) {  // float32 scores in [0, 1)
    float f = 0;
    std::memcpy(&f, &oa[i], 4);
    CHECK(f >= 0.0f && f < 1.0f);
  }
  free_io(io);
  CHECK_OK(aclmdlUnload(id));
}

TEST(model, wrong_buffers_refused) {
  CHECK_OK(open_device(0.05));
  uint32_t id = 0;
  CHECK_OK(aclmdlLoadFromFile(good_model().c_str(), &id));
  Io io = make_io(kBatch * kItemIn - 8);
  CHECK_RULE(aclmdlExecuteAsync(id, io.ins, io.outs, nullptr), ACL_ERROR_INVALID_PARAM,
             "model.input_size");
  CHECK_RULE(aclmdlExecute(id + 100, io.ins, io.outs), ACL_ERROR_INVALID_MODEL_ID, "model.id");
  std::vector<uint8_t> host(kBatch * kItemIn);
  aclDataBuffer* hb = aclCreateDataBuffer(host.data(), host.size());
  aclmdlDataset* hs = aclmdlCreateDataset();
  CHECK_OK(aclmdlAddDatasetBuffer(hs, hb));
  CHECK_RULE(aclmdlExecute(id, hs, io.outs), ACL_ERROR_RT_INVALID_MEMORY_TYPE, "model.io_memory");
  aclmdlDestroyDataset(hs);
  aclDestroyDataBuffer(hb);
  free_io(io);
  CHECK_OK(aclmdlUnload(id));
}

TEST(model, one_model_id_one_stream_at_a_time) {
  CHECK_OK(open_device(0.05));
  uint32_t id = 0, id2 = 0;
  // 2 s of model time per execution: still running when s2 submits, even
  // under a sanitizer on a loaded machine.
  std::string path = good_model(1 << 20, "latency_ms.4=2000\n");
  CHECK_OK(aclmdlLoadFromFile(path.c_str(), &id));
  CHECK_OK(aclmdlLoadFromFile(path.c_str(), &id2));
  Io io = make_io(), io2 = make_io();
  aclrtStream s1 = nullptr, s2 = nullptr;
  CHECK_OK(aclrtCreateStream(&s1));
  CHECK_OK(aclrtCreateStream(&s2));
  CHECK_OK(aclmdlExecuteAsync(id, io.ins, io.outs, s1));
  CHECK_OK(aclmdlExecuteAsync(id, io.ins, io.outs, s1));  // same stream: fine
  CHECK_RULE(aclmdlExecuteAsync(id, io2.ins, io2.outs, s2), ACL_ERROR_RT_MODEL_EXECUTE,
             "model.concurrent_streams");
  CHECK_OK(aclmdlExecuteAsync(id2, io2.ins, io2.outs, s2));  // another instance: fine
  CHECK_OK(aclrtSynchronizeStream(s1));
  CHECK_OK(aclmdlExecuteAsync(id, io2.ins, io2.outs, s2));  // s1 done: fine
  CHECK_OK(aclrtSynchronizeStream(s2));
  free_io(io);
  free_io(io2);
  CHECK_OK(aclmdlUnload(id));
  CHECK_OK(aclmdlUnload(id2));
  CHECK_OK(aclrtDestroyStream(s1));
  CHECK_OK(aclrtDestroyStream(s2));
}

TEST(model, latency_at_batch_interpolated) {
  // batch 4 between latency_ms.1 = 1.0 and latency_ms.8 = 4.0: 1 + 3 * 3/7 ms.
  CHECK_OK(open_device(0.2));
  uint32_t id = 0;
  CHECK_OK(aclmdlLoadFromFile(good_model().c_str(), &id));
  Io io = make_io();
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  double t0 = aclsimNowUs();
  for (int i = 0; i < 20; ++i) CHECK_OK(aclmdlExecuteAsync(id, io.ins, io.outs, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  double took = aclsimNowUs() - t0;
  double want = 20 * (1.0 + 3.0 * 3 / 7) * 1000;
  CHECK(took >= want);
  CHECK(took < want * 10 + 50000);  // the host's own wall time also passes (sanitizers)
  free_io(io);
  CHECK_OK(aclmdlUnload(id));
  CHECK_OK(aclrtDestroyStream(s));
}

// Dynamic batch gears: the extra input, the gear before each execute, its latency and its
// items only (ACL_FACTS 5, "Dynamic batch").
TEST(model, dynamic_batch_gears) {
  // The clock slowed 4 times, not sped up, and each timed execute queued behind a hold of the
  // stream: on an idle stream the host's gap between the event and the execute after it counted
  // in model time (four - one > 2.5 failed under ASan at 0.2 and
  // under TSan at 1.0 on a busy machine).
  CHECK_OK(open_device(4.0));
  uint32_t id = 0, fixed = 0;
  std::string path = write_model("gears",
                                 "format=acl_sim_model\nversion=1\nname=g\nbatch=4\ninputs=1\n"
                                 "input.0.bytes=4000\noutputs=1\noutput.0.bytes=1600\n"
                                 "memory_bytes=1048576\nlatency_ms.1=1.0\nlatency_ms.4=4.0\n"
                                 "gears=1,2,4\n");
  CHECK_OK(aclmdlLoadFromFile(path.c_str(), &id));
  CHECK_OK(aclmdlLoadFromFile(good_model().c_str(), &fixed));
  aclmdlDesc* d = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDesc(d, id));
  aclmdlBatch gears{};
  CHECK_OK(aclmdlGetDynamicBatch(d, &gears));
  CHECK(gears.batchCount == 3 && gears.batch[0] == 1 && gears.batch[2] == 4);
  CHECK(aclmdlGetNumInputs(d) == 2);
  size_t index = 0;
  CHECK_OK(aclmdlGetInputIndexByName(d, "ascend_mbatch_shape_data", &index));
  CHECK(index == 1);
  const size_t mbatch_bytes = aclmdlGetInputSizeByIndex(d, index);
  CHECK(mbatch_bytes > 0);
  Io io = make_io();
  void* mbatch = nullptr;
  CHECK_OK(aclrtMalloc(&mbatch, mbatch_bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  aclDataBuffer* bm = aclCreateDataBuffer(mbatch, mbatch_bytes);
  CHECK_OK(aclmdlAddDatasetBuffer(io.ins, bm));
  // no gear given: refused; a gear that is not one, the wrong index, a static model: refused
  CHECK_RULE(aclmdlExecute(id, io.ins, io.outs), ACL_ERROR_INVALID_PARAM,
             "model.dynamic_batch_unset");
  CHECK_RULE(aclmdlSetDynamicBatchSize(id, io.ins, index, 3), ACL_ERROR_INVALID_PARAM,
             "model.dynamic_gear");
  CHECK_RULE(aclmdlSetDynamicBatchSize(id, io.ins, 0, 2), ACL_ERROR_INVALID_PARAM,
             "model.dynamic_index");
  CHECK_RULE(aclmdlSetDynamicBatchSize(fixed, io.ins, index, 2), ACL_ERROR_MODEL_NOT_DYNAMIC,
             "model.not_dynamic");
  // gear 1: 1 ms, and a second execute needs the gear again
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  // Model time between events around each execute (not the host's clock around a synchronize,
  // whose wake-ups a loaded machine stretches): only the host's gap between the event and the
  // execute's submission adds to the model's time.
  aclrtEvent before = nullptr, after = nullptr;
  CHECK_OK(aclrtCreateEvent(&before));
  CHECK_OK(aclrtCreateEvent(&after));
  auto execute_ms = [&](uint64_t gear, float& ms) {  // ms stays -1 when a call fails
    ms = -1;
    CHECK_OK(aclmdlSetDynamicBatchSize(id, io.ins, index, gear));
    CHECK_OK(aclsimHoldStreamAsync(s, 20000));  // the execute is queued before the clock starts
    CHECK_OK(aclrtRecordEvent(before, s));
    CHECK_OK(aclmdlExecuteAsync(id, io.ins, io.outs, s));
    CHECK_OK(aclrtRecordEvent(after, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtEventElapsedTime(&ms, before, after));
    CHECK_OK(aclrtResetEvent(before, s));  // recorded again for the next gear
    CHECK_OK(aclrtResetEvent(after, s));
    CHECK_OK(aclrtSynchronizeStream(s));  // the resets are tasks of the stream
  };
  float one = -1, four = -1;
  execute_ms(1, one);
  CHECK_RULE(aclmdlExecuteAsync(id, io.ins, io.outs, s), ACL_ERROR_INVALID_PARAM,
             "model.dynamic_batch_unset");
  execute_ms(4, four);
  CHECK(one >= 1.0f && four >= 4.0f && four - one > 2.5f);
  CHECK_OK(aclrtDestroyEvent(after));
  CHECK_OK(aclrtDestroyEvent(before));
  CHECK_OK(aclrtDestroyStream(s));
  aclDestroyDataBuffer(bm);
  aclrtFree(mbatch);
  free_io(io);
  aclmdlDestroyDesc(d);
  CHECK_OK(aclmdlUnload(id));
  CHECK_OK(aclmdlUnload(fixed));
}

// The DVPP and model entry points count through the fault-injection hook.
TEST(model, fault_injection_reaches_dvpp_and_model_calls) {
  CHECK_OK(open_device(0.05));
  CHECK_OK(aclsimSetFaults("aclmdlLoadFromFile:1,acldvppMalloc:2:207001"));
  uint32_t id = 0;
  std::string path = good_model();
  CHECK_EQ(aclmdlLoadFromFile(path.c_str(), &id), ACL_ERROR_INVALID_FILE);
  CHECK_OK(aclmdlLoadFromFile(path.c_str(), &id));
  void *a = nullptr, *b = nullptr;
  CHECK_OK(acldvppMalloc(&a, 4096));
  CHECK_EQ(acldvppMalloc(&b, 4096), ACL_ERROR_RT_MEMORY_ALLOCATION);
  CHECK_EQ(aclsimCallCount("acldvppMalloc"), 2u);
  CHECK_OK(acldvppFree(a));
  CHECK_OK(aclmdlUnload(id));
  aclsimMemStats st{};
  CHECK_OK(aclsimGetMemStats(&st));
  CHECK_EQ(st.deviceBytes, 0u);
}
