// Limits, caches and content tags of the simulated DVPP (dvpp_content.h).
#include "dvpp/dvpp_content.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "acl_sim/imaging/content_hash.h"
#include "core/clock.h"
#include "core/profile.h"

namespace sim::dvpp {
namespace {

namespace img = acl_sim::imaging;

struct LimitsCache {
  std::mutex mu;
  unsigned generation = ~0u;
  bool ok = false;
  Limits limits;
  std::string error;
};

LimitsCache& limits_cache() {
  static LimitsCache c;
  return c;
}

struct Tag {
  size_t bytes;
  uint64_t id;
  uint64_t fingerprint;
};

struct Tags {
  std::mutex mu;
  std::map<uintptr_t, Tag> by_start;
};

Tags& tags() {
  static Tags t;
  return t;
}

// ash64 of 32 slices of up to 32 bytes spread evenly over the range.
uint64_t fingerprint(const void* data, size_t bytes) {
  const auto* p = static_cast<const uint8_t*>(data);
  constexpr size_t kSlices = 32, kSlice = 32;
  uint64_t h = img::hash_combine(0, bytes);
  for (size_t i = 0; i < kSlices; ++i) {
    size_t at = bytes <= kSlice ? 0 : (bytes - kSlice) * i / (kSlices - 1);
    h = img::hash64(p + at, std::min(kSlice, bytes - at), h);
  }
  return h;
}

void erase_overlapping_locked(Tags& t, uintptr_t begin, uintptr_t end) {
  auto it = t.by_start.lower_bound(begin);
  if (it != t.by_start.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second.bytes > begin) it = prev;
  }
  while (it != t.by_start.end() && it->first < end) it = t.by_start.erase(it);
}

std::atomic<uint64_t> g_decodes{0}, g_decode_misses{0}, g_resizes{0}, g_resize_direct{0};

}  // namespace

bool current_limits(Limits* out, const char** error) {
  LimitsCache& c = limits_cache();
  std::lock_guard<std::mutex> lock(c.mu);
  unsigned gen = model_clock().generation();
  if (gen != c.generation) {
    const Profile& p = profile();
    FlatLookup num = [&p](const std::string& key) -> std::optional<double> {
      if (!p.has(key)) return std::nullopt;
      return p.num(key);
    };
    FlatStrLookup str = [&p](const std::string& key) -> std::optional<std::string> {
      if (!p.has(key)) return std::nullopt;
      return p.str(key);
    };
    c.limits = Limits{};
    c.error.clear();
    c.ok = limits_from_profile(num, str, &c.limits, &c.error);
    c.generation = gen;
  }
  *out = c.limits;
  if (error != nullptr) *error = c.error.c_str();
  return c.ok;
}

img::JpegdLimits jpegd_limits(const Limits& lim) {
  img::JpegdLimits j;
  j.min_width = lim.jpegd_in.min_width;
  j.min_height = lim.jpegd_in.min_height;
  j.max_width = lim.jpegd_in.max_width;
  j.max_height = lim.jpegd_in.max_height;
  return j;
}

img::DecodeCache& decode_cache() {
  static img::DecodeCache c;
  return c;
}

img::ResizeCache& resize_cache() {
  static img::ResizeCache c;
  return c;
}

void tag_set(const void* data, size_t bytes, uint64_t id) {
  if (data == nullptr || bytes == 0) return;
  uint64_t fp = fingerprint(data, bytes);
  Tags& t = tags();
  auto begin = reinterpret_cast<uintptr_t>(data);
  std::lock_guard<std::mutex> lock(t.mu);
  erase_overlapping_locked(t, begin, begin + bytes);
  t.by_start.emplace(begin, Tag{bytes, id, fp});
}

bool tag_get(const void* data, size_t bytes, uint64_t* id) {
  if (data == nullptr || bytes == 0) return false;
  Tags& t = tags();
  Tag tag{};
  {
    std::lock_guard<std::mutex> lock(t.mu);
    auto it = t.by_start.find(reinterpret_cast<uintptr_t>(data));
    if (it == t.by_start.end() || it->second.bytes != bytes) return false;
    tag = it->second;
  }
  if (fingerprint(data, bytes) != tag.fingerprint) return false;
  *id = tag.id;
  return true;
}

void tag_clear(const void* data, size_t bytes) {
  if (data == nullptr) return;
  Tags& t = tags();
  auto begin = reinterpret_cast<uintptr_t>(data);
  std::lock_guard<std::mutex> lock(t.mu);
  erase_overlapping_locked(t, begin, begin + std::max<size_t>(bytes, 1));
}

WorkStats work_stats() {
  return WorkStats{g_decodes.load(), g_decode_misses.load(), g_resizes.load(),
                   g_resize_direct.load()};
}

void count_decode(bool miss) {
  ++g_decodes;
  if (miss) ++g_decode_misses;
}

void count_resize(bool direct) {
  ++g_resizes;
  if (direct) ++g_resize_direct;
}

}  // namespace sim::dvpp
