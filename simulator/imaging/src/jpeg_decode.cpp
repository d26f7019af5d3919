// JPEGD pixel model on libjpeg-turbo's raw (planar YUV) decode; see jpeg_decode.h.
#include "acl_sim/imaging/jpeg_decode.h"

#include <turbojpeg.h>

#include <cstring>
#include <memory>
#include <vector>

#include "acl_sim/imaging/nv12.h"

namespace acl_sim::imaging {
namespace {

struct TjDeleter {
  void operator()(void* handle) const { tjDestroy(handle); }
};

// One decompressor per thread: a tjhandle must not be shared between threads.
tjhandle thread_decompressor() {
  thread_local std::unique_ptr<void, TjDeleter> handle(tjInitDecompress());
  return handle.get();
}

// Horizontal and vertical luma pixels per chroma sample.
struct ChromaFactors {
  uint32_t x = 1;
  uint32_t y = 1;
};

bool chroma_factors(int subsamp, ChromaFactors* f) {
  switch (subsamp) {
    case TJSAMP_444:
      *f = {1, 1};
      return true;
    case TJSAMP_422:
      *f = {2, 1};
      return true;
    case TJSAMP_420:
      *f = {2, 2};
      return true;
    case TJSAMP_440:
      *f = {1, 2};
      return true;
    case TJSAMP_411:
      *f = {4, 1};
      return true;
    default:
      return false;
  }
}

// A native-resolution chroma plane pair as libjpeg-turbo wrote it.
struct ChromaPlanes {
  std::vector<uint8_t> u, v;
  uint32_t stride = 0;
  ChromaFactors f;
};

// Maps the native chroma planes onto the 4:2:0 interleaved plane; see the
// header for the rule. cw x ch is the output chroma picture.
void write_chroma_420(const ChromaPlanes& c, uint8_t* uv, uint32_t ws, uint32_t cw, uint32_t ch) {
  const size_t ps = c.stride;
  for (uint32_t cy = 0; cy < ch; ++cy) {
    uint8_t* out = uv + size_t{cy} * ws;
    const size_t y0 = (2 * cy) / c.f.y * ps;
    const size_t y1 = (2 * cy + 1) / c.f.y * ps;
    if (c.f.x == 2 && c.f.y == 2) {  // 4:2:0: the planes already are on the grid
      for (uint32_t cx = 0; cx < cw; ++cx) {
        out[2 * cx] = c.u[y0 + cx];
        out[2 * cx + 1] = c.v[y0 + cx];
      }
      continue;
    }
    for (uint32_t cx = 0; cx < cw; ++cx) {
      const size_t x0 = (2 * cx) / c.f.x;
      const size_t x1 = (2 * cx + 1) / c.f.x;
      const uint8_t* u = c.u.data();
      const uint8_t* v = c.v.data();
      out[2 * cx] =
          static_cast<uint8_t>((u[y0 + x0] + u[y0 + x1] + u[y1 + x0] + u[y1 + x1] + 2) >> 2);
      out[2 * cx + 1] =
          static_cast<uint8_t>((v[y0 + x0] + v[y0 + x1] + v[y1 + x0] + v[y1 + x1] + 2) >> 2);
    }
  }
}

// Fills the padding of one plane: bytes [pic_w, ws) of each of the first
// pic_rows rows repeat the last `unit` bytes of the picture (1 for Y, 2 for
// U,V pairs); rows [pic_rows, rows) copy row pic_rows - 1.
void pad_plane(uint8_t* plane, uint32_t ws, uint32_t rows, uint32_t pic_w, uint32_t pic_rows,
               uint32_t unit) {
  for (uint32_t y = 0; y < pic_rows; ++y) {
    uint8_t* row = plane + size_t{y} * ws;
    for (uint32_t x = pic_w; x < ws; ++x) row[x] = row[pic_w - unit + (x - pic_w) % unit];
  }
  const uint8_t* last = plane + size_t{pic_rows - 1} * ws;
  for (uint32_t y = pic_rows; y < rows; ++y) std::memcpy(plane + size_t{y} * ws, last, ws);
}

}  // namespace

DecodeGeometry decode_geometry(const JpegInfo& info, const DecodeAlign& align) {
  DecodeGeometry g;
  if (!info.valid || info.width < 2 || info.height < 2) return g;
  g.width = info.width & ~1u;
  g.height = info.height & ~1u;
  g.width_stride = align_up(g.width, align.width);
  g.height_stride = align_up(align_up(g.height, align.height), 2);
  g.bytes = nv12_bytes(g.width_stride, g.height_stride);
  return g;
}

uint64_t predict_dec_size(const JpegInfo& info, const DecodeAlign& align) {
  return decode_geometry(info, align).bytes;
}

const char* to_string(DecodeStatus status) {
  switch (status) {
    case DecodeStatus::kOk:
      return "ok";
    case DecodeStatus::kInvalidStream:
      return "invalid or corrupt JPEG stream";
    case DecodeStatus::kUnsupported:
      return "JPEG color format cannot be decoded to YUV";
    case DecodeStatus::kBadGeometry:
      return "output strides do not hold the picture";
    case DecodeStatus::kBufferTooSmall:
      return "output buffer smaller than ws*hs*3/2";
  }
  return "?";
}

DecodeStatus decode_jpeg_nv12(const uint8_t* data, size_t size, uint8_t* dst, size_t dst_size,
                              uint32_t ws, uint32_t hs) {
  const JpegInfo info = parse_jpeg_info(data, size);
  const DecodeGeometry g = decode_geometry(info, DecodeAlign{1, 1});
  if (g.width == 0 || size > 0xFFFFFFFFu) return DecodeStatus::kInvalidStream;
  if (ws < g.width || hs < g.height || hs % 2) return DecodeStatus::kBadGeometry;
  if (dst == nullptr || dst_size < nv12_bytes(ws, hs)) return DecodeStatus::kBufferTooSmall;

  tjhandle tj = thread_decompressor();
  if (tj == nullptr) return DecodeStatus::kUnsupported;
  const auto jpeg_size = static_cast<unsigned long>(size);
  int w = 0, h = 0, subsamp = 0, colorspace = 0;
  if (tjDecompressHeader3(tj, data, jpeg_size, &w, &h, &subsamp, &colorspace) != 0) {
    return info.subsampling == Subsampling::kOther ? DecodeStatus::kUnsupported
                                                   : DecodeStatus::kInvalidStream;
  }
  if (static_cast<uint32_t>(w) != info.width || static_cast<uint32_t>(h) != info.height) {
    return DecodeStatus::kInvalidStream;
  }
  if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK) return DecodeStatus::kUnsupported;
  const bool gray = subsamp == TJSAMP_GRAY;
  ChromaPlanes chroma;
  if (!gray && !chroma_factors(subsamp, &chroma.f)) return DecodeStatus::kUnsupported;

  // libjpeg-turbo writes whole planes: the picture padded to the chroma
  // subsampling factors (a 333x211 4:2:0 stream has a 334x212 luma plane).
  // Luma goes straight into dst when such a plane fits its strides.
  const auto luma_w = static_cast<uint32_t>(tjPlaneWidth(0, w, subsamp));
  const auto luma_h = static_cast<uint32_t>(tjPlaneHeight(0, h, subsamp));
  const bool direct = ws >= luma_w && hs >= luma_h;
  std::vector<uint8_t> luma;
  unsigned char* planes[3] = {dst, nullptr, nullptr};
  int strides[3] = {static_cast<int>(ws), 0, 0};
  if (!direct) {
    luma.resize(size_t{luma_w} * luma_h);
    planes[0] = luma.data();
    strides[0] = static_cast<int>(luma_w);
  }
  if (!gray) {
    chroma.stride = static_cast<uint32_t>(tjPlaneWidth(1, w, subsamp));
    const size_t plane_bytes = size_t{chroma.stride} * tjPlaneHeight(1, h, subsamp);
    chroma.u.resize(plane_bytes);
    chroma.v.resize(plane_bytes);
    planes[1] = chroma.u.data();
    planes[2] = chroma.v.data();
    strides[1] = strides[2] = static_cast<int>(chroma.stride);
  }
  if (tjDecompressToYUVPlanes(tj, data, jpeg_size, planes, w, strides, h, TJFLAG_STOPONWARNING) !=
      0) {
    return DecodeStatus::kInvalidStream;
  }
  if (!direct) {
    for (uint32_t y = 0; y < g.height; ++y) {
      std::memcpy(dst + size_t{y} * ws, luma.data() + size_t{y} * luma_w, g.width);
    }
  }
  pad_plane(dst, ws, hs, g.width, g.height, 1);
  uint8_t* uv = dst + size_t{ws} * hs;
  if (gray) {
    std::memset(uv, 128, size_t{ws} * (hs / 2));
  } else {
    write_chroma_420(chroma, uv, ws, g.width / 2, g.height / 2);
    pad_plane(uv, ws, hs / 2, g.width, g.height / 2, 2);
  }
  return DecodeStatus::kOk;
}

}  // namespace acl_sim::imaging
