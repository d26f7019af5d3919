#include "acl_sim/imaging/image_cache.h"

#include <future>
#include <utility>

#include "acl_sim/imaging/content_hash.h"

namespace acl_sim::imaging {

struct ImageCache::Entry {
  std::shared_future<CachedImagePtr> value;
  bool ready = false;
  size_t bytes = 0;
  std::list<CacheKey>::iterator lru;
};

size_t ImageCache::KeyHash::operator()(const CacheKey& k) const {
  uint64_t h = 0;
  for (uint64_t w : k.words) h = hash_combine(h, w);
  return static_cast<size_t>(h);
}

CachedImagePtr ImageCache::get_or_make(const CacheKey& key,
                                       const std::function<CachedImagePtr()>& make) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = map_.find(key);
  if (it != map_.end()) {
    ++stats_.hits;
    std::shared_ptr<Entry> entry = it->second;
    if (entry->ready) {
      lru_.splice(lru_.begin(), lru_, entry->lru);
      return entry->value.get();
    }
    lock.unlock();
    return entry->value.get();  // computed by another thread: wait for it
  }
  ++stats_.misses;
  std::promise<CachedImagePtr> promise;
  auto entry = std::make_shared<Entry>();
  entry->value = promise.get_future().share();
  map_.emplace(key, entry);
  lock.unlock();

  CachedImagePtr value;
  try {
    value = make();
  } catch (...) {
    lock.lock();
    map_.erase(key);
    promise.set_exception(std::current_exception());
    throw;
  }
  promise.set_value(value);
  lock.lock();
  entry->ready = true;
  entry->bytes = value ? value->image.bytes.size() : 0;
  if (map_.count(key) != 0) {
    lru_.push_front(key);
    entry->lru = lru_.begin();
    stats_.bytes += entry->bytes;
    ++stats_.entries;
    evict_locked();
  }
  return value;
}

void ImageCache::evict_locked() {
  // Keep at least the most recent entry, even when it alone exceeds the budget.
  while (stats_.bytes > capacity_ && lru_.size() > 1) {
    auto it = map_.find(lru_.back());
    stats_.bytes -= it->second->bytes;
    --stats_.entries;
    ++stats_.evictions;
    map_.erase(it);
    lru_.pop_back();
  }
}

CacheStats ImageCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void ImageCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const CacheKey& key : lru_) map_.erase(key);
  lru_.clear();
  stats_.bytes = 0;
  stats_.entries = 0;
}

DecodeResult DecodeCache::decode(const uint8_t* data, size_t size, uint32_t ws, uint32_t hs) {
  return decode(hash64(data, size), data, size, ws, hs);
}

DecodeResult DecodeCache::decode(uint64_t content_hash, const uint8_t* data, size_t size,
                                 uint32_t ws, uint32_t hs) {
  CacheKey key;
  key.words = {1, content_hash, size, ws, hs, 0, 0, 0};
  CachedImagePtr cached = cache_.get_or_make(key, [&] {
    auto out = std::make_shared<CachedImage>();
    const JpegInfo info = parse_jpeg_info(data, size);
    const DecodeGeometry g = decode_geometry(info, DecodeAlign{1, 1});
    out->image = Nv12Image(g.width, g.height, ws, hs);
    const DecodeStatus status =
        decode_jpeg_nv12(data, size, out->image.bytes.data(), out->image.bytes.size(), ws, hs);
    out->status = static_cast<uint8_t>(status);
    if (status != DecodeStatus::kOk) out->image = Nv12Image();
    return CachedImagePtr(std::move(out));
  });
  DecodeResult result;
  result.status = static_cast<DecodeStatus>(cached->status);
  result.content_hash = content_hash;
  if (result.status == DecodeStatus::kOk) result.image = {cached, &cached->image};
  return result;
}

ResizeResult ResizeCache::resize(uint64_t source_id, const Nv12ConstView& src, const Roi& src_roi,
                                 uint32_t dst_width, uint32_t dst_height,
                                 Interpolation interpolation) {
  CacheKey key;
  key.words = {2,
               source_id,
               (uint64_t{src.width} << 32) | src.height,
               (uint64_t{src_roi.left} << 32) | src_roi.top,
               (uint64_t{src_roi.right} << 32) | src_roi.bottom,
               (uint64_t{dst_width} << 32) | dst_height,
               static_cast<uint64_t>(interpolation),
               0};
  CachedImagePtr cached = cache_.get_or_make(key, [&] {
    auto out = std::make_shared<CachedImage>();
    out->image = Nv12Image(dst_width, dst_height, dst_width, dst_height);
    const ResizeStatus status = dst_width % 2 || dst_height % 2 || dst_width == 0 || dst_height == 0
                                    ? ResizeStatus::kBadDestinationRoi
                                    : resize_nv12(src, src_roi, out->image.view(),
                                                  full_roi(dst_width, dst_height), interpolation);
    out->status = static_cast<uint8_t>(status);
    if (status != ResizeStatus::kOk) out->image = Nv12Image();
    return CachedImagePtr(std::move(out));
  });
  ResizeResult result;
  result.status = static_cast<ResizeStatus>(cached->status);
  if (result.status == ResizeStatus::kOk) result.patch = {cached, &cached->image};
  return result;
}

ResizeStatus ResizeCache::resize_into(uint64_t source_id, const Nv12ConstView& src,
                                      const Roi& src_roi, const Nv12View& dst, const Roi& dst_roi,
                                      Interpolation interpolation) {
  if (!is_valid_nv12(dst)) return ResizeStatus::kBadDestination;
  if (!is_valid_roi(dst_roi, dst.width, dst.height)) return ResizeStatus::kBadDestinationRoi;
  const ResizeResult r =
      resize(source_id, src, src_roi, dst_roi.width(), dst_roi.height(), interpolation);
  if (r.status != ResizeStatus::kOk) return r.status;
  paste_nv12(r.patch->view(), dst, dst_roi.left, dst_roi.top);
  return ResizeStatus::kOk;
}

}  // namespace acl_sim::imaging
