#include "test_util.h"

#include <turbojpeg.h>

#include <cmath>
#include <stdexcept>

namespace acl_sim::imaging::test {
namespace {

std::vector<uint8_t> compress(const std::vector<uint8_t>& rgb, int w, int h, int subsamp, int flags,
                              int quality) {
  tjhandle tj = tjInitCompress();
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  const int rc =
      tjCompress2(tj, rgb.data(), w, 0, h, TJPF_RGB, &buf, &size, subsamp, quality, flags);
  std::vector<uint8_t> out;
  if (rc == 0) out.assign(buf, buf + size);
  tjFree(buf);
  tjDestroy(tj);
  if (rc != 0) throw std::runtime_error("tjCompress2 failed");
  return out;
}

}  // namespace

std::vector<uint8_t> make_rgb(int width, int height) {
  std::vector<uint8_t> rgb(size_t(width) * height * 3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      uint8_t* p = &rgb[(size_t(y) * width + x) * 3];
      const double wave = 40.0 * std::sin(x * 0.05) * std::cos(y * 0.04);
      p[0] = static_cast<uint8_t>(std::lround(30 + 180.0 * x / width + wave));
      p[1] = static_cast<uint8_t>(std::lround(40 + 170.0 * y / height - wave * 0.5));
      p[2] = static_cast<uint8_t>(std::lround(128 + wave));
    }
  }
  return rgb;
}

std::vector<uint8_t> make_jpeg(int width, int height, int subsamp, int flags, int quality) {
  return compress(make_rgb(width, height), width, height, subsamp, flags, quality);
}

std::vector<uint8_t> make_solid_jpeg(int width, int height, uint8_t r, uint8_t g, uint8_t b,
                                     int subsamp) {
  std::vector<uint8_t> rgb(size_t(width) * height * 3);
  for (size_t i = 0; i < rgb.size(); i += 3) rgb[i] = r, rgb[i + 1] = g, rgb[i + 2] = b;
  return compress(rgb, width, height, subsamp, 0, 95);
}

std::vector<uint8_t> make_header_only(uint32_t w, uint32_t h, uint8_t sof, uint8_t precision) {
  return {0xFF,
          0xD8,  // SOI
          0xFF,
          sof,
          0x00,
          17,
          precision,  // SOFn, length 17
          uint8_t(h >> 8),
          uint8_t(h),
          uint8_t(w >> 8),
          uint8_t(w),
          3,
          1,
          0x22,
          0,
          2,
          0x11,
          1,
          3,
          0x11,
          1,  // Y 2x2, Cb 1x1, Cr 1x1
          0xFF,
          0xDA,
          0x00,
          12,
          3,
          1,
          0x00,
          2,
          0x11,
          3,
          0x11,
          0,
          63,
          0,  // SOS
          0xFF,
          0xD9};  // EOI
}

size_t find_marker(const std::vector<uint8_t>& jpeg, uint8_t marker) {
  for (size_t i = 0; i + 1 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xFF && jpeg[i + 1] == marker) return i + 2;
  }
  return 0;
}

Nv12Image make_nv12(uint32_t w, uint32_t h, uint32_t ws, uint32_t hs, uint32_t seed, uint8_t pad) {
  Nv12Image img(w, h, ws, hs);
  for (auto& b : img.bytes) b = pad;
  uint8_t* uv = img.bytes.data() + size_t(ws) * hs;
  for (uint32_t y = 0; y < h; ++y) {
    for (uint32_t x = 0; x < w; ++x) {
      img.bytes[size_t(y) * ws + x] = uint8_t((x * 7 + y * 3 + seed) ^ (x * y >> 4));
    }
  }
  for (uint32_t y = 0; y < h / 2; ++y) {
    for (uint32_t x = 0; x < w; ++x) uv[size_t(y) * ws + x] = uint8_t(x * 5 + y * 11 + seed * 3);
  }
  return img;
}

}  // namespace acl_sim::imaging::test
