// H.264 / H.265 Annex-B decoding with FFmpeg's libavcodec, for the simulated VDEC.
//
// A VideoDecoder takes one access unit (one coded frame, with any parameter sets
// before it) per feed() and returns the pictures the decoder output in display
// order: none while it still holds frames for reordering, one or more later.
// flush() drains it at the end of a stream. Pictures are 8-bit 4:2:0 as tight
// NV12 (a width x height Y plane, then width x height / 2 bytes of interleaved
// U and V); other sample formats are refused with an error. One thread, no
// frame threading: the output is deterministic and costs one core at most.
#ifndef ACL_SIM_IMAGING_VIDEO_DECODE_H_
#define ACL_SIM_IMAGING_VIDEO_DECODE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace acl_sim::imaging {

enum class VideoCodec { kH264, kH265 };

struct VideoPicture {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<uint8_t> nv12;  // width * height * 3 / 2 bytes
};
using PictureRef = std::shared_ptr<const VideoPicture>;

class VideoDecoder {
 public:
  explicit VideoDecoder(VideoCodec codec);
  ~VideoDecoder();
  VideoDecoder(const VideoDecoder&) = delete;
  VideoDecoder& operator=(const VideoDecoder&) = delete;

  // False when libavcodec has no decoder for the codec (error() says why).
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // Decodes one access unit; appends the pictures output now. False on a
  // decode error (`why` says what), the decoder stays usable.
  bool feed(const uint8_t* data, size_t size, std::vector<PictureRef>* out, std::string* why);
  // End of stream: appends every picture still held; the decoder is then reset.
  bool flush(std::vector<PictureRef>* out, std::string* why);
  // Forgets every held frame and reference (avcodec_flush_buffers).
  void reset();
  // The coded picture size of the stream as far as parsed (0 before its parameter sets).
  uint32_t width() const;
  uint32_t height() const;

 private:
  bool drain(std::vector<PictureRef>* out, std::string* why);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string error_;
};

// True when the Annex-B access unit holds an IDR picture: H.264 NAL type 5, H.265
// types 19 and 20. Decoding can start there with no earlier frame, and every
// picture before it comes out before any picture after it.
bool is_random_access(VideoCodec codec, const uint8_t* data, size_t size);

// The parameter-set NAL units of an Annex-B access unit, each with a 4-byte start code, in
// stream order: H.264 SPS and PPS (types 7, 8), H.265 VPS, SPS and PPS (32, 33, 34). A stream
// may carry them once at its start; a decoder started at a later IDR needs them fed first.
std::vector<std::vector<uint8_t>> parameter_sets(VideoCodec codec, const uint8_t* data,
                                                 size_t size);

}  // namespace acl_sim::imaging

#endif  // ACL_SIM_IMAGING_VIDEO_DECODE_H_
