// Calibration probe for CANN's published DVPP figures by channel count
// (ACL_FACTS.md section 5, Ascend 310): one host thread, stream and DVPP
// channel per channel, as CANN's measurements.
//   VPC:   1080p -> 1080p YUV420SP resizes, 10 tasks per synchronisation;
//          published n x 360 fps, 1440 fps from 4 channels.
//   JPEGD: one decode per synchronisation; published 128 fps with one channel
//          and 256 with two or more at 1080p: the probe decodes the study's
//          1024x1536 JPEG and the calibration compares the 2-channel / 1-channel
//          ratio (the 1080p stream's size, which sets JPEGD's time, is unknown).
// Returns frames per model second over the span in which every channel runs.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#ifndef ENABLE_DVPP_INTERFACE
#define ENABLE_DVPP_INTERFACE
#endif
#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "acl_sim/acl_sim.h"

namespace {

void must(aclError rc, const char* what) {
  if (rc == ACL_SUCCESS) return;
  std::fprintf(stderr, "acl_sim_calib: %s failed: %d\n", what, static_cast<int>(rc));
  std::exit(1);
}

acldvppPicDesc* picture(void* data, uint32_t bytes, uint32_t w, uint32_t h, uint32_t ws,
                        uint32_t hs) {
  acldvppPicDesc* d = acldvppCreatePicDesc();
  acldvppSetPicDescData(d, data);
  acldvppSetPicDescSize(d, bytes);
  acldvppSetPicDescFormat(d, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
  acldvppSetPicDescWidth(d, w);
  acldvppSetPicDescHeight(d, h);
  acldvppSetPicDescWidthStride(d, ws);
  acldvppSetPicDescHeightStride(d, hs);
  return d;
}

// One channel: `rounds` synchronisations; logs the model time of each.
void channel(bool vpc, const std::vector<uint8_t>* jpeg, int rounds, std::vector<double>* ends) {
  must(aclrtSetDevice(0), "aclrtSetDevice");
  acldvppChannelDesc* ch = acldvppCreateChannelDesc();
  must(acldvppCreateChannel(ch), "acldvppCreateChannel");
  aclrtStream s = nullptr;
  must(aclrtCreateStream(&s), "aclrtCreateStream");
  const uint32_t w = 1920, h = 1080, nv12 = w * h * 3 / 2;
  void *src = nullptr, *dst = nullptr;
  uint32_t src_bytes = vpc ? nv12 : static_cast<uint32_t>(jpeg->size());
  uint32_t dst_bytes = nv12;
  if (!vpc)
    must(acldvppJpegPredictDecSize(jpeg->data(), src_bytes, PIXEL_FORMAT_YUV_SEMIPLANAR_420,
                                   &dst_bytes),
         "acldvppJpegPredictDecSize");
  must(acldvppMalloc(&src, src_bytes), "acldvppMalloc");
  must(acldvppMalloc(&dst, dst_bytes), "acldvppMalloc");
  if (!vpc)
    must(aclrtMemcpy(src, src_bytes, jpeg->data(), src_bytes, ACL_MEMCPY_HOST_TO_DEVICE),
         "aclrtMemcpy");
  acldvppPicDesc* in = picture(src, src_bytes, w, h, w, h);
  acldvppPicDesc* out =
      vpc ? picture(dst, dst_bytes, w, h, w, h) : picture(dst, dst_bytes, 1536, 1024, 1536, 1024);
  acldvppResizeConfig* rc = acldvppCreateResizeConfig();
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < (vpc ? 10 : 1); ++i) {
      if (vpc)
        must(acldvppVpcResizeAsync(ch, in, out, rc, s), "acldvppVpcResizeAsync");
      else
        must(acldvppJpegDecodeAsync(ch, src, src_bytes, out, s), "acldvppJpegDecodeAsync");
    }
    must(aclrtSynchronizeStream(s), "aclrtSynchronizeStream");
    ends->push_back(aclsimNowUs());
  }
  acldvppDestroyResizeConfig(rc);
  acldvppDestroyPicDesc(in);
  acldvppDestroyPicDesc(out);
  must(acldvppFree(src), "acldvppFree");
  must(acldvppFree(dst), "acldvppFree");
  must(aclrtDestroyStream(s), "aclrtDestroyStream");
  must(acldvppDestroyChannel(ch), "acldvppDestroyChannel");
  must(acldvppDestroyChannelDesc(ch), "acldvppDestroyChannelDesc");
  must(aclrtResetDevice(0), "aclrtResetDevice");
}

}  // namespace

double dvpp_channels(const std::string& engine, int channels, const std::vector<uint8_t>& jpeg) {
  bool vpc = engine == "vpc";
  int rounds = vpc ? 16 : 120;
  std::vector<std::vector<double>> ends(channels);
  std::vector<std::thread> pool;
  for (int c = 0; c < channels; ++c) pool.emplace_back(channel, vpc, &jpeg, rounds, &ends[c]);
  for (auto& t : pool) t.join();
  // Each channel's rate between the moment all run and the first to stop.
  double from = 0, to = 1e300, fps = 0;
  for (const auto& e : ends) {
    from = std::max(from, e.front());
    to = std::min(to, e.back());
  }
  for (const auto& e : ends) {
    std::vector<double> in;
    for (double t : e)
      if (t >= from && t <= to) in.push_back(t);
    if (in.size() < 3) return 0;
    fps += (in.size() - 1) * (vpc ? 10.0 : 1.0) / ((in.back() - in.front()) / 1e6);
  }
  return fps;
}
