#include <gtest/gtest.h>
#include <turbojpeg.h>

#include <cmath>
#include <cstdlib>

#include "acl_sim/imaging/jpeg_decode.h"
#include "test_util.h"

namespace acl_sim::imaging {
namespace {

DecodeGeometry geometry(uint32_t w, uint32_t h, DecodeAlign a = {}) {
  const std::vector<uint8_t> hdr = test::make_header_only(w, h);
  return decode_geometry(parse_jpeg_info(hdr.data(), hdr.size()), a);
}

TEST(DecodeGeometry, AlignsAndRoundsOddSizesDown) {
  DecodeGeometry g = geometry(1024, 1536);
  EXPECT_EQ(g.width, 1024u);
  EXPECT_EQ(g.height, 1536u);
  EXPECT_EQ(g.bytes, 2359296u);  // the 310 sample's 2,359,328-byte buffer is this + 32
  g = geometry(333, 211);
  EXPECT_EQ(g.width, 332u);
  EXPECT_EQ(g.height, 210u);
  EXPECT_EQ(g.width_stride, 384u);
  EXPECT_EQ(g.height_stride, 224u);
  EXPECT_EQ(g.bytes, 384u * 224u * 3 / 2);
  g = geometry(1920, 1080, DecodeAlign{64, 16});
  EXPECT_EQ(g.width_stride, 1920u);
  EXPECT_EQ(g.height_stride, 1088u);
  const std::vector<uint8_t> hdr = test::make_header_only(1920, 1080);
  EXPECT_EQ(predict_dec_size(parse_jpeg_info(hdr.data(), hdr.size()), DecodeAlign{}),
            1920u * 1088u * 3 / 2);
  EXPECT_EQ(predict_dec_size(JpegInfo{}, DecodeAlign{}), 0u);
}

struct Decoded {
  DecodeStatus status;
  DecodeGeometry g;
  std::vector<uint8_t> bytes;
};

Decoded decode(const std::vector<uint8_t>& jpeg, uint8_t fill = 0x5A, DecodeAlign a = {}) {
  Decoded d;
  d.g = decode_geometry(parse_jpeg_info(jpeg.data(), jpeg.size()), a);
  d.bytes.assign(d.g.bytes, fill);
  d.status = decode_jpeg_nv12(jpeg.data(), jpeg.size(), d.bytes.data(), d.bytes.size(),
                              d.g.width_stride, d.g.height_stride);
  return d;
}

// Y, Cb, Cr of an sRGB colour by the JFIF equations.
void jfif_yuv(double r, double g, double b, double* y, double* u, double* v) {
  *y = 0.299 * r + 0.587 * g + 0.114 * b;
  *u = -0.168736 * r - 0.331264 * g + 0.5 * b + 128;
  *v = 0.5 * r - 0.418688 * g - 0.081312 * b + 128;
}

TEST(DecodeJpeg, SolidColourInEverySubsampling) {
  double ey, eu, ev;
  jfif_yuv(200, 60, 30, &ey, &eu, &ev);
  for (int s : {TJSAMP_444, TJSAMP_422, TJSAMP_420, TJSAMP_440, TJSAMP_411}) {
    const Decoded d = decode(test::make_solid_jpeg(70, 50, 200, 60, 30, s));
    ASSERT_EQ(d.status, DecodeStatus::kOk) << s;
    const uint32_t ws = d.g.width_stride, hs = d.g.height_stride;
    for (size_t i = 0; i < size_t(ws) * hs; ++i) ASSERT_NEAR(d.bytes[i], ey, 2.0) << s;
    for (size_t i = size_t(ws) * hs; i < d.bytes.size(); i += 2) {
      ASSERT_NEAR(d.bytes[i], eu, 2.0) << s;  // U first: NV12
      ASSERT_NEAR(d.bytes[i + 1], ev, 2.0) << s;
    }
  }
}

TEST(DecodeJpeg, GrayHasNeutralChroma) {
  const Decoded d = decode(test::make_jpeg(100, 60, TJSAMP_GRAY));
  ASSERT_EQ(d.status, DecodeStatus::kOk);
  const size_t luma = size_t(d.g.width_stride) * d.g.height_stride;
  for (size_t i = luma; i < d.bytes.size(); ++i) ASSERT_EQ(d.bytes[i], 128);
}

TEST(DecodeJpeg, ChromaIsTheBoxMeanOfTheNativePlanes) {
  // 4:4:4 and 4:2:0 encodings of one picture: the 4:4:4 chroma box-averaged
  // must be close to the 4:2:0 chroma (encoder downsampling is a box too).
  const Decoded a = decode(test::make_jpeg(128, 96, TJSAMP_444, 0, 100));
  const Decoded b = decode(test::make_jpeg(128, 96, TJSAMP_420, 0, 100));
  ASSERT_EQ(a.status, DecodeStatus::kOk);
  ASSERT_EQ(b.status, DecodeStatus::kOk);
  const size_t luma = size_t(a.g.width_stride) * a.g.height_stride;
  double sum = 0;
  for (size_t i = luma; i < a.bytes.size(); ++i) sum += std::abs(a.bytes[i] - b.bytes[i]);
  EXPECT_LT(sum / (a.bytes.size() - luma), 1.5);
}

TEST(DecodeJpeg, PaddingReplicatesTheEdgesAndIsDeterministic) {
  const std::vector<uint8_t> jpeg = test::make_jpeg(333, 211, TJSAMP_420);
  const Decoded d = decode(jpeg, 0x00);
  const Decoded e = decode(jpeg, 0xFF);
  ASSERT_EQ(d.status, DecodeStatus::kOk);
  EXPECT_EQ(d.bytes, e.bytes);  // every byte written, whatever was there
  const uint32_t w = d.g.width, h = d.g.height, ws = d.g.width_stride, hs = d.g.height_stride;
  ASSERT_EQ(w, 332u);
  const uint8_t* y = d.bytes.data();
  const uint8_t* uv = y + size_t(ws) * hs;
  for (uint32_t r = 0; r < h; ++r) {
    for (uint32_t x = w; x < ws; ++x) ASSERT_EQ(y[r * ws + x], y[r * ws + w - 1]);
  }
  for (uint32_t r = h; r < hs; ++r) ASSERT_EQ(0, memcmp(y + r * ws, y + (h - 1) * ws, ws));
  for (uint32_t r = 0; r < h / 2; ++r) {
    for (uint32_t x = w; x < ws; x += 2) {
      ASSERT_EQ(uv[r * ws + x], uv[r * ws + w - 2]);
      ASSERT_EQ(uv[r * ws + x + 1], uv[r * ws + w - 1]);
    }
  }
  for (uint32_t r = h / 2; r < hs / 2; ++r) {
    ASSERT_EQ(0, memcmp(uv + r * ws, uv + (h / 2 - 1) * ws, ws));
  }
}

TEST(DecodeJpeg, TightStridesGiveTheSamePicture) {
  // Strides equal to the (even) picture are smaller than libjpeg-turbo's
  // planes of an odd source (334x212 for 333x211 4:2:0): the copy path.
  for (int s : {TJSAMP_420, TJSAMP_422, TJSAMP_440, TJSAMP_444, TJSAMP_GRAY}) {
    const std::vector<uint8_t> jpeg = test::make_jpeg(333, 211, s);
    const Decoded wide = decode(jpeg);
    std::vector<uint8_t> tight(332 * 210 * 3 / 2);
    ASSERT_EQ(decode_jpeg_nv12(jpeg.data(), jpeg.size(), tight.data(), tight.size(), 332, 210),
              DecodeStatus::kOk);
    const uint32_t ws = wide.g.width_stride, hs = wide.g.height_stride;
    for (uint32_t r = 0; r < 210; ++r) {
      ASSERT_EQ(0, memcmp(&tight[r * 332], &wide.bytes[r * ws], 332)) << s;
    }
    for (uint32_t r = 0; r < 105; ++r) {
      ASSERT_EQ(0, memcmp(&tight[332 * 210 + r * 332], &wide.bytes[ws * hs + r * ws], 332)) << s;
    }
  }
}

TEST(DecodeJpeg, Errors) {
  const std::vector<uint8_t> jpeg = test::make_jpeg(64, 48, TJSAMP_420);
  std::vector<uint8_t> out(128 * 48 * 3 / 2);
  EXPECT_EQ(decode_jpeg_nv12(jpeg.data(), jpeg.size(), out.data(), out.size() - 1, 128, 48),
            DecodeStatus::kBufferTooSmall);
  EXPECT_EQ(decode_jpeg_nv12(jpeg.data(), jpeg.size(), out.data(), out.size(), 62, 48),
            DecodeStatus::kBadGeometry);
  EXPECT_EQ(decode_jpeg_nv12(jpeg.data(), jpeg.size(), out.data(), out.size(), 128, 47),
            DecodeStatus::kBadGeometry);
  const std::vector<uint8_t> cut(jpeg.begin(), jpeg.end() - 200);
  EXPECT_EQ(decode_jpeg_nv12(cut.data(), cut.size(), out.data(), out.size(), 128, 48),
            DecodeStatus::kInvalidStream);
  EXPECT_EQ(decode_jpeg_nv12(jpeg.data(), 3, out.data(), out.size(), 128, 48),
            DecodeStatus::kInvalidStream);
  // Progressive streams decode (the hardware verdict is jpegd_accepts' job).
  const std::vector<uint8_t> prog = test::make_jpeg(64, 48, TJSAMP_420, TJFLAG_PROGRESSIVE);
  EXPECT_EQ(decode_jpeg_nv12(prog.data(), prog.size(), out.data(), out.size(), 128, 48),
            DecodeStatus::kOk);
}

}  // namespace
}  // namespace acl_sim::imaging
