// YUV420SP NV12 images as the DVPP model sees them.
//
// Layout (ACL_FACTS.md section 4): a Y plane of width_stride * height_stride
// bytes, then one interleaved chroma plane of width_stride * height_stride / 2
// bytes holding U,V pairs (U first) at half resolution in both directions. Pixel
// (x, y) has luma data[y * ws + x] and chroma pair at data[ws * hs + (y / 2) * ws
// + (x & ~1)]. width/height are the logical picture; the rest of each row and
// the rows below are padding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace acl_sim::imaging {

constexpr uint32_t align_up(uint32_t value, uint32_t alignment) {
  return alignment == 0 ? value : (value + alignment - 1) / alignment * alignment;
}

// Bytes of an NV12 frame on the given strides: ws * hs * 3 / 2.
constexpr uint64_t nv12_bytes(uint32_t width_stride, uint32_t height_stride) {
  return uint64_t{width_stride} * height_stride * 3 / 2;
}

struct Nv12View {
  uint8_t* data = nullptr;
  uint32_t width = 0;
  uint32_t height = 0;
  uint32_t width_stride = 0;
  uint32_t height_stride = 0;
};

struct Nv12ConstView {
  const uint8_t* data = nullptr;
  uint32_t width = 0;
  uint32_t height = 0;
  uint32_t width_stride = 0;
  uint32_t height_stride = 0;

  Nv12ConstView() = default;
  Nv12ConstView(const uint8_t* d, uint32_t w, uint32_t h, uint32_t ws, uint32_t hs)
      : data(d), width(w), height(h), width_stride(ws), height_stride(hs) {}
  Nv12ConstView(const Nv12View& v)  // NOLINT(google-explicit-constructor): views convert
      : Nv12ConstView(v.data, v.width, v.height, v.width_stride, v.height_stride) {}
};

// True when strides hold the picture, the height stride is even (the chroma
// plane has hs / 2 rows) and the buffer is not null.
bool is_valid_nv12(const Nv12ConstView& view);

// An owned NV12 frame; what the caches hand out (as shared_ptr<const ...>).
struct Nv12Image {
  uint32_t width = 0;
  uint32_t height = 0;
  uint32_t width_stride = 0;
  uint32_t height_stride = 0;
  std::vector<uint8_t> bytes;  // nv12_bytes(width_stride, height_stride)

  Nv12Image() = default;
  Nv12Image(uint32_t w, uint32_t h, uint32_t ws, uint32_t hs)
      : width(w), height(h), width_stride(ws), height_stride(hs), bytes(nv12_bytes(ws, hs)) {}
  Nv12View view() { return {bytes.data(), width, height, width_stride, height_stride}; }
  Nv12ConstView view() const { return {bytes.data(), width, height, width_stride, height_stride}; }
};

// Copies the picture area of `src` (width x height) into `dst` with its
// top-left corner at (left, top); left and top must be even. Nothing else of
// dst is written. Returns false (and writes nothing) when it does not fit.
bool paste_nv12(const Nv12ConstView& src, const Nv12View& dst, uint32_t left, uint32_t top);

// Content identity of the picture area (padding ignored): hash64 chained over
// the width bytes of each Y row, then of each U,V row, seeded with the picture
// size. For sources whose identity is not already known (e.g. frames the host
// wrote): about 0.4 ms for 1024x1536, so compute it once per buffer write.
uint64_t hash_nv12_picture(const Nv12ConstView& view);

}  // namespace acl_sim::imaging
