// The pictures a VDEC channel's stream decodes to, decoded once per distinct
// content (DESIGN.md, the simulator's CPU budget).
//
// Each access unit gets a key: the hash of its bytes chained onto the key of the
// unit before it, restarted at every IDR (video_decode.h). Equal keys mean equal
// decoder input since the last IDR, hence equal output: a process-wide cache maps
// key -> the pictures the decoder output for that unit, so N channels playing one
// clip, and every loop of it, decode it once. An IDR first drains what the decoder
// still holds (every picture before an IDR comes out before it), cached under the
// previous key's flush key, then restarts the decoder.
//
// A channel owns a libavcodec decoder, created at its first cache miss. On a miss
// whose previous key is not where that decoder stands (the channel hit the cache
// meanwhile), the decoder restarts and replays the channel's units since its last
// IDR (kept for that), discarding their output, then decodes the unit. A decoder restarted
// (or started late: every unit before was found) is first fed the parameter sets the stream
// carried before that IDR: a stream may carry its SPS and PPS once, at its start, and an IDR
// without them decodes only where they were seen (the device's decoder saw every unit). The cache
// holds at most ACL_SIM_VDEC_CACHE_MB (default 512) MiB of pictures, oldest out.
#ifndef ACL_SIM_SRC_VDEC_STREAM_H_
#define ACL_SIM_SRC_VDEC_STREAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "acl_sim/imaging/video_decode.h"

namespace sim::vdec {

// What one access unit (or the end of the stream) yields.
struct Emission {
  uint64_t key = 0;  // identity of the pictures (with their index)
  std::vector<acl_sim::imaging::PictureRef> pictures;  // display order
  bool ok = true;
  std::string why;                 // decode error
  uint32_t width = 0, height = 0;  // coded size of the stream as parsed so far
  bool decoded = false;            // pixel work was done (a cache miss)
};

class StreamState {
 public:
  explicit StreamState(acl_sim::imaging::VideoCodec codec) : codec_(codec) {}
  ~StreamState();
  // One access unit.
  Emission next(const uint8_t* data, size_t size);
  // End of stream: every picture still held. The next unit starts a new stream.
  Emission finish();

 private:
  Emission drain_before_restart();
  bool in_step(uint64_t prev);
  acl_sim::imaging::VideoCodec codec_;
  std::unique_ptr<acl_sim::imaging::VideoDecoder> decoder_;
  uint64_t key_ = 0;          // key of the last unit (0: stream start)
  uint64_t decoder_key_ = 0;  // where the decoder stands (0: fresh)
  void learn_parameter_sets(const uint8_t* data, size_t size);
  std::vector<std::vector<uint8_t>> since_idr_;
  // Parameter-set units seen so far (distinct, the last seen last), and as they were before
  // the first unit of since_idr_: what a restarted decoder is fed before its replay.
  std::vector<std::vector<uint8_t>> parameter_sets_, sets_before_idr_;
  uint32_t width_ = 0, height_ = 0;
};

// Cache figures for tests and the CPU report.
struct CacheStats {
  uint64_t hits = 0, misses = 0, replays = 0;
  size_t bytes = 0;
};
CacheStats cache_stats();

}  // namespace sim::vdec

#endif  // ACL_SIM_SRC_VDEC_STREAM_H_
