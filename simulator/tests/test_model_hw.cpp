// Dynamic height/width gears of the simulated model (descriptor `hw_gears=`): the gear list,
// the rules of aclmdlSetDynamicHWSize, outputs of the gear's items, time proportional to the
// gear's elements.
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "acl/acl_mdl.h"
#include "check.h"
#include "session.h"

using namespace testing_sim;

namespace {

// batch 2, gears 4x8, 4x16, 4x32 of 1-byte elements: input 0 is 2 x 128 bytes (the largest)
constexpr size_t kIn = 2 * 4 * 32, kOut = 2 * 40;

std::string hw_model(const std::string& tag, const std::string& extra) {
  std::string path = scratch_file("model_hw_" + tag + ".model");
  std::ofstream(path) << "format=acl_sim_model\nversion=1\nname=hw\nbatch=2\ninputs=1\n"
                         "input.0.bytes=256\noutputs=1\noutput.0.bytes=80\n"
                         "memory_bytes=1048576\nlatency_ms.2=4.0\n"
                      << extra;
  return path;
}

struct HwIo {
  void* in = nullptr;
  void* out = nullptr;
  void* mbatch = nullptr;
  aclmdlDataset* ins = nullptr;
  aclmdlDataset* outs = nullptr;
  std::vector<aclDataBuffer*> buffers;

  HwIo() {
    aclrtMalloc(&in, kIn, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&out, kOut, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&mbatch, 8, ACL_MEM_MALLOC_HUGE_FIRST);
    ins = aclmdlCreateDataset();
    outs = aclmdlCreateDataset();
    buffers = {aclCreateDataBuffer(in, kIn), aclCreateDataBuffer(mbatch, 8),
               aclCreateDataBuffer(out, kOut)};
    aclmdlAddDatasetBuffer(ins, buffers[0]);
    aclmdlAddDatasetBuffer(ins, buffers[1]);
    aclmdlAddDatasetBuffer(outs, buffers[2]);
  }
  ~HwIo() {
    aclmdlDestroyDataset(ins);
    aclmdlDestroyDataset(outs);
    for (aclDataBuffer* b : buffers) aclDestroyDataBuffer(b);
    aclrtFree(in);
    aclrtFree(out);
    aclrtFree(mbatch);
  }
  // Runs at gear (h, w) on `input` (kIn bytes); the output, or empty on failure.
  std::vector<uint8_t> run(uint32_t id, uint64_t h, uint64_t w, const std::vector<uint8_t>& input) {
    aclrtMemcpy(in, kIn, input.data(), kIn, ACL_MEMCPY_HOST_TO_DEVICE);
    if (aclmdlSetDynamicHWSize(id, ins, 1, h, w) != ACL_SUCCESS) return {};
    if (aclmdlExecute(id, ins, outs) != ACL_SUCCESS) return {};
    std::vector<uint8_t> result(kOut);
    aclrtMemcpy(result.data(), kOut, out, kOut, ACL_MEMCPY_DEVICE_TO_HOST);
    return result;
  }
};

}  // namespace

TEST(model, dynamic_hw_gears_listed_and_enforced) {
  CHECK_OK(open_device(0.2));
  uint32_t id = 0, batched = 0;
  CHECK_OK(aclmdlLoadFromFile(hw_model("ok", "hw_gears=4x8,4x16,4x32\n").c_str(), &id));
  CHECK_OK(aclmdlLoadFromFile(hw_model("b", "latency_ms.1=1.0\ngears=1,2\n").c_str(), &batched));
  aclmdlDesc* d = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDesc(d, id));
  aclmdlHW hw{};
  CHECK_OK(aclmdlGetDynamicHW(d, static_cast<size_t>(-1), &hw));
  CHECK(hw.hwCount == 3 && hw.hw[0][0] == 4 && hw.hw[0][1] == 8 && hw.hw[2][1] == 32);
  CHECK_RULE(aclmdlGetDynamicHW(d, 0, &hw), ACL_ERROR_INVALID_PARAM,
             "model.dynamic_hw_reserved_index");
  aclmdlBatch none{};
  CHECK_OK(aclmdlGetDynamicBatch(d, &none));
  CHECK(none.batchCount == 0);
  size_t index = 0;
  CHECK_OK(aclmdlGetInputIndexByName(d, ACL_DYNAMIC_TENSOR_NAME, &index));
  CHECK(index == 1 && aclmdlGetNumInputs(d) == 2 && aclmdlGetInputSizeByIndex(d, 0) == kIn);
  HwIo io;
  CHECK_RULE(aclmdlExecute(id, io.ins, io.outs), ACL_ERROR_INVALID_PARAM, "model.dynamic_hw_unset");
  CHECK_RULE(aclmdlSetDynamicHWSize(id, io.ins, index, 4, 12), ACL_ERROR_INVALID_PARAM,
             "model.dynamic_hw_gear");
  CHECK_RULE(aclmdlSetDynamicHWSize(id, io.ins, 0, 4, 8), ACL_ERROR_INVALID_PARAM,
             "model.dynamic_index");
  CHECK_RULE(aclmdlSetDynamicHWSize(batched, io.ins, index, 4, 8), ACL_ERROR_MODEL_NOT_DYNAMIC,
             "model.not_dynamic");
  CHECK_RULE(aclmdlSetDynamicBatchSize(id, io.ins, index, 2), ACL_ERROR_MODEL_NOT_DYNAMIC,
             "model.not_dynamic");
  // a second execute needs the gear again
  CHECK_OK(aclmdlSetDynamicHWSize(id, io.ins, index, 4, 8));
  CHECK_OK(aclmdlExecute(id, io.ins, io.outs));
  CHECK_RULE(aclmdlExecute(id, io.ins, io.outs), ACL_ERROR_INVALID_PARAM, "model.dynamic_hw_unset");
  CHECK_OK(aclmdlDestroyDesc(d));
  CHECK_OK(aclmdlUnload(id));
  CHECK_OK(aclmdlUnload(batched));
}

TEST(model, dynamic_hw_gear_items_and_time) {
  // The clock slowed 4 times (as model.dynamic_batch_gears); and each timed execution is queued
  // behind a hold of the stream, so that the host's gap between the first event and the
  // execute after it does not count (at 0.2, and at 4 under TSan beside three busy processes,
  // it did).
  CHECK_OK(open_device(4.0));
  uint32_t id = 0;
  CHECK_OK(aclmdlLoadFromFile(hw_model("t", "hw_gears=4x8,4x32\n").c_str(), &id));
  HwIo io;
  // at gear 4x8 the items are bytes [0, 32) and [32, 64): what lies beyond is not read
  std::vector<uint8_t> a(kIn), b(kIn);
  for (size_t i = 0; i < kIn; ++i) a[i] = b[i] = static_cast<uint8_t>(i * 7 + 3);
  for (size_t i = 64; i < kIn; ++i) b[i] = static_cast<uint8_t>(~b[i]);
  std::vector<uint8_t> small_a = io.run(id, 4, 8, a), small_b = io.run(id, 4, 8, b);
  CHECK(!small_a.empty() && small_a == small_b);
  // at 4x32 they are [0, 128) and [128, 256): the same bytes, other items, other outputs
  std::vector<uint8_t> big_a = io.run(id, 4, 32, a), big_b = io.run(id, 4, 32, b);
  CHECK(!big_a.empty() && big_a != small_a && big_a != big_b);
  // item 0 of 4x32 covers the changed bytes 64..127; item 1 too: both differ
  CHECK(std::memcmp(big_a.data(), big_b.data(), kOut / 2) != 0);
  // swapping the two items of a 4x8 batch swaps the outputs
  std::vector<uint8_t> swapped(a);
  std::memcpy(swapped.data(), a.data() + 32, 32);
  std::memcpy(swapped.data() + 32, a.data(), 32);
  std::vector<uint8_t> small_s = io.run(id, 4, 8, swapped);
  CHECK(std::memcmp(small_s.data(), small_a.data() + kOut / 2, kOut / 2) == 0);
  // time: 4 ms at the largest gear, a quarter of it at a quarter of the elements
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  // Timed between two events on the stream (model time on the device), so a loaded host
  // waking late from the synchronisation does not count.
  aclrtEvent before = nullptr, after = nullptr;
  CHECK_OK(aclrtCreateEventWithFlag(&before, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE));
  CHECK_OK(aclrtCreateEventWithFlag(&after, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE));
  double took[2] = {0, 0};
  const uint64_t widths[2] = {8, 32};
  for (int k = 0; k < 2; ++k) {
    CHECK_OK(aclmdlSetDynamicHWSize(id, io.ins, 1, 4, widths[k]));
    CHECK_OK(aclsimHoldStreamAsync(s, 20000));  // the execute is queued before the clock starts
    CHECK_OK(aclrtRecordEvent(before, s));
    CHECK_OK(aclmdlExecuteAsync(id, io.ins, io.outs, s));
    CHECK_OK(aclrtRecordEvent(after, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    float ms = 0;
    CHECK_OK(aclrtEventElapsedTime(&ms, before, after));
    took[k] = ms * 1e3;
    CHECK_OK(aclrtResetEvent(before, s));
    CHECK_OK(aclrtResetEvent(after, s));
  }
  CHECK(took[0] >= 1000 && took[1] >= 4000 && took[1] > 2.5 * took[0]);
  CHECK_OK(aclrtSynchronizeStream(s));  // the resets
  CHECK_OK(aclrtDestroyEvent(before));
  CHECK_OK(aclrtDestroyEvent(after));
  CHECK_OK(aclrtDestroyStream(s));
  CHECK_OK(aclmdlUnload(id));
}

TEST(model, dynamic_hw_descriptors_refused) {
  CHECK_OK(open_device(0.05));
  uint32_t id = 0;
  const char* bad[] = {
      "hw_gears=4x8,4x8\n",  // twice
      "hw_gears=4by8\n",     // not h x w
      "hw_gears=4x0\n",      // empty
      "hw_gears=4x12\n",     // 128 bytes per item is not a whole number of 48
      "latency_ms.1=1.0\ngears=1,2\nhw_gears=4x32\n",  // two kinds of gears
  };
  int k = 0;
  for (const char* extra : bad)
    CHECK_RULE(aclmdlLoadFromFile(hw_model("bad" + std::to_string(k++), extra).c_str(), &id),
               ACL_ERROR_PARSE_MODEL, "model.descriptor");
}

// An output that follows the gear (descriptor `output.0.hw_scaled=1`, issue 27 item 3): at a
// gear with half the elements each item's output is half as long, the items packed from the
// start, and aclmdlGetCurOutputDims gives that shape after aclmdlSetDynamicHWSize (HIA
// aclcppdevg_03_1466); aclmdlGetOutputDims keeps the largest.
TEST(model, dynamic_hw_output_follows_the_gear) {
  CHECK_OK(open_device(0.2));
  uint32_t id = 0;
  CHECK_OK(
      aclmdlLoadFromFile(hw_model("s", "hw_gears=4x16,4x32\noutput.0.hw_scaled=1\n").c_str(), &id));
  aclmdlDesc* d = aclmdlCreateDesc();
  CHECK_OK(aclmdlGetDesc(d, id));
  HwIo io;
  aclmdlIODims most{}, now{};
  CHECK_OK(aclmdlGetOutputDims(d, 0, &most));
  CHECK(most.dimCount == 2 && most.dims[0] == 2 && most.dims[1] == 10);  // 40 bytes an item
  CHECK_OK(aclmdlSetDynamicHWSize(id, io.ins, 1, 4, 16));
  CHECK_OK(aclmdlGetCurOutputDims(d, 0, &now));
  CHECK(now.dimCount == 2 && now.dims[0] == 2 && now.dims[1] == 5);  // 20 bytes an item
  CHECK_OK(aclmdlGetOutputDims(d, 0, &most));
  CHECK(most.dims[1] == 10);
  std::vector<uint8_t> a(kIn);
  for (size_t i = 0; i < kIn; ++i) a[i] = static_cast<uint8_t>(i * 5 + 1);
  CHECK_OK(aclrtMemset(io.out, kOut, 0xEE, kOut));
  std::vector<uint8_t> small = io.run(id, 4, 16, a);
  CHECK(small.size() == kOut);
  // the two 20-byte items fill [0, 40); the rest of the buffer is not written
  CHECK(small[40] == 0xEE && small[79] == 0xEE && !(small[0] == 0xEE && small[1] == 0xEE));
  // item 1 sits right after item 0: swapping the inputs' items swaps the packed outputs
  std::vector<uint8_t> swapped(a);
  std::memcpy(swapped.data(), a.data() + 64, 64);
  std::memcpy(swapped.data() + 64, a.data(), 64);
  std::vector<uint8_t> small_s = io.run(id, 4, 16, swapped);
  CHECK(std::memcmp(small_s.data(), small.data() + 20, 20) == 0);
  CHECK(std::memcmp(small_s.data() + 20, small.data(), 20) == 0);
  // at the largest gear the whole items come back
  CHECK_OK(aclmdlSetDynamicHWSize(id, io.ins, 1, 4, 32));
  CHECK_OK(aclmdlGetCurOutputDims(d, 0, &now));
  CHECK(now.dims[1] == 10);
  CHECK_OK(aclmdlDestroyDesc(d));
  CHECK_OK(aclmdlUnload(id));
  // refused: no whole float32 at a gear (a 10-byte item at 4x8), or no HW gears to follow
  const std::string bad[] = {"hw_gears=4x8,4x32\noutput.0.hw_scaled=1\n",
                             "latency_ms.1=1.0\noutput.0.hw_scaled=1\n",
                             "hw_gears=4x32\noutput.0.hw_scaled=2\n"};
  int k = 0;
  for (const std::string& extra : bad)
    CHECK_RULE(aclmdlLoadFromFile(hw_model("scaled" + std::to_string(k++), extra).c_str(), &id),
               ACL_ERROR_PARSE_MODEL, "model.descriptor");
}
