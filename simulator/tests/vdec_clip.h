// Test clips for the VDEC tests (pipelines/data/make_clips.py, run by the ctest fixture
// sim.vdec_clips into ACL_SIM_TEST_CLIPS) and a minimal V1 VDEC driver: a report thread,
// one channel, a send per access unit into its own output picture, the end of stream.
#ifndef ACL_SIM_TESTS_VDEC_CLIP_H_
#define ACL_SIM_TESTS_VDEC_CLIP_H_

#define ENABLE_DVPP_INTERFACE
#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "session.h"

namespace vdec_test {

struct Clip {
  uint32_t width = 0, height = 0, frames = 0;
  std::vector<uint8_t> stream;
  std::vector<std::pair<size_t, size_t>> units;  // offset, size (decode order)
  std::vector<uint8_t> reference;                // tight NV12 frames, display order
  bool ok = false;
  size_t frame_bytes() const { return static_cast<size_t>(width) * height * 3 / 2; }
};

// `name` of make_clips.py ("qvga_h264"); ext "h264" or "h265"; reference optional.
inline Clip load_clip(const std::string& name, const std::string& ext, bool reference = true) {
  Clip c;
  const std::string base = std::string(ACL_SIM_TEST_CLIPS) + "/" + name;
  std::ifstream txt(base + ".txt");
  if (!(txt >> c.width >> c.height >> c.frames)) return c;
  c.stream = testing_sim::read_file(base + "." + ext);
  std::ifstream idx(base + ".index");
  size_t off = 0, size = 0;
  while (idx >> off >> size) c.units.emplace_back(off, size);
  if (reference) c.reference = testing_sim::read_file(base + ".nv12");
  c.ok = !c.stream.empty() && c.units.size() == c.frames &&
         (!reference || c.reference.size() == c.frame_bytes() * c.frames);
  return c;
}

// A report thread: its id first (for the channel descriptions), then, once a channel has
// subscribed it (aclvdecCreateChannel), start() runs aclrtProcessReport in a loop until
// stop() (call it before destroying the channels: an unsubscribed thread's
// aclrtProcessReport breaks rule report.thread_subscribed).
class ReportThread {
 public:
  ReportThread() {
    thread_ = std::thread([this] {
      {
        std::unique_lock<std::mutex> lock(mu_);
        id_ = static_cast<uint64_t>(pthread_self());
        cv_.notify_all();
        cv_.wait(lock, [this] { return go_ || stop_; });
      }
      while (!stop_) aclrtProcessReport(20);
    });
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return id_ != 0; });
  }
  ~ReportThread() { stop(); }
  void start() {
    std::lock_guard<std::mutex> lock(mu_);
    go_ = true;
    cv_.notify_all();
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      cv_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
  }
  uint64_t id() const { return id_; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool go_ = false;
  std::atomic<bool> stop_{false};
  uint64_t id_ = 0;
  std::thread thread_;
};

inline uint32_t align(uint32_t v, uint32_t a) {
  return (v + a - 1) / a * a;
}

// An output picture for a w x h stream: NV12, widthStride ALIGN(w, 16) (>= 32),
// heightStride ALIGN(h, 2), in acldvppMalloc memory.
inline acldvppPicDesc* output_picture(uint32_t w, uint32_t h) {
  const uint32_t ws = align(w, 16) < 32 ? 32 : align(w, 16), hs = align(h, 2);
  const uint32_t size = ws * hs * 3 / 2;
  void* data = nullptr;
  if (acldvppMalloc(&data, size) != ACL_SUCCESS) return nullptr;
  acldvppPicDesc* p = acldvppCreatePicDesc();
  acldvppSetPicDescData(p, data);
  acldvppSetPicDescSize(p, size);
  acldvppSetPicDescFormat(p, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
  acldvppSetPicDescWidth(p, w);
  acldvppSetPicDescHeight(p, h);
  acldvppSetPicDescWidthStride(p, ws);
  acldvppSetPicDescHeightStride(p, hs);
  return p;
}

inline void free_picture(acldvppPicDesc* p) {
  if (p == nullptr) return;
  acldvppFree(acldvppGetPicDescData(p));
  acldvppDestroyPicDesc(p);
}

// A stream descriptor over a device copy of unit `i` of `clip`.
inline acldvppStreamDesc* unit_desc(const Clip& clip, size_t i) {
  const auto [off, size] = clip.units[i];
  void* data = nullptr;
  if (acldvppMalloc(&data, size) != ACL_SUCCESS) return nullptr;
  aclrtMemcpy(data, size, clip.stream.data() + off, size, ACL_MEMCPY_HOST_TO_DEVICE);
  acldvppStreamDesc* d = acldvppCreateStreamDesc();
  acldvppSetStreamDescData(d, data);
  acldvppSetStreamDescSize(d, static_cast<uint32_t>(size));
  acldvppSetStreamDescTimestamp(d, i);
  return d;
}

inline void free_unit(acldvppStreamDesc* d) {
  if (d == nullptr) return;
  acldvppFree(acldvppGetStreamDescData(d));
  acldvppDestroyStreamDesc(d);
}

inline aclError send_eos(aclvdecChannelDesc* ch) {
  acldvppStreamDesc* eos = acldvppCreateStreamDesc();
  acldvppSetStreamDescEos(eos, 1);
  aclError rc = aclvdecSendFrame(ch, eos, nullptr, nullptr, nullptr);
  acldvppDestroyStreamDesc(eos);
  return rc;
}

inline aclvdecChannelDesc* channel_desc(uint32_t id, uint64_t thread, aclvdecCallback cb,
                                        acldvppStreamFormat type) {
  aclvdecChannelDesc* ch = aclvdecCreateChannelDesc();
  aclvdecSetChannelDescChannelId(ch, id);
  aclvdecSetChannelDescThreadId(ch, thread);
  aclvdecSetChannelDescCallback(ch, cb);
  aclvdecSetChannelDescEnType(ch, type);
  aclvdecSetChannelDescOutPicFormat(ch, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
  return ch;
}

}  // namespace vdec_test

#endif  // ACL_SIM_TESTS_VDEC_CLIP_H_
