// Rule corpus, part 3 (rules_corpus.h): the rules of the second device review (issue 27;
// simulator/README.md, "Rules of the second device review"). Each `bad` breaks one documented
// restriction, its twin does the same work the documented way.
#define ENABLE_DVPP_INTERFACE
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "rules_corpus.h"

namespace corpus {
namespace {

// Item 1: the JPEG header read before the device is set (the DVPP manager needs one). The
// twin sets the device first.
int jpeg_info_device(bool bad) {
  const std::vector<unsigned char> jpeg = tiny_jpeg();
  if (aclInit(nullptr) != ACL_SUCCESS) return 2;
  if (!bad && aclrtSetDevice(0) != ACL_SUCCESS) return 2;
  uint32_t w = 0, h = 0;
  int32_t comps = 0;
  const aclError rc =
      acldvppJpegGetImageInfo(jpeg.data(), static_cast<uint32_t>(jpeg.size()), &w, &h, &comps);
  if (!bad) aclrtResetDevice(0);
  const int status = aclFinalize() == ACL_SUCCESS ? 0 : 1;
  if (bad) return rc == ACL_ERROR_INTERNAL_ERROR ? status : 3;
  return rc == ACL_SUCCESS && w == 32 && h == 32 ? status : 3;
}

// Item 2: a 64x64 picture pasted at left 24 of a 128x64 canvas (even, but not a multiple of
// 16 as the 310's paste ROI needs). The twin pastes at left 16.
int paste_left_align(bool bad) {
  aclrtStream s = nullptr;
  if (!open_device(&s)) return 2;
  void *in = nullptr, *out = nullptr;
  acldvppMalloc(&in, 64 * 64 * 3 / 2);
  acldvppMalloc(&out, 128 * 64 * 3 / 2);
  aclrtMemset(in, 64 * 64 * 3 / 2, 128, 64 * 64 * 3 / 2);
  acldvppPicDesc *pin = nv12(in, 64, 64), *pout = nv12(out, 128, 64);
  const uint32_t left = bad ? 24 : 16;
  acldvppRoiConfig* crop = acldvppCreateRoiConfig(0, 63, 0, 63);
  acldvppRoiConfig* paste = acldvppCreateRoiConfig(left, left + 63, 0, 63);
  acldvppResizeConfig* cfg = acldvppCreateResizeConfig();
  acldvppChannelDesc* ch = acldvppCreateChannelDesc();
  if (acldvppCreateChannel(ch) != ACL_SUCCESS) return 2;
  const aclError rc = acldvppVpcCropResizePasteAsync(ch, pin, pout, crop, paste, cfg, s);
  aclrtSynchronizeStream(s);
  acldvppDestroyChannel(ch);
  acldvppDestroyChannelDesc(ch);
  acldvppDestroyRoiConfig(crop);
  acldvppDestroyRoiConfig(paste);
  acldvppDestroyResizeConfig(cfg);
  acldvppDestroyPicDesc(pin);
  acldvppDestroyPicDesc(pout);
  acldvppFree(in);
  acldvppFree(out);
  const int status = close_device(s);
  if (bad) return rc == ACL_ERROR_INVALID_PARAM ? status : 3;
  return rc == ACL_SUCCESS ? status : 3;
}

// Item 6: JPEGD zeroes the 8 bytes after the EOI marker: the bad upload buffer is exactly the
// file; the twin's holds the 8 bytes more.
int jpegd_eoi_margin(bool bad) {
  aclrtStream s = nullptr;
  if (!open_device(&s)) return 2;
  const std::vector<unsigned char> jpeg = tiny_jpeg();
  const uint32_t size = static_cast<uint32_t>(jpeg.size());
  void *in = nullptr, *out = nullptr;
  acldvppMalloc(&in, bad ? size : size + 8);
  aclrtMemcpy(in, size, jpeg.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
  const uint32_t ws = 128, hs = 32, bytes = ws * hs * 3 / 2;  // 310 JPEGD strides 128x16
  acldvppMalloc(&out, bytes);
  acldvppPicDesc* pic = acldvppCreatePicDesc();
  acldvppSetPicDescData(pic, out);
  acldvppSetPicDescSize(pic, bytes);
  acldvppSetPicDescFormat(pic, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
  acldvppSetPicDescWidth(pic, 32);
  acldvppSetPicDescHeight(pic, 32);
  acldvppSetPicDescWidthStride(pic, ws);
  acldvppSetPicDescHeightStride(pic, hs);
  acldvppChannelDesc* ch = acldvppCreateChannelDesc();
  if (acldvppCreateChannel(ch) != ACL_SUCCESS) return 2;
  const aclError rc = acldvppJpegDecodeAsync(ch, in, size, pic, s);
  aclrtSynchronizeStream(s);
  const uint32_t ret = acldvppGetPicDescRetCode(pic);
  unsigned char after[8];
  if (!bad)
    aclrtMemcpy(after, sizeof after, static_cast<unsigned char*>(in) + size, 8,
                ACL_MEMCPY_DEVICE_TO_HOST);
  acldvppDestroyChannel(ch);
  acldvppDestroyChannelDesc(ch);
  acldvppDestroyPicDesc(pic);
  acldvppFree(in);
  acldvppFree(out);
  const int status = close_device(s);
  if (bad) return rc == ACL_ERROR_INVALID_PARAM ? status : 3;
  const unsigned char zeros[8] = {};
  return rc == ACL_SUCCESS && ret == 0 && std::memcmp(after, zeros, 8) == 0 ? status : 3;
}

// Item 9: 129 report threads subscribed in one process, one per stream (the 310 allows 128).
// The twin lets one report thread serve the 129 streams.
struct Idle {
  std::atomic<bool>* stop;
  static void* wait(void* arg) {
    auto* self = static_cast<Idle*>(arg);
    while (!self->stop->load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return nullptr;
  }
};

int report_thread_limit(bool bad) {
  constexpr int kStreams = 129;
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 2;
  std::atomic<bool> stop{false};
  Idle idle{&stop};
  std::vector<pthread_t> threads(bad ? kStreams : 1);
  for (pthread_t& t : threads) pthread_create(&t, nullptr, Idle::wait, &idle);
  std::vector<aclrtStream> streams(kStreams);
  aclError first_failure = ACL_SUCCESS;
  for (int i = 0; i < kStreams; ++i) {
    if (aclrtCreateStream(&streams[static_cast<size_t>(i)]) != ACL_SUCCESS) return 2;
    const pthread_t t = threads[bad ? static_cast<size_t>(i) : 0];
    const aclError rc =
        aclrtSubscribeReport(static_cast<uint64_t>(t), streams[static_cast<size_t>(i)]);
    if (rc != ACL_SUCCESS && first_failure == ACL_SUCCESS) first_failure = rc;
  }
  for (int i = 0; i < kStreams; ++i) {
    const pthread_t t = threads[bad ? static_cast<size_t>(i) : 0];
    aclrtUnSubscribeReport(static_cast<uint64_t>(t), streams[static_cast<size_t>(i)]);
    aclrtDestroyStream(streams[static_cast<size_t>(i)]);
  }
  stop = true;
  for (pthread_t t : threads) pthread_join(t, nullptr);
  aclrtResetDevice(0);
  const int status = aclFinalize() == ACL_SUCCESS ? 0 : 1;
  if (bad) return first_failure == ACL_ERROR_RT_THREAD_SUBSCRIBE ? status : 3;
  return first_failure == ACL_SUCCESS ? status : 3;
}

}  // namespace

std::vector<Case> with_review_cases(std::vector<Case> base) {
  const std::vector<Case> review = {
      {"jpeg_info_device", "RULE dvpp.jpeg_info_device ", 87, "", "", jpeg_info_device},
      {"paste_left_align", "RULE dvpp.paste_left_align ", 87, "", "", paste_left_align},
      {"jpegd_eoi_margin", "RULE jpegd.eoi_margin ", 87, "", "", jpegd_eoi_margin},
      {"report_thread_limit", "RULE report.thread_limit ", 87, "", "", report_thread_limit},
  };
  base.insert(base.end(), review.begin(), review.end());
  return base;
}

}  // namespace corpus
