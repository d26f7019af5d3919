// Content caches that keep the simulator's pixel work off the per-frame path
// (DESIGN.md, "The simulator": the CPU budget). A frame is decoded or resampled
// once per distinct (content, geometry); every later request gets the same
// immutable buffer. All classes are thread-safe; concurrent misses on one key
// compute once while the other callers wait for that result.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "acl_sim/imaging/jpeg_decode.h"
#include "acl_sim/imaging/nv12.h"
#include "acl_sim/imaging/resize.h"

namespace acl_sim::imaging {

// An immutable cached result: the producer's status and, when it succeeded,
// the frame.
struct CachedImage {
  uint8_t status = 0;  // DecodeStatus or ResizeStatus value; 0 = ok
  Nv12Image image;
};
using CachedImagePtr = std::shared_ptr<const CachedImage>;

struct CacheKey {
  std::array<uint64_t, 8> words{};
  bool operator==(const CacheKey& o) const { return words == o.words; }
};

struct CacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t evictions = 0;
  uint64_t entries = 0;
  uint64_t bytes = 0;  // pixel bytes held by completed entries
};

// A byte-budgeted LRU map from CacheKey to CachedImagePtr. Entries still
// referenced by a caller stay alive after eviction (shared ownership).
class ImageCache {
 public:
  explicit ImageCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}
  ImageCache(const ImageCache&) = delete;
  ImageCache& operator=(const ImageCache&) = delete;

  // The cached value for key, or the result of make() (run once, by the first
  // caller; exceptions from it propagate to every waiting caller and nothing is
  // cached).
  CachedImagePtr get_or_make(const CacheKey& key, const std::function<CachedImagePtr()>& make);
  CacheStats stats() const;
  void clear();  // drops completed entries

 private:
  struct KeyHash {
    size_t operator()(const CacheKey& k) const;
  };
  struct Entry;
  void evict_locked();

  const size_t capacity_;
  mutable std::mutex mutex_;
  std::unordered_map<CacheKey, std::shared_ptr<Entry>, KeyHash> map_;
  std::list<CacheKey> lru_;  // completed entries, most recently used first
  CacheStats stats_;
};

struct DecodeResult {
  DecodeStatus status = DecodeStatus::kInvalidStream;
  std::shared_ptr<const Nv12Image> image;  // null unless status == kOk
  uint64_t content_hash = 0;               // hash64 of the JPEG bytes
};

// decode_jpeg_nv12 memoised on (hash64 of the JPEG bytes, byte count, strides).
class DecodeCache {
 public:
  explicit DecodeCache(size_t capacity_bytes = size_t{512} << 20) : cache_(capacity_bytes) {}
  DecodeResult decode(const uint8_t* data, size_t size, uint32_t width_stride,
                      uint32_t height_stride);
  // Same, when the caller already knows hash64(data, size).
  DecodeResult decode(uint64_t content_hash, const uint8_t* data, size_t size,
                      uint32_t width_stride, uint32_t height_stride);
  CacheStats stats() const { return cache_.stats(); }

 private:
  ImageCache cache_;
};

struct ResizeResult {
  ResizeStatus status = ResizeStatus::kBadSource;
  // The resampled dst ROI alone, tightly packed (width_stride = ROI width,
  // height_stride = ROI height); null unless status == kOk.
  std::shared_ptr<const Nv12Image> patch;
};

// resize_nv12 memoised on (source_id, source picture size, both ROI
// geometries, interpolation). source_id must name the source pixels, e.g. the
// DecodeResult::content_hash of the JPEG they were decoded from (combine
// it with the decode strides if several decodes of one JPEG can differ).
class ResizeCache {
 public:
  explicit ResizeCache(size_t capacity_bytes = size_t{128} << 20) : cache_(capacity_bytes) {}
  ResizeResult resize(uint64_t source_id, const Nv12ConstView& src, const Roi& src_roi,
                      uint32_t dst_width, uint32_t dst_height, Interpolation interpolation);
  // resize() onto dst_roi of dst: the cached patch is pasted, nothing else of
  // dst is written (CropAndPaste semantics); dst_roi is validated as resize_nv12 does.
  ResizeStatus resize_into(uint64_t source_id, const Nv12ConstView& src, const Roi& src_roi,
                           const Nv12View& dst, const Roi& dst_roi, Interpolation interpolation);
  CacheStats stats() const { return cache_.stats(); }

 private:
  ImageCache cache_;
};

}  // namespace acl_sim::imaging
