// ascgen_video_verify.h: --verify for a video program: each stream's file decoded once on the host
// with FFmpeg's libavcodec (only in verify mode, at start-up), and every picture VDEC delivers
// compared with the host's picture of the same frame, Y plane byte for byte. VDEC delivers the
// pictures of a stream in display order, as libavcodec does, and each replay of the file starts
// at its first (key) frame, so the n-th picture of a stream is the host's n modulo the file's
// pictures. Built when CMake found libavcodec (ASCGEN_HOST_DECODER); else --verify is refused.
// Emitted verbatim by ascgen; hand-written, reviewed once.
#ifndef ASCGEN_VIDEO_VERIFY_H_
#define ASCGEN_VIDEO_VERIFY_H_

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#if ASCGEN_HOST_DECODER
extern "C" {
#include <libavcodec/avcodec.h>
}
#endif

namespace ascgen {
namespace video {

// One file's pictures as the host decodes them: the Y plane of each, width x height, tight.
struct HostPictures {
  uint32_t width = 0, height = 0;
  std::vector<std::vector<uint8_t>> y;
};

#if ASCGEN_HOST_DECODER
constexpr bool kHostDecoder = true;

// Decodes `units` of `bytes` (one pass, in decode order) with libavcodec, one thread.
inline HostPictures host_decode(const std::string& name, const std::vector<uint8_t>& bytes,
                                const std::vector<std::pair<size_t, size_t>>& units, bool h265) {
  const AVCodec* codec = avcodec_find_decoder(h265 ? AV_CODEC_ID_HEVC : AV_CODEC_ID_H264);
  if (codec == nullptr) throw std::runtime_error("verify: libavcodec has no decoder for the codec");
  AVCodecContext* ctx = avcodec_alloc_context3(codec);
  AVPacket* packet = av_packet_alloc();
  AVFrame* frame = av_frame_alloc();
  HostPictures out;
  std::string error;
  if (ctx == nullptr || packet == nullptr || frame == nullptr) error = "out of memory";
  if (error.empty()) {
    ctx->thread_count = 1;
    if (avcodec_open2(ctx, codec, nullptr) < 0) error = "avcodec_open2 failed";
  }
  std::vector<uint8_t> padded;
  auto receive = [&] {
    while (avcodec_receive_frame(ctx, frame) == 0) {
      out.width = static_cast<uint32_t>(frame->width);
      out.height = static_cast<uint32_t>(frame->height);
      std::vector<uint8_t> y(static_cast<size_t>(out.width) * out.height);
      for (uint32_t r = 0; r < out.height; ++r)
        std::memcpy(
            y.data() + static_cast<size_t>(r) * out.width,
            frame->data[0] + static_cast<size_t>(r) * static_cast<size_t>(frame->linesize[0]),
            out.width);
      out.y.push_back(std::move(y));
      av_frame_unref(frame);
    }
  };
  for (size_t k = 0; k < units.size() && error.empty(); ++k) {
    padded.assign(units[k].second + AV_INPUT_BUFFER_PADDING_SIZE, 0);
    std::memcpy(padded.data(), bytes.data() + units[k].first, units[k].second);
    packet->data = padded.data();
    packet->size = static_cast<int>(units[k].second);
    if (avcodec_send_packet(ctx, packet) < 0)
      error = "access unit " + std::to_string(k) + " does not decode";
    receive();
  }
  if (error.empty()) {
    avcodec_send_packet(ctx, nullptr);  // drain the pictures held back for reordering
    receive();
  }
  av_frame_free(&frame);
  av_packet_free(&packet);
  avcodec_free_context(&ctx);
  if (!error.empty()) throw std::runtime_error("verify: host decode of '" + name + "': " + error);
  return out;
}
#else
constexpr bool kHostDecoder = false;

inline HostPictures host_decode(const std::string&, const std::vector<uint8_t>&,
                                const std::vector<std::pair<size_t, size_t>>&, bool) {
  throw std::runtime_error("verify: this build has no host decoder (libavcodec)");
}
#endif

// Whether the Y plane of a picture (rows `stride` bytes apart) is the host's picture.
inline bool same_y(const HostPictures& ref, size_t n, const uint8_t* y, uint32_t stride) {
  const std::vector<uint8_t>& want = ref.y[n % ref.y.size()];
  for (uint32_t r = 0; r < ref.height; ++r)
    if (std::memcmp(want.data() + static_cast<size_t>(r) * ref.width,
                    y + static_cast<size_t>(r) * stride, ref.width) != 0)
      return false;
  return true;
}

}  // namespace video
}  // namespace ascgen

#endif  // ASCGEN_VIDEO_VERIFY_H_
