// libavcodec behind VideoDecoder (video_decode.h).
#include "acl_sim/imaging/video_decode.h"

#include <cstring>
#include <utility>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
}

namespace acl_sim::imaging {

struct VideoDecoder::Impl {
  AVCodecContext* ctx = nullptr;
  AVPacket* packet = nullptr;
  AVFrame* frame = nullptr;
  ~Impl() {
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&ctx);
  }
};

namespace {

std::string av_message(int code) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, buf, sizeof buf);
  return buf;
}

// The frame as tight NV12; nullptr (and `why`) for a format VDEC does not output.
PictureRef to_nv12(const AVFrame* f, std::string* why) {
  auto fmt = static_cast<AVPixelFormat>(f->format);
  if (fmt != AV_PIX_FMT_YUV420P && fmt != AV_PIX_FMT_YUVJ420P && fmt != AV_PIX_FMT_NV12) {
    const char* name = av_get_pix_fmt_name(fmt);
    *why = std::string("decoded sample format ") + (name != nullptr ? name : "?") +
           " is not 8-bit 4:2:0";
    return nullptr;
  }
  auto pic = std::make_shared<VideoPicture>();
  pic->width = static_cast<uint32_t>(f->width);
  pic->height = static_cast<uint32_t>(f->height);
  const size_t w = pic->width, h = pic->height, cw = (w + 1) / 2, ch = (h + 1) / 2;
  pic->nv12.resize(w * h + 2 * cw * ch);
  uint8_t* y = pic->nv12.data();
  for (size_t r = 0; r < h; ++r)
    std::memcpy(y + r * w, f->data[0] + r * static_cast<size_t>(f->linesize[0]), w);
  uint8_t* uv = y + w * h;
  for (size_t r = 0; r < ch; ++r) {
    uint8_t* row = uv + r * 2 * cw;
    if (fmt == AV_PIX_FMT_NV12) {
      std::memcpy(row, f->data[1] + r * static_cast<size_t>(f->linesize[1]), 2 * cw);
      continue;
    }
    const uint8_t* u = f->data[1] + r * static_cast<size_t>(f->linesize[1]);
    const uint8_t* v = f->data[2] + r * static_cast<size_t>(f->linesize[2]);
    for (size_t c = 0; c < cw; ++c) {
      row[2 * c] = u[c];
      row[2 * c + 1] = v[c];
    }
  }
  return pic;
}

}  // namespace

VideoDecoder::VideoDecoder(VideoCodec codec) : impl_(std::make_unique<Impl>()) {
  av_log_set_level(AV_LOG_QUIET);  // errors come back as codes (feed's `why`)
  const AVCodec* dec =
      avcodec_find_decoder(codec == VideoCodec::kH264 ? AV_CODEC_ID_H264 : AV_CODEC_ID_HEVC);
  if (dec == nullptr) {
    error_ = "libavcodec has no decoder for this codec";
    return;
  }
  impl_->ctx = avcodec_alloc_context3(dec);
  impl_->packet = av_packet_alloc();
  impl_->frame = av_frame_alloc();
  if (impl_->ctx == nullptr || impl_->packet == nullptr || impl_->frame == nullptr) {
    error_ = "out of memory";
    return;
  }
  impl_->ctx->thread_count = 1;
  if (int rc = avcodec_open2(impl_->ctx, dec, nullptr); rc < 0)
    error_ = "avcodec_open2: " + av_message(rc);
}

VideoDecoder::~VideoDecoder() = default;

bool VideoDecoder::drain(std::vector<PictureRef>* out, std::string* why) {
  for (;;) {
    int rc = avcodec_receive_frame(impl_->ctx, impl_->frame);
    if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return true;
    if (rc < 0) {
      *why = "avcodec_receive_frame: " + av_message(rc);
      return false;
    }
    PictureRef pic = to_nv12(impl_->frame, why);
    av_frame_unref(impl_->frame);
    if (pic == nullptr) return false;
    out->push_back(std::move(pic));
  }
}

bool VideoDecoder::feed(const uint8_t* data, size_t size, std::vector<PictureRef>* out,
                        std::string* why) {
  if (!ok()) {
    *why = error_;
    return false;
  }
  AVPacket* p = impl_->packet;
  if (av_new_packet(p, static_cast<int>(size)) < 0) {
    *why = "out of memory";
    return false;
  }
  std::memcpy(p->data, data, size);
  int rc = avcodec_send_packet(impl_->ctx, p);
  av_packet_unref(p);
  if (rc < 0 && rc != AVERROR(EAGAIN)) {
    *why = "avcodec_send_packet: " + av_message(rc);
    return false;
  }
  return drain(out, why);
}

bool VideoDecoder::flush(std::vector<PictureRef>* out, std::string* why) {
  if (!ok()) {
    *why = error_;
    return false;
  }
  int rc = avcodec_send_packet(impl_->ctx, nullptr);
  bool good = rc >= 0 || rc == AVERROR_EOF;
  if (!good) *why = "avcodec_send_packet(flush): " + av_message(rc);
  good = drain(out, why) && good;
  reset();
  return good;
}

void VideoDecoder::reset() {
  if (impl_->ctx != nullptr) avcodec_flush_buffers(impl_->ctx);
}

uint32_t VideoDecoder::width() const {
  return impl_->ctx != nullptr ? static_cast<uint32_t>(impl_->ctx->width) : 0;
}

uint32_t VideoDecoder::height() const {
  return impl_->ctx != nullptr ? static_cast<uint32_t>(impl_->ctx->height) : 0;
}

bool is_random_access(VideoCodec codec, const uint8_t* data, size_t size) {
  // Walk the start codes (00 00 01, also the tail of 00 00 00 01).
  for (size_t i = 0; i + 3 < size; ++i) {
    if (data[i] != 0 || data[i + 1] != 0 || data[i + 2] != 1) continue;
    uint8_t header = data[i + 3];
    if (codec == VideoCodec::kH264) {
      if ((header & 0x1f) == 5) return true;
    } else {
      int type = (header >> 1) & 0x3f;
      if (type == 19 || type == 20) return true;  // IDR_W_RADL, IDR_N_LP
    }
    i += 2;
  }
  return false;
}

std::vector<std::vector<uint8_t>> parameter_sets(VideoCodec codec, const uint8_t* data,
                                                 size_t size) {
  // NAL payload starts (just after each 00 00 01); a unit ends where the next start code's
  // zeros begin (a 4-byte start code's leading zero belongs to it, not to the unit before).
  std::vector<size_t> starts;
  for (size_t i = 0; i + 3 <= size; ++i) {
    if (data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1) {
      starts.push_back(i + 3);
      i += 2;
    }
  }
  std::vector<std::vector<uint8_t>> sets;
  for (size_t n = 0; n < starts.size(); ++n) {
    const size_t begin = starts[n];
    size_t end = n + 1 < starts.size() ? starts[n + 1] - 3 : size;
    while (end > begin && data[end - 1] == 0) --end;  // trailing zeros, a 4-byte start code's
    if (begin >= end) continue;
    const uint8_t header = data[begin];
    const int type = codec == VideoCodec::kH264 ? header & 0x1f : (header >> 1) & 0x3f;
    const bool is_set =
        codec == VideoCodec::kH264 ? (type == 7 || type == 8) : (type >= 32 && type <= 34);
    if (!is_set) continue;
    std::vector<uint8_t> unit = {0, 0, 0, 1};
    unit.insert(unit.end(), data + begin, data + end);
    sets.push_back(std::move(unit));
  }
  return sets;
}

}  // namespace acl_sim::imaging
