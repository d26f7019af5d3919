// Content-keyed decoding of a VDEC channel's stream (vdec_stream.h).
#include "vdec/vdec_stream.h"

#include <algorithm>
#include <cstdlib>
#include <list>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "acl_sim/imaging/content_hash.h"

namespace img = acl_sim::imaging;

namespace sim::vdec {
namespace {

constexpr uint64_t kIdrSeed = 0x5644454349445231ull;  // "VDECIDR1"
constexpr uint64_t kFlushMark = 0x464c555348ull;      // "FLUSH"

struct Entry {
  std::vector<img::PictureRef> pictures;
  bool ok = true;
  std::string why;
  uint32_t width = 0, height = 0;
  size_t bytes = 0;
  std::list<uint64_t>::iterator age;
};

class Cache {
 public:
  bool find(uint64_t key, Emission* out) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    if (it == map_.end()) {
      ++stats_.misses;
      return false;
    }
    ++stats_.hits;
    order_.splice(order_.end(), order_, it->second.age);
    const Entry& e = it->second;
    out->pictures = e.pictures;
    out->ok = e.ok;
    out->why = e.why;
    out->width = e.width;
    out->height = e.height;
    return true;
  }
  void put(uint64_t key, const Emission& em) {
    std::lock_guard<std::mutex> lock(mu_);
    if (map_.count(key) != 0) return;
    Entry e{em.pictures, em.ok, em.why, em.width, em.height, 0, {}};
    for (const auto& p : em.pictures) e.bytes += p->nv12.size();
    e.age = order_.insert(order_.end(), key);
    stats_.bytes += e.bytes;
    map_.emplace(key, std::move(e));
    while (stats_.bytes > budget() && order_.size() > 1) {
      auto old = map_.find(order_.front());
      stats_.bytes -= old->second.bytes;
      map_.erase(old);
      order_.pop_front();
    }
  }
  void replayed() {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.replays;
  }
  CacheStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

 private:
  static size_t budget() {
    static const size_t bytes = [] {
      const char* env = std::getenv("ACL_SIM_VDEC_CACHE_MB");
      long mb = env != nullptr ? std::strtol(env, nullptr, 10) : 0;
      return static_cast<size_t>(mb > 0 ? mb : 512) << 20;
    }();
    return bytes;
  }
  std::mutex mu_;
  std::unordered_map<uint64_t, Entry> map_;
  std::list<uint64_t> order_;  // oldest use first
  CacheStats stats_;
};

Cache& cache() {
  static Cache* c = new Cache;  // outlives every channel (no destruction order at exit)
  return *c;
}

}  // namespace

StreamState::~StreamState() = default;

bool StreamState::in_step(uint64_t prev) {
  if (!decoder_) decoder_ = std::make_unique<img::VideoDecoder>(codec_);
  if (decoder_key_ == prev && prev != 0) return true;
  decoder_->reset();
  decoder_key_ = 0;
  // The parameter sets in force at the last IDR, which may not carry them: a fresh decoder has
  // seen none, and libavcodec's drain at an IDR (drain_before_restart) forgets them too.
  std::vector<img::PictureRef> discard;
  std::string why;
  for (const auto& set : sets_before_idr_) decoder_->feed(set.data(), set.size(), &discard, &why);
  if (prev == 0) return true;
  // Replay the units since the last IDR (all but the current one, which is not stored yet).
  cache().replayed();
  for (const auto& unit : since_idr_) decoder_->feed(unit.data(), unit.size(), &discard, &why);
  decoder_key_ = prev;
  return true;
}

Emission StreamState::drain_before_restart() {
  Emission em;
  if (key_ == 0) return em;  // nothing held at a stream's start
  em.key = img::hash_combine(key_, kFlushMark);
  em.width = width_;
  em.height = height_;
  if (cache().find(em.key, &em)) return em;
  in_step(key_);
  em.ok = decoder_->flush(&em.pictures, &em.why);
  em.decoded = true;
  decoder_key_ = 0;  // flush() restarted it
  em.width = width_;
  em.height = height_;
  cache().put(em.key, em);
  return em;
}

Emission StreamState::next(const uint8_t* data, size_t size) {
  const uint64_t content = img::hash64(data, size);
  const bool idr = img::is_random_access(codec_, data, size);
  Emission held;
  if (idr) {
    held = drain_before_restart();
    key_ = 0;
    since_idr_.clear();
    sets_before_idr_ = parameter_sets_;
  }
  const uint64_t prev = key_;
  Emission em;
  em.key = img::hash_combine(prev == 0 ? kIdrSeed : prev, content);
  if (!cache().find(em.key, &em)) {
    in_step(prev);
    em.ok = decoder_->feed(data, size, &em.pictures, &em.why);
    em.width = decoder_->width();
    em.height = decoder_->height();
    em.decoded = true;
    decoder_key_ = em.key;
    cache().put(em.key, em);
  }
  key_ = em.key;
  since_idr_.emplace_back(data, data + size);
  learn_parameter_sets(data, size);
  if (em.width != 0) {
    width_ = em.width;
    height_ = em.height;
  }
  if (!held.pictures.empty()) {
    held.pictures.insert(held.pictures.end(), em.pictures.begin(), em.pictures.end());
    em.pictures = std::move(held.pictures);
  }
  em.decoded = em.decoded || held.decoded;
  return em;
}

Emission StreamState::finish() {
  Emission em = drain_before_restart();
  key_ = 0;
  since_idr_.clear();
  return em;
}

void StreamState::learn_parameter_sets(const uint8_t* data, size_t size) {
  constexpr size_t kMostSets = 32;  // a stream changing them for ever keeps its latest
  for (auto& set : img::parameter_sets(codec_, data, size)) {
    auto same = std::find(parameter_sets_.begin(), parameter_sets_.end(), set);
    if (same != parameter_sets_.end()) parameter_sets_.erase(same);
    parameter_sets_.push_back(std::move(set));
    if (parameter_sets_.size() > kMostSets) parameter_sets_.erase(parameter_sets_.begin());
  }
}

CacheStats cache_stats() {
  return cache().stats();
}

}  // namespace sim::vdec
