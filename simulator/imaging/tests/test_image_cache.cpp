#include <gtest/gtest.h>
#include <turbojpeg.h>

#include <atomic>
#include <stdexcept>
#include <thread>

#include "acl_sim/imaging/image_cache.h"
#include "test_util.h"

namespace acl_sim::imaging {
namespace {

CachedImagePtr image_of(uint32_t w, uint32_t h) {
  auto out = std::make_shared<CachedImage>();
  out->image = Nv12Image(w, h, w, h);
  return out;
}

CacheKey key(uint64_t k) {
  CacheKey out;
  out.words[0] = k;
  return out;
}

TEST(ImageCache, MakesOncePerKeyAcrossThreads) {
  ImageCache cache(1 << 20);
  std::atomic<int> made{0};
  std::vector<CachedImagePtr> got(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      got[t] = cache.get_or_make(key(1), [&] {
        ++made;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return image_of(16, 16);
      });
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(made.load(), 1);
  for (const auto& p : got) EXPECT_EQ(p, got[0]);
  const CacheStats s = cache.stats();
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits, 3u);
  EXPECT_EQ(s.entries, 1u);
  EXPECT_EQ(s.bytes, 16u * 16 * 3 / 2);
}

TEST(ImageCache, EvictsLeastRecentlyUsedWithinTheBudget) {
  const size_t one = 64 * 64 * 3 / 2;
  ImageCache cache(2 * one);
  const CachedImagePtr a = cache.get_or_make(key(1), [] { return image_of(64, 64); });
  cache.get_or_make(key(2), [] { return image_of(64, 64); });
  cache.get_or_make(key(1), [] { return image_of(64, 64); });  // 1 is now most recent
  cache.get_or_make(key(3), [] { return image_of(64, 64); });  // evicts 2
  CacheStats s = cache.stats();
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.bytes, 2 * one);
  int made = 0;
  cache.get_or_make(key(2), [&] {
    ++made;
    return image_of(64, 64);
  });
  EXPECT_EQ(made, 1);
  EXPECT_EQ(a->image.bytes.size(), one);  // holders keep evicted values alive
  cache.clear();
  EXPECT_EQ(cache.stats().entries, 0u);
}

TEST(ImageCache, ExceptionsAreNotCached) {
  ImageCache cache(1 << 20);
  EXPECT_THROW(cache.get_or_make(key(5), []() -> CachedImagePtr { throw std::runtime_error("x"); }),
               std::runtime_error);
  int made = 0;
  cache.get_or_make(key(5), [&] {
    ++made;
    return image_of(8, 8);
  });
  EXPECT_EQ(made, 1);
}

TEST(DecodeCache, SharesOneDecodePerContentAndGeometry) {
  DecodeCache cache(64 << 20);
  const std::vector<uint8_t> jpeg = test::make_jpeg(200, 100, TJSAMP_420);
  const DecodeResult a = cache.decode(jpeg.data(), jpeg.size(), 256, 112);
  ASSERT_EQ(a.status, DecodeStatus::kOk);
  const std::vector<uint8_t> copy = jpeg;  // same bytes elsewhere: same entry
  const DecodeResult b = cache.decode(copy.data(), copy.size(), 256, 112);
  EXPECT_EQ(a.image, b.image);
  EXPECT_EQ(a.content_hash, b.content_hash);
  const DecodeResult c = cache.decode(jpeg.data(), jpeg.size(), 384, 112);
  EXPECT_NE(a.image, c.image);
  EXPECT_EQ(a.image->width, 200u);
  EXPECT_EQ(a.image->width_stride, 256u);
  std::vector<uint8_t> direct(256 * 112 * 3 / 2);
  ASSERT_EQ(decode_jpeg_nv12(jpeg.data(), jpeg.size(), direct.data(), direct.size(), 256, 112),
            DecodeStatus::kOk);
  EXPECT_EQ(a.image->bytes, direct);
  const std::vector<uint8_t> junk(100, 1);
  const DecodeResult bad = cache.decode(junk.data(), junk.size(), 256, 112);
  EXPECT_EQ(bad.status, DecodeStatus::kInvalidStream);
  EXPECT_EQ(bad.image, nullptr);
  cache.decode(junk.data(), junk.size(), 256, 112);
  const CacheStats s = cache.stats();
  EXPECT_EQ(s.misses, 3u);
  EXPECT_EQ(s.hits, 2u);  // failures are cached too
}

TEST(DecodeCache, ConcurrentUseUnderEvictionPressure) {
  std::vector<std::vector<uint8_t>> jpegs, want;
  for (int i = 0; i < 3; ++i) {
    jpegs.push_back(test::make_jpeg(96 + 32 * i, 64, TJSAMP_420));
    want.emplace_back(256 * 64 * 3 / 2);
    ASSERT_EQ(
        decode_jpeg_nv12(jpegs[i].data(), jpegs[i].size(), want[i].data(), want[i].size(), 256, 64),
        DecodeStatus::kOk);
  }
  DecodeCache cache(2 * want[0].size());  // room for two of the three
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 60; ++k) {
        const int i = (k * 7 + t) % 3;
        const DecodeResult r = cache.decode(jpegs[i].data(), jpegs[i].size(), 256, 64);
        if (r.status != DecodeStatus::kOk || r.image->bytes != want[i]) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  const CacheStats s = cache.stats();
  EXPECT_EQ(s.hits + s.misses, 240u);
  EXPECT_LE(s.entries, 2u);
}

TEST(ResizeCache, PastesTheCachedPatch) {
  ResizeCache cache(16 << 20);
  const Nv12Image src = test::make_nv12(320, 240, 320, 240, 4);
  Nv12Image canvas = test::make_nv12(224, 224, 224, 224, 9, 0x33);
  Nv12Image expect = canvas;
  const Roi crop{0, 0, 319, 239}, paste{16, 32, 207, 175};
  ASSERT_EQ(resize_nv12(src.view(), crop, expect.view(), paste, Interpolation::kBilinear),
            ResizeStatus::kOk);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(
        cache.resize_into(7, src.view(), crop, canvas.view(), paste, Interpolation::kBilinear),
        ResizeStatus::kOk);
  }
  EXPECT_EQ(canvas.bytes, expect.bytes);
  EXPECT_EQ(cache.stats().misses, 1u);
  EXPECT_EQ(cache.stats().hits, 1u);
  EXPECT_EQ(cache.resize_into(7, src.view(), Roi{1, 0, 319, 239}, canvas.view(), paste,
                              Interpolation::kBilinear),
            ResizeStatus::kBadSourceRoi);
  EXPECT_EQ(cache.resize(7, src.view(), crop, 31, 32, Interpolation::kBilinear).status,
            ResizeStatus::kBadDestinationRoi);
}

}  // namespace
}  // namespace acl_sim::imaging
