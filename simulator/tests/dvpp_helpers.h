// Helpers for the DVPP and model tests: test JPEGs encoded here with
// libjpeg-turbo (never downloaded), device buffers and picture descriptors.
#ifndef ACL_SIM_TESTS_DVPP_HELPERS_H_
#define ACL_SIM_TESTS_DVPP_HELPERS_H_

#include <turbojpeg.h>

#include <cstdint>
#include <cstring>
#include <vector>

#ifndef ENABLE_DVPP_INTERFACE
#define ENABLE_DVPP_INTERFACE
#endif
#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"

namespace testing_sim {

// A w x h RGB picture (gradients plus a seed-dependent pattern) as a JPEG.
inline std::vector<uint8_t> make_jpeg(int w, int h, int subsamp = TJSAMP_420, int flags = 0,
                                      int seed = 1, int quality = 85) {
  std::vector<uint8_t> rgb(static_cast<size_t>(w) * h * 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = &rgb[(static_cast<size_t>(y) * w + x) * 3];
      p[0] = static_cast<uint8_t>(x * 255 / w + seed * 37);
      p[1] = static_cast<uint8_t>(y * 255 / h + ((x / 8 + y / 8 + seed) % 2) * 60);
      p[2] = static_cast<uint8_t>((x * y / 16 + seed * 91) & 0xFF);
    }
  tjhandle tj = tjInitCompress();
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  int rc = tjCompress2(tj, rgb.data(), w, 0, h, TJPF_RGB, &buf, &size, subsamp, quality, flags);
  std::vector<uint8_t> out;
  if (rc == 0) out.assign(buf, buf + size);
  tjFree(buf);
  tjDestroy(tj);
  return out;
}

// A DVPP block holding `bytes` copied from the host (synchronous copy), and at least the 8
// bytes after them that JPEGD zeroes when they are a JPEG (rule jpegd.eoi_margin).
inline void* dvpp_upload(const std::vector<uint8_t>& bytes, size_t block = 0) {
  void* p = nullptr;
  size_t n = block > bytes.size() + 8 ? block : bytes.size() + 8;
  if (acldvppMalloc(&p, n) != ACL_SUCCESS) return nullptr;
  if (!bytes.empty() &&
      aclrtMemcpy(p, n, bytes.data(), bytes.size(), ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
    return nullptr;
  return p;
}

inline std::vector<uint8_t> download(const void* dev, size_t bytes) {
  std::vector<uint8_t> out(bytes);
  if (aclrtMemcpy(out.data(), bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
    out.clear();
  return out;
}

inline acldvppPicDesc* make_pic(void* data, uint32_t size, uint32_t w, uint32_t h, uint32_t ws,
                                uint32_t hs,
                                acldvppPixelFormat fmt = PIXEL_FORMAT_YUV_SEMIPLANAR_420) {
  acldvppPicDesc* d = acldvppCreatePicDesc();
  acldvppSetPicDescData(d, data);
  acldvppSetPicDescSize(d, size);
  acldvppSetPicDescFormat(d, fmt);
  acldvppSetPicDescWidth(d, w);
  acldvppSetPicDescHeight(d, h);
  acldvppSetPicDescWidthStride(d, ws);
  acldvppSetPicDescHeightStride(d, hs);
  return d;
}

inline acldvppChannelDesc* make_channel() {
  acldvppChannelDesc* c = acldvppCreateChannelDesc();
  if (acldvppCreateChannel(c) != ACL_SUCCESS) return nullptr;
  return c;
}

inline void destroy_channel(acldvppChannelDesc* c) {
  acldvppDestroyChannel(c);
  acldvppDestroyChannelDesc(c);
}

}  // namespace testing_sim

#endif  // ACL_SIM_TESTS_DVPP_HELPERS_H_
