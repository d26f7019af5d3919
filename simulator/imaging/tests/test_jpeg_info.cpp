#include <gtest/gtest.h>
#include <turbojpeg.h>

#include <random>

#include "acl_sim/imaging/jpeg_info.h"
#include "test_util.h"

namespace acl_sim::imaging {
namespace {

JpegInfo parse(const std::vector<uint8_t>& v) {
  return parse_jpeg_info(v.data(), v.size());
}

TEST(JpegInfo, BaselineColour) {
  const JpegInfo info = parse(test::make_jpeg(64, 48, TJSAMP_420));
  ASSERT_TRUE(info.valid) << info.error;
  EXPECT_EQ(info.width, 64u);
  EXPECT_EQ(info.height, 48u);
  EXPECT_EQ(info.components, 3u);
  EXPECT_EQ(info.precision, 8u);
  EXPECT_EQ(info.subsampling, Subsampling::k420);
  EXPECT_EQ(info.coding, JpegCoding::kBaseline);
  EXPECT_EQ(info.sof_marker, 0xC0u);
  EXPECT_EQ(info.num_scans, 1u);
  EXPECT_TRUE(info.interleaved);
  EXPECT_TRUE(info.has_eoi);
  const JpegdVerdict v = jpegd_accepts(info, JpegdLimits{});
  EXPECT_TRUE(v.accepted());
  EXPECT_FALSE(v.software_fallback);
}

TEST(JpegInfo, Subsamplings) {
  const struct {
    int tj;
    Subsampling want;
    bool accepted;
  } cases[] = {{TJSAMP_444, Subsampling::k444, true}, {TJSAMP_422, Subsampling::k422, true},
               {TJSAMP_420, Subsampling::k420, true}, {TJSAMP_GRAY, Subsampling::kGray, true},
               {TJSAMP_440, Subsampling::k440, true}, {TJSAMP_411, Subsampling::k411, false}};
  for (const auto& c : cases) {
    const JpegInfo info = parse(test::make_jpeg(96, 64, c.tj));
    ASSERT_TRUE(info.valid) << c.tj;
    EXPECT_EQ(info.subsampling, c.want) << c.tj;
    EXPECT_EQ(info.components, c.tj == TJSAMP_GRAY ? 1u : 3u);
    const JpegdVerdict v = jpegd_accepts(info, JpegdLimits{});
    EXPECT_EQ(v.accepted(), c.accepted) << c.tj;
    if (!c.accepted) {
      EXPECT_EQ(v.reject, JpegdReject::kSubsampling);
    }
  }
  // The ACL enum values (acldvppJpegFormat).
  EXPECT_EQ(static_cast<int>(Subsampling::kGray), 3);
  EXPECT_EQ(static_cast<int>(Subsampling::kOther), 1000);
}

TEST(JpegInfo, ProgressiveIsRejected) {
  const JpegInfo info = parse(test::make_jpeg(64, 64, TJSAMP_420, TJFLAG_PROGRESSIVE));
  ASSERT_TRUE(info.valid);
  EXPECT_EQ(info.coding, JpegCoding::kProgressiveHuffman);
  EXPECT_GT(info.num_scans, 1u);
  EXPECT_EQ(jpegd_accepts(info, JpegdLimits{}).reject, JpegdReject::kProgressive);
}

TEST(JpegInfo, CodingProcessesFromSofMarker) {
  const struct {
    uint8_t sof;
    JpegCoding coding;
    JpegdReject reject;
  } cases[] = {
      {0xC1, JpegCoding::kExtendedHuffman, JpegdReject::kNone},
      {0xC3, JpegCoding::kLosslessHuffman, JpegdReject::kLossless},
      {0xC5, JpegCoding::kHierarchicalHuffman, JpegdReject::kHierarchical},
      {0xC9, JpegCoding::kExtendedArithmetic, JpegdReject::kArithmetic},
      {0xCA, JpegCoding::kProgressiveArithmetic, JpegdReject::kArithmetic},
      {0xCB, JpegCoding::kLosslessArithmetic, JpegdReject::kLossless},
      {0xCD, JpegCoding::kHierarchicalArithmetic, JpegdReject::kHierarchical},
  };
  for (const auto& c : cases) {
    const JpegInfo info = parse(test::make_header_only(640, 480, c.sof));
    ASSERT_TRUE(info.valid) << std::hex << int(c.sof);
    EXPECT_EQ(info.coding, c.coding);
    EXPECT_EQ(jpegd_accepts(info, JpegdLimits{}).reject, c.reject);
  }
  EXPECT_EQ(jpegd_accepts(parse(test::make_header_only(640, 480, 0xC0, 12)), JpegdLimits{}).reject,
            JpegdReject::kPrecision);
}

TEST(JpegInfo, SizeLimits) {
  const JpegdLimits l310;
  auto reject = [&](uint32_t w, uint32_t h) {
    return jpegd_accepts(parse(test::make_header_only(w, h)), l310).reject;
  };
  EXPECT_EQ(reject(32, 32), JpegdReject::kNone);
  EXPECT_EQ(reject(8192, 8192), JpegdReject::kNone);
  EXPECT_EQ(reject(8193, 8192), JpegdReject::kTooLarge);
  EXPECT_EQ(reject(8192, 8193), JpegdReject::kTooLarge);
  EXPECT_EQ(reject(31, 100), JpegdReject::kTooSmall);
  EXPECT_EQ(reject(100, 31), JpegdReject::kTooSmall);
  EXPECT_EQ(jpegd_accepts(parse(test::make_jpeg(16, 16, TJSAMP_420)), l310).reject,
            JpegdReject::kTooSmall);
  JpegdLimits l310b;
  l310b.max_width = l310b.max_height = 16384;
  EXPECT_TRUE(jpegd_accepts(parse(test::make_header_only(8193, 8193)), l310b).accepted());
}

TEST(JpegInfo, NonInterleavedScansUseTheSoftwareFallback) {
  JpegInfo info = parse(test::make_jpeg(64, 64, TJSAMP_420));
  info.interleaved = false;
  info.num_scans = 3;
  const JpegdVerdict v = jpegd_accepts(info, JpegdLimits{});
  EXPECT_TRUE(v.accepted());
  EXPECT_TRUE(v.software_fallback);
}

TEST(JpegInfo, MalformedStreams) {
  EXPECT_FALSE(parse({}).valid);
  EXPECT_FALSE(parse({0x89, 'P', 'N', 'G', 0, 0}).valid);
  EXPECT_STREQ(parse({1, 2, 3, 4}).error, "no SOI marker");
  const std::vector<uint8_t> good = test::make_jpeg(64, 48, TJSAMP_420);

  // Cut inside the entropy data: still parsable, but no EOI.
  std::vector<uint8_t> cut(good.begin(), good.end() - good.size() / 4);
  JpegInfo info = parse(cut);
  EXPECT_TRUE(info.valid);
  EXPECT_FALSE(info.has_eoi);

  // Cut inside the headers.
  const size_t sof = test::find_marker(good, 0xC0);
  ASSERT_GT(sof, 0u);
  info = parse(std::vector<uint8_t>(good.begin(), good.begin() + sof + 4));
  EXPECT_FALSE(info.valid);

  // A segment length running past the end.
  std::vector<uint8_t> overrun = good;
  overrun[sof] = 0xFF;
  EXPECT_FALSE(parse(overrun).valid);

  // SOF height 0 (DNL) and no SOS.
  EXPECT_FALSE(parse(test::make_header_only(64, 0)).valid);
  std::vector<uint8_t> no_sos = test::make_header_only(64, 64);
  no_sos.resize(21);
  no_sos.insert(no_sos.end(), {0xFF, 0xD9});
  EXPECT_STREQ(parse(no_sos).error, "no SOS marker");
}

TEST(JpegInfo, RandomCorruptionNeverReadsOutOfBounds) {
  const std::vector<uint8_t> good = test::make_jpeg(48, 40, TJSAMP_422);
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint8_t> bad(good.begin(), good.begin() + rng() % (good.size() + 1));
    for (int k = 0; k < 4 && !bad.empty(); ++k) bad[rng() % bad.size()] = uint8_t(rng());
    const JpegInfo info = parse(bad);  // ASan/valgrind runs catch any overread
    if (info.valid) {
      EXPECT_GT(info.width, 0u);
    }
  }
}

TEST(JpegInfo, Names) {
  EXPECT_STREQ(to_string(JpegdReject::kProgressive), "progressive JPEG");
  EXPECT_STREQ(to_string(Subsampling::kGray), "400");
  EXPECT_STREQ(to_string(JpegCoding::kBaseline), "baseline");
}

}  // namespace
}  // namespace acl_sim::imaging
