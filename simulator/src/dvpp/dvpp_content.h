// Shared state of the simulated DVPP engines (dvpp_api.cpp, dvpp_vpc.cpp):
// the device limits read from the profile, the pixel caches, and the content
// tags that keep pixel work off the per-frame path (DESIGN.md, CPU budget).
//
// Content tags: when a JPEGD (or whole-picture VPC) task writes a picture it
// records, for the written byte range, an identity of what it wrote (the JPEG's
// ash64 combined with the output geometry) and a fingerprint of ~1 KiB of the
// written bytes sampled across the range. A later VPC task whose source is that
// exact range and whose fingerprint still matches uses the identity as its
// resize-cache key, so a repeated frame costs a lookup and a paste instead of a
// resample. A missing or stale tag (the range was overwritten by a copy, or
// freed) costs nothing but a direct resample, never a wrong answer unless an
// overwrite left all ~1 KiB of sampled bytes unchanged. JPEGD also skips its
// copy into a destination whose tag says it already holds that very frame (a
// ring of slots fed the same input), so a repeated input costs a hash and a
// fingerprint. Tags are set and read only by task `work`, i.e. in device
// completion order (and cleared by acldvppFree).
#ifndef ACL_SIM_SRC_DVPP_CONTENT_H_
#define ACL_SIM_SRC_DVPP_CONTENT_H_

#include <cstddef>
#include <cstdint>

#include "acl_sim/imaging/image_cache.h"
#include "acl_sim/imaging/jpeg_info.h"
#include "dvpp/dvpp_desc.h"

namespace sim::dvpp {

// The device's limits from the current profile (re-read after every aclInit).
// Returns false and sets *error when a key is missing.
bool current_limits(Limits* out, const char** error);
// JPEGD input rules in the imaging library's terms.
acl_sim::imaging::JpegdLimits jpegd_limits(const Limits& lim);

acl_sim::imaging::DecodeCache& decode_cache();
acl_sim::imaging::ResizeCache& resize_cache();

// Content tags (see above).
void tag_set(const void* data, size_t bytes, uint64_t id);
bool tag_get(const void* data, size_t bytes, uint64_t* id);
void tag_clear(const void* data, size_t bytes);  // every tag overlapping the range

// Pixel-work counters (for the CPU figures of the calibration report).
struct WorkStats {
  uint64_t decodes = 0;        // JPEGD tasks completed
  uint64_t decode_misses = 0;  // of which really decoded (cache miss)
  uint64_t resizes = 0;        // VPC ROIs completed
  uint64_t resize_direct = 0;  // of which resampled without the cache (no tag)
};
WorkStats work_stats();
void count_decode(bool miss);
void count_resize(bool direct);

}  // namespace sim::dvpp

#endif  // ACL_SIM_SRC_DVPP_CONTENT_H_
