#include "acl_sim/imaging/content_hash.h"

#include <cstring>

namespace acl_sim::imaging {
namespace {

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kP3 = 0x165667B19E3779F9ull;
constexpr uint64_t kP4 = 0x85EBCA77C2B2AE63ull;

constexpr uint64_t rotl(uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}
constexpr uint64_t mix(uint64_t acc, uint64_t w) {
  return rotl(acc + w * kP2, 31) * kP1;
}

uint64_t load_le64(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  return w;
}

}  // namespace

uint64_t hash64(const void* data, size_t size, uint64_t seed) {
  const auto* p = static_cast<const uint8_t*>(data);
  const uint8_t* const end = p + size;
  uint64_t v[4];
  for (int i = 0; i < 4; ++i) v[i] = seed ^ (kP1 * static_cast<uint64_t>(i + 1));
  for (; end - p >= 32; p += 32) {
    v[0] = mix(v[0], load_le64(p));
    v[1] = mix(v[1], load_le64(p + 8));
    v[2] = mix(v[2], load_le64(p + 16));
    v[3] = mix(v[3], load_le64(p + 24));
  }
  uint64_t h = rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18);
  h ^= static_cast<uint64_t>(size) * kP3;
  for (; end - p >= 8; p += 8) h = rotl(h ^ mix(0, load_le64(p)), 27) * kP1 + kP4;
  if (p < end) {
    uint8_t tail[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::memcpy(tail, p, static_cast<size_t>(end - p));
    h = rotl(h ^ mix(0, load_le64(tail)), 27) * kP1 + kP4;
  }
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}

uint64_t hash_combine(uint64_t h, uint64_t value) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(value >> (8 * i));
  return hash64(bytes, sizeof bytes, h);
}

}  // namespace acl_sim::imaging
