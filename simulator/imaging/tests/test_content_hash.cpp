#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "acl_sim/imaging/content_hash.h"

namespace acl_sim::imaging {
namespace {

std::vector<uint8_t> counting(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 31 + 7);
  return v;
}

TEST(ContentHash, FrozenValues) {
  // Also checked against tests/simulator/imaging_ref.py; changing them changes
  // every simulated model output.
  EXPECT_EQ(hash64(nullptr, 0), 0x743719905ae6a46cull);
  EXPECT_EQ(hash64("abc", 3), 0xd828fb70acef143full);
  const std::vector<uint8_t> v = counting(1000);
  EXPECT_EQ(hash64(v.data(), v.size()), 0x6c00338b216f9313ull);
  EXPECT_EQ(hash64(v.data(), v.size(), 42), 0xf66c4de6f6cfb59cull);
}

TEST(ContentHash, EveryLengthAndBitMatters) {
  const std::vector<uint8_t> v = counting(200);
  std::set<uint64_t> seen;
  for (size_t n = 0; n <= v.size(); ++n) seen.insert(hash64(v.data(), n));
  EXPECT_EQ(seen.size(), v.size() + 1);
  const std::vector<uint8_t> zeros(64, 0);
  std::set<uint64_t> z;
  for (size_t n = 0; n <= zeros.size(); ++n) z.insert(hash64(zeros.data(), n));
  EXPECT_EQ(z.size(), zeros.size() + 1);  // zero padding of the tail is length-safe
  std::vector<uint8_t> w = counting(77);
  const uint64_t base = hash64(w.data(), w.size());
  for (size_t bit = 0; bit < w.size() * 8; ++bit) {
    w[bit / 8] ^= uint8_t(1u << (bit % 8));
    ASSERT_NE(hash64(w.data(), w.size()), base) << bit;
    w[bit / 8] ^= uint8_t(1u << (bit % 8));
  }
  EXPECT_NE(hash64(w.data(), w.size(), 1), base);
}

TEST(ContentHash, CombineIsSeededHashOfTheWord) {
  const uint64_t x = 0x0102030405060708ull;
  const uint8_t le[8] = {8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_EQ(hash_combine(99, x), hash64(le, 8, 99));
}

}  // namespace
}  // namespace acl_sim::imaging
