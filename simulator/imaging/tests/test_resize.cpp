#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "acl_sim/imaging/resize.h"
#include "test_util.h"

namespace acl_sim::imaging {
namespace {

// Floating-point cv::resize INTER_LINEAR of one channel of a plane region.
double ref_bilinear(const uint8_t* base, size_t stride, uint32_t ch, uint32_t sw, uint32_t sh,
                    uint32_t dw, uint32_t dh, uint32_t dx, uint32_t dy) {
  auto coord = [](uint32_t d, uint32_t sn, uint32_t dn, uint32_t* i0, double* f) {
    double s = (d + 0.5) * sn / dn - 0.5;
    if (s < 0) s = 0;
    if (s > sn - 1) s = sn - 1;
    *i0 = static_cast<uint32_t>(std::floor(s));
    *f = s - *i0;
  };
  uint32_t x0, y0;
  double fx, fy;
  coord(dx, sw, dw, &x0, &fx);
  coord(dy, sh, dh, &y0, &fy);
  const uint32_t x1 = std::min(x0 + 1, sw - 1), y1 = std::min(y0 + 1, sh - 1);
  auto at = [&](uint32_t x, uint32_t y) { return double(base[y * stride + x * ch]); };
  return (at(x0, y0) * (1 - fx) + at(x1, y0) * fx) * (1 - fy) +
         (at(x0, y1) * (1 - fx) + at(x1, y1) * fx) * fy;
}

struct Case {
  uint32_t sw, sh, dw, dh;
};

TEST(Resize, BilinearMatchesTheFloatReference) {
  for (const Case c : {Case{200, 150, 64, 48}, Case{64, 48, 200, 150}, Case{130, 96, 98, 140},
                       Case{1024, 1536, 224, 224}}) {
    const Nv12Image src = test::make_nv12(c.sw, c.sh, c.sw + 32, c.sh + 4, 3);
    Nv12Image dst(c.dw, c.dh, c.dw + 16, c.dh + 2);
    for (Interpolation m :
         {Interpolation::kDefault, Interpolation::kBilinear, Interpolation::kTfBilinear}) {
      ASSERT_EQ(resize_nv12(src.view(), full_roi(c.sw, c.sh), dst.view(), full_roi(c.dw, c.dh), m),
                ResizeStatus::kOk);
      const size_t ss = src.width_stride, ds = dst.width_stride;
      for (uint32_t y = 0; y < c.dh; ++y) {
        for (uint32_t x = 0; x < c.dw; ++x) {
          const double want = ref_bilinear(src.bytes.data(), ss, 1, c.sw, c.sh, c.dw, c.dh, x, y);
          ASSERT_NEAR(dst.bytes[y * ds + x], want, 1.0) << c.sw << "->" << c.dw << " " << x;
        }
      }
      const uint8_t* suv = src.bytes.data() + ss * src.height_stride;
      const uint8_t* duv = dst.bytes.data() + ds * dst.height_stride;
      for (uint32_t y = 0; y < c.dh / 2; ++y) {
        for (uint32_t x = 0; x < c.dw / 2; ++x) {
          for (uint32_t k = 0; k < 2; ++k) {
            const double want =
                ref_bilinear(suv + k, ss, 2, c.sw / 2, c.sh / 2, c.dw / 2, c.dh / 2, x, y);
            ASSERT_NEAR(duv[y * ds + 2 * x + k], want, 1.0);
          }
        }
      }
    }
  }
}

TEST(Resize, HalvingIsTheRoundedBoxMean) {
  const Nv12Image src = test::make_nv12(64, 32, 64, 32, 9);
  Nv12Image dst(32, 16, 32, 16);
  ASSERT_EQ(resize_nv12(src.view(), full_roi(64, 32), dst.view(), full_roi(32, 16),
                        Interpolation::kBilinear),
            ResizeStatus::kOk);
  for (uint32_t y = 0; y < 16; ++y) {
    for (uint32_t x = 0; x < 32; ++x) {
      const uint8_t* s = &src.bytes[2 * y * 64 + 2 * x];
      ASSERT_EQ(dst.bytes[y * 32 + x], (s[0] + s[1] + s[64] + s[65] + 2) / 4);
    }
  }
}

TEST(Resize, NearestPicksFloorOfScaledIndex) {
  const Nv12Image src = test::make_nv12(100, 60, 128, 64, 1);
  Nv12Image dst(40, 26, 48, 26);
  for (Interpolation m : {Interpolation::kNearest, Interpolation::kTfNearest}) {
    ASSERT_EQ(resize_nv12(src.view(), full_roi(100, 60), dst.view(), full_roi(40, 26), m),
              ResizeStatus::kOk);
    for (uint32_t y = 0; y < 26; ++y) {
      for (uint32_t x = 0; x < 40; ++x) {
        const uint32_t sx = x * 100 / 40, sy = y * 60 / 26;
        ASSERT_EQ(dst.bytes[y * 48 + x], src.bytes[sy * 128 + sx]);
      }
    }
  }
}

TEST(Resize, CropAndPasteWritesOnlyThePasteArea) {
  const Nv12Image src = test::make_nv12(300, 200, 320, 200, 5);
  Nv12Image canvas = test::make_nv12(256, 128, 272, 130, 77, 0x11);
  const Nv12Image before = canvas;
  const Roi crop{40, 20, 199, 139};  // 160 x 120
  const Roi paste{64, 32, 143, 91};  // 80 x 60
  ASSERT_EQ(resize_nv12(src.view(), crop, canvas.view(), paste, Interpolation::kBilinear),
            ResizeStatus::kOk);
  // The same resize into a fresh frame equals the pasted area.
  Nv12Image alone(80, 60, 80, 60);
  ASSERT_EQ(resize_nv12(src.view(), crop, alone.view(), full_roi(80, 60), Interpolation::kBilinear),
            ResizeStatus::kOk);
  const size_t ws = canvas.width_stride, hs = canvas.height_stride;
  for (size_t i = 0; i < canvas.bytes.size(); ++i) {
    const bool chroma = i >= ws * hs;
    const size_t row = (chroma ? i - ws * hs : i) / ws, col = (chroma ? i - ws * hs : i) % ws;
    const size_t top = chroma ? paste.top / 2 : paste.top;
    const size_t bottom = chroma ? paste.bottom / 2 : paste.bottom;
    const bool inside = row >= top && row <= bottom && col >= paste.left && col <= paste.right;
    if (!inside) {
      ASSERT_EQ(canvas.bytes[i], before.bytes[i]) << i;
    } else {
      const size_t arow = row - top, acol = col - paste.left;
      const size_t aoff = chroma ? 80 * 60 + arow * 80 + acol : arow * 80 + acol;
      ASSERT_EQ(canvas.bytes[i], alone.bytes[aoff]) << i;
    }
  }
}

TEST(Resize, SameSizeCropIsACopy) {
  const Nv12Image src = test::make_nv12(128, 64, 128, 64, 2);
  Nv12Image dst(64, 32, 64, 32);
  ASSERT_EQ(resize_nv12(src.view(), Roi{32, 16, 95, 47}, dst.view(), full_roi(64, 32),
                        Interpolation::kDefault),
            ResizeStatus::kOk);
  for (uint32_t y = 0; y < 32; ++y)
    ASSERT_EQ(0, memcmp(&dst.bytes[y * 64], &src.bytes[(y + 16) * 128 + 32], 64));
}

TEST(Nv12, PictureHashIgnoresPaddingOnly) {
  const Nv12Image a = test::make_nv12(64, 32, 64, 32, 4, 0x00);
  const Nv12Image b = test::make_nv12(64, 32, 128, 40, 4, 0xAB);  // other strides and padding
  EXPECT_EQ(hash_nv12_picture(a.view()), hash_nv12_picture(b.view()));
  Nv12Image c = a;
  c.bytes[64 * 32 + 5] ^= 1;  // one chroma byte
  EXPECT_NE(hash_nv12_picture(a.view()), hash_nv12_picture(c.view()));
  const Nv12Image d = test::make_nv12(62, 32, 64, 32, 4, 0x00);
  EXPECT_NE(hash_nv12_picture(a.view()), hash_nv12_picture(d.view()));
}

TEST(Resize, RejectsBadArguments) {
  const Nv12Image src = test::make_nv12(64, 64, 64, 64, 0);
  Nv12Image dst(32, 32, 32, 32);
  const Roi ok{0, 0, 31, 31};
  auto run = [&](const Roi& s, const Roi& d, uint32_t m = 1) {
    return resize_nv12(src.view(), s, dst.view(), d, static_cast<Interpolation>(m));
  };
  EXPECT_EQ(run(ok, ok), ResizeStatus::kOk);
  EXPECT_EQ(run(Roi{1, 0, 31, 31}, ok), ResizeStatus::kBadSourceRoi);  // odd left
  EXPECT_EQ(run(Roi{0, 0, 30, 31}, ok), ResizeStatus::kBadSourceRoi);  // even right
  EXPECT_EQ(run(Roi{0, 0, 65, 31}, ok), ResizeStatus::kBadSourceRoi);  // outside
  EXPECT_EQ(run(ok, Roi{0, 2, 31, 33}), ResizeStatus::kBadDestinationRoi);
  EXPECT_EQ(run(ok, ok, 5), ResizeStatus::kBadInterpolation);
  Nv12View bad = dst.view();
  bad.height_stride = 31;
  EXPECT_EQ(resize_nv12(src.view(), ok, bad, ok, Interpolation::kBilinear),
            ResizeStatus::kBadDestination);
  EXPECT_EQ(resize_nv12(Nv12ConstView(), ok, dst.view(), ok, Interpolation::kBilinear),
            ResizeStatus::kBadSource);
  EXPECT_EQ(full_roi(333, 211).right, 331u);
  EXPECT_EQ(full_roi(333, 211).bottom, 209u);
}

}  // namespace
}  // namespace acl_sim::imaging
