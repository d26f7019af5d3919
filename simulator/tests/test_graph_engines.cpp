// The engines of a graph pipeline (issue 29): a VPC batch crop's time per region
// (engines.vpc.per_roi_us) and the AI Core's switch between two models
// (engines.aicore.model_switch_weight_share). Model time from events on one stream, so both are
// exact (no wall clock).
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "acl/acl_mdl.h"
#include "check.h"
#include "dvpp_helpers.h"
#include "session.h"

using namespace testing_sim;

namespace {

// Model milliseconds from `before` to `after` recorded around `work` on `s`. `gate` goes first:
// a task long enough for the host to submit the rest while it runs, so that the measured tasks
// run back to back on the device whatever the host's pace.
float elapsed_ms(aclrtStream s, const std::function<void()>& gate,
                 const std::function<void()>& work) {
  aclrtEvent before = nullptr, after = nullptr;
  aclrtCreateEvent(&before);
  aclrtCreateEvent(&after);
  gate();
  aclrtRecordEvent(before, s);
  work();
  aclrtRecordEvent(after, s);
  aclrtSynchronizeStream(s);
  float ms = -1;
  if (aclrtEventElapsedTime(&ms, before, after) != ACL_SUCCESS) ms = -1;
  aclrtDestroyEvent(before);
  aclrtDestroyEvent(after);
  return ms;
}

acldvppPicDesc* picture(acldvppPicDesc* p, void* data, uint32_t w, uint32_t h) {
  acldvppSetPicDescData(p, data);
  acldvppSetPicDescFormat(p, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
  acldvppSetPicDescWidth(p, w);
  acldvppSetPicDescHeight(p, h);
  acldvppSetPicDescWidthStride(p, w);
  acldvppSetPicDescHeightStride(p, h);
  acldvppSetPicDescSize(p, w * h * 3 / 2);
  return p;
}

// A batch crop cutting `regions` 100x100 regions of a 640x480 picture into 64x64 pictures.
class BatchCrop {
 public:
  BatchCrop(void* src, uint32_t regions) : regions_(regions) {
    picture(acldvppGetPicDesc(sb_, 0), src, 640, 480);
    db_ = acldvppCreateBatchPicDesc(regions);
    for (uint32_t k = 0; k < regions; ++k) {
      outs_.push_back(nullptr);
      acldvppMalloc(&outs_.back(), 64 * 64 * 3 / 2);
      picture(acldvppGetPicDesc(db_, k), outs_.back(), 64, 64);
      crops_.push_back(acldvppCreateRoiConfig(100 * (k % 5), 100 * (k % 5) + 99, 0, 99));
      pastes_.push_back(acldvppCreateRoiConfig(0, 63, 0, 63));
    }
  }
  ~BatchCrop() {
    acldvppDestroyResizeConfig(cfg_);
    for (acldvppRoiConfig* r : crops_) acldvppDestroyRoiConfig(r);
    for (acldvppRoiConfig* r : pastes_) acldvppDestroyRoiConfig(r);
    for (void* p : outs_) acldvppFree(p);
    acldvppDestroyBatchPicDesc(sb_);
    acldvppDestroyBatchPicDesc(db_);
  }
  BatchCrop(const BatchCrop&) = delete;
  BatchCrop& operator=(const BatchCrop&) = delete;
  aclError submit(acldvppChannelDesc* ch, aclrtStream s) {
    return acldvppVpcBatchCropResizePasteAsync(ch, sb_, &regions_, 1, db_, crops_.data(),
                                               pastes_.data(), cfg_, s);
  }

 private:
  uint32_t regions_;
  acldvppBatchPicDesc* sb_ = acldvppCreateBatchPicDesc(1);
  acldvppBatchPicDesc* db_ = nullptr;
  acldvppResizeConfig* cfg_ = acldvppCreateResizeConfig();
  std::vector<void*> outs_;
  std::vector<acldvppRoiConfig*> crops_, pastes_;
};

std::string switch_model(const std::string& tag, size_t weight_bytes) {
  const std::string path = scratch_file("switch_" + tag + ".model");
  std::ofstream(path) << "format=acl_sim_model\nversion=1\nname=" << tag
                      << "\nbatch=1\ninputs=1\ninput.0.bytes=1024\noutputs=1\n"
                      << "output.0.bytes=64\nmemory_bytes=" << 2 * weight_bytes
                      << "\nweight_bytes=" << weight_bytes << "\nlatency_ms.1=20.0\n";
  return path;
}

struct Loaded {
  uint32_t id = 0;
  void *in = nullptr, *out = nullptr;
  aclmdlDataset *ins = nullptr, *outs = nullptr;
  aclDataBuffer *bin = nullptr, *bout = nullptr;
};

Loaded load(const std::string& path) {
  Loaded m;
  aclmdlLoadFromFile(path.c_str(), &m.id);
  aclrtMalloc(&m.in, 1024, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&m.out, 64, ACL_MEM_MALLOC_HUGE_FIRST);
  m.ins = aclmdlCreateDataset();
  m.outs = aclmdlCreateDataset();
  m.bin = aclCreateDataBuffer(m.in, 1024);
  m.bout = aclCreateDataBuffer(m.out, 64);
  aclmdlAddDatasetBuffer(m.ins, m.bin);
  aclmdlAddDatasetBuffer(m.outs, m.bout);
  return m;
}

void unload(Loaded& m) {
  aclmdlUnload(m.id);
  aclmdlDestroyDataset(m.ins);
  aclmdlDestroyDataset(m.outs);
  aclDestroyDataBuffer(m.bin);
  aclDestroyDataBuffer(m.bout);
  aclrtFree(m.in);
  aclrtFree(m.out);
}

// Model time of one batch crop call of `regions` regions. The gate is an execution of a model
// (20 ms of AI Core, no pixel work: a gate with pixel work would hold the device thread and
// the host's next submit past its end).
float batch_crop_ms(aclrtStream s, acldvppChannelDesc* ch, void* src, uint32_t regions,
                    const Loaded& gate) {
  BatchCrop measured(src, regions);
  aclError rc = ACL_SUCCESS;
  const float ms = elapsed_ms(
      s, [&] { aclmdlExecuteAsync(gate.id, gate.ins, gate.outs, s); },
      [&] { rc = measured.submit(ch, s); });
  return rc == ACL_SUCCESS ? ms : -1;
}

// Model time of `order` ("ABAB...": which model executes next) on one stream, after an
// execution of `a` (the gate: the AI Core last ran A before every order).
float run_order(aclrtStream s, const std::string& order, const Loaded& a, const Loaded& b) {
  return elapsed_ms(
      s, [&] { aclmdlExecuteAsync(a.id, a.ins, a.outs, s); },
      [&] {
        for (char c : order) {
          const Loaded& m = c == 'A' ? a : b;
          aclmdlExecuteAsync(m.id, m.ins, m.outs, s);
        }
      });
}

}  // namespace

TEST(vpc_batch_time, each_further_region_costs_per_roi_us_and_its_pixels) {
  use_profile(write_profile("vpc_batch", {{"engines.vpc.base_us", "300"},
                                          {"engines.vpc.per_roi_us", "60"},
                                          {"engines.vpc.per_mpixel_us", "1196"}}));
  // Time scale 1: the gate's 20 ms are 20 ms of the host's too, time enough to submit the
  // measured call under a sanitizer on a loaded machine (at 0.1, 2 ms were not always).
  CHECK_OK(open_device(1.0));
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  acldvppChannelDesc* ch = acldvppCreateChannelDesc();
  CHECK_OK(acldvppCreateChannel(ch));
  void* src = nullptr;
  CHECK_OK(acldvppMalloc(&src, 640 * 480 * 3 / 2));
  CHECK_OK(aclrtMemset(src, 640 * 480 * 3 / 2, 90, 640 * 480 * 3 / 2));
  const std::string gate_path = switch_model("gate", 4800);
  Loaded gate = load(gate_path);
  const float one = batch_crop_ms(s, ch, src, 1, gate), eight = batch_crop_ms(s, ch, src, 8, gate);
  unload(gate);
  unlink(gate_path.c_str());
  CHECK(one > 0 && eight > 0);
  // 7 more regions: 7 x per_roi_us plus their 64 x 64 output pixels at per_mpixel_us.
  const double want_us = 7 * 60.0 + 1196.0 * 7 * 64 * 64 / 1e6;
  std::printf("batch crop: 1 region %.3f ms, 8 regions %.3f ms (want +%.1f us)\n", one, eight,
              want_us);
  CHECK(std::fabs((eight - one) * 1000.0 - want_us) < 1.0);
  CHECK_OK(acldvppFree(src));
  CHECK_OK(acldvppDestroyChannel(ch));
  CHECK_OK(acldvppDestroyChannelDesc(ch));
  CHECK_OK(aclrtDestroyStream(s));
}

TEST(model_switch, alternating_two_models_costs_their_weights_at_the_memory_bandwidth) {
  use_profile(write_profile("model_switch", {{"engines.aicore.model_switch_weight_share", "1"},
                                             {"memory.bandwidth_GBps", "48"}}));
  // Time scale 1: each 20 ms gate is 20 ms of the host's too, time enough to submit an order
  // of eight executions under a sanitizer on a loaded machine (at 0.1, 2 ms were not always:
  // an idle AI Core between two of them counted as switch time).
  CHECK_OK(open_device(1.0));
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  const std::string path_a = switch_model("a", 4800000), path_b = switch_model("b", 9600000);
  Loaded a = load(path_a), b = load(path_b), a2 = load(path_a);  // a2: model A loaded again
  // Switch-in times: weight bytes / 48 GB/s = 100 us into A, 200 us into B (executions of
  // 20 ms: the host submits an order while the gate runs).
  const double into_a = 100.0, into_b = 200.0;
  const float back_to_back = run_order(s, "AAAABBBB", a, b);
  const float alternating = run_order(s, "ABABABAB", a, b);
  const float same_model = run_order(s, "ABABABAB", a, a2);  // two instances of one model
  const float alone = run_order(s, "AAAAAAAA", a, b);
  std::printf("model switch: AAAABBBB %.3f ms, ABABABAB %.3f ms, A/A' %.3f ms, A x 8 %.3f ms\n",
              back_to_back, alternating, same_model, alone);
  // One switch into B back to back; four into B and three into A alternating.
  CHECK(std::fabs((alternating - back_to_back) * 1000.0 - 3 * (into_a + into_b)) < 1.0);
  CHECK(std::fabs((back_to_back - alone) * 1000.0 - into_b) < 1.0);
  CHECK(std::fabs(same_model - alone) * 1000.0 < 1.0);  // the same weights: no switch
  for (Loaded* m : {&a, &b, &a2}) unload(*m);
  unlink(path_a.c_str());
  unlink(path_b.c_str());
  CHECK_OK(aclrtDestroyStream(s));
}
