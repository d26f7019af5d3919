// Separable fixed-point resampling of NV12 planes; see resize.h.
#include "acl_sim/imaging/resize.h"

#include <cstring>
#include <vector>

namespace acl_sim::imaging {
namespace {

constexpr int kWeightBits = 11;  // per axis, as cv::resize INTER_LINEAR for 8-bit images
constexpr uint32_t kOne = 1u << kWeightBits;

// One axis of one plane: where each output index reads and with which weights.
struct Taps {
  std::vector<uint32_t> i0, i1;  // source indices
  std::vector<uint32_t> w1;      // weight of i1 in [0, kOne]; i0 gets kOne - w1
};

// Exact rational source coordinates (no floating point, so results do not
// depend on the platform): bilinear reads f = ((2d + 1) * src - dst) / (2 * dst),
// nearest reads floor(d * src / dst).
Taps bilinear_taps(uint32_t src_n, uint32_t dst_n) {
  Taps t;
  t.i0.resize(dst_n);
  t.i1.resize(dst_n);
  t.w1.resize(dst_n);
  const int64_t den = 2 * int64_t{dst_n};
  for (uint32_t d = 0; d < dst_n; ++d) {
    const int64_t num = (2 * int64_t{d} + 1) * src_n - dst_n;
    int64_t base = num >= 0 ? num / den : -((-num + den - 1) / den);  // floor
    int64_t rem = num - base * den;                                   // in [0, den)
    if (base < 0) base = 0, rem = 0;
    if (base >= int64_t{src_n} - 1) base = src_n - 1, rem = 0;
    t.i0[d] = static_cast<uint32_t>(base);
    t.i1[d] = t.i0[d] + 1 < src_n ? t.i0[d] + 1 : t.i0[d];
    t.w1[d] = static_cast<uint32_t>((rem * 2 * kOne + den) / (2 * den));  // rounded
  }
  return t;
}

Taps nearest_taps(uint32_t src_n, uint32_t dst_n) {
  Taps t;
  t.i0.resize(dst_n);
  for (uint32_t d = 0; d < dst_n; ++d) {
    const auto i = static_cast<uint32_t>(uint64_t{d} * src_n / dst_n);
    t.i0[d] = i < src_n ? i : src_n - 1;
  }
  return t;
}

// A rectangle of one plane: `ch` interleaved bytes per pixel (1 for Y, 2 for UV).
struct PlaneRect {
  const uint8_t* origin;  // first byte of the rectangle
  size_t stride;
  uint32_t w, h;
};

struct OutRect {
  uint8_t* origin;
  size_t stride;
  uint32_t w, h;
};

void copy_plane(const PlaneRect& s, const OutRect& d, uint32_t ch) {
  for (uint32_t y = 0; y < d.h; ++y) {
    std::memcpy(d.origin + y * d.stride, s.origin + y * s.stride, size_t{d.w} * ch);
  }
}

void nearest_plane(const PlaneRect& s, const OutRect& d, uint32_t ch) {
  const Taps tx = nearest_taps(s.w, d.w);
  const Taps ty = nearest_taps(s.h, d.h);
  for (uint32_t y = 0; y < d.h; ++y) {
    const uint8_t* in = s.origin + ty.i0[y] * s.stride;
    uint8_t* out = d.origin + y * d.stride;
    for (uint32_t x = 0; x < d.w; ++x) {
      for (uint32_t c = 0; c < ch; ++c) out[x * ch + c] = in[tx.i0[x] * ch + c];
    }
  }
}

// Horizontal pass of one source row into `out` (values scaled by kOne).
template <uint32_t CH>
void horizontal(const uint8_t* in, const Taps& tx, uint32_t* __restrict out) {
  const size_t n = tx.i0.size();
  const uint32_t* __restrict i0 = tx.i0.data();
  const uint32_t* __restrict i1 = tx.i1.data();
  const uint32_t* __restrict w1 = tx.w1.data();
  for (size_t x = 0; x < n; ++x) {
    const uint8_t* a = in + i0[x] * CH;
    const uint8_t* b = in + i1[x] * CH;
    const uint32_t w = w1[x];
    for (uint32_t c = 0; c < CH; ++c) out[x * CH + c] = a[c] * (kOne - w) + b[c] * w;
  }
}

template <uint32_t CH>
void bilinear_plane(const PlaneRect& s, const OutRect& d) {
  const Taps tx = bilinear_taps(s.w, d.w);
  const Taps ty = bilinear_taps(s.h, d.h);
  const size_t row_len = size_t{d.w} * CH;
  // Horizontally filtered source rows in two slots, tagged with their source
  // row; output rows advance monotonically, so each source row is filtered once.
  std::vector<uint32_t> slots(2 * row_len);
  int64_t tag[2] = {-1, -1};
  auto filtered = [&](uint32_t sy, int avoid) -> int {
    for (int k = 0; k < 2; ++k) {
      if (tag[k] == sy) return k;
    }
    const int k = avoid == 0 ? 1 : 0;
    horizontal<CH>(s.origin + sy * s.stride, tx, slots.data() + k * row_len);
    tag[k] = sy;
    return k;
  };
  constexpr uint32_t kRound = 1u << (2 * kWeightBits - 1);
  for (uint32_t y = 0; y < d.h; ++y) {
    const int k0 = filtered(ty.i0[y], -1);
    const int k1 = filtered(ty.i1[y], k0);
    const uint32_t* __restrict r0 = slots.data() + k0 * row_len;
    const uint32_t* __restrict r1 = slots.data() + k1 * row_len;
    const uint32_t w1 = ty.w1[y];
    const uint32_t w0 = kOne - w1;
    uint8_t* __restrict out = d.origin + y * d.stride;
    for (size_t i = 0; i < row_len; ++i) {
      out[i] = static_cast<uint8_t>((r0[i] * w0 + r1[i] * w1 + kRound) >> (2 * kWeightBits));
    }
  }
}

void resample_plane(const PlaneRect& s, const OutRect& d, uint32_t ch, bool nearest) {
  if (s.w == d.w && s.h == d.h) {
    copy_plane(s, d, ch);
  } else if (nearest) {
    nearest_plane(s, d, ch);
  } else if (ch == 1) {
    bilinear_plane<1>(s, d);
  } else {
    bilinear_plane<2>(s, d);
  }
}

}  // namespace

Roi full_roi(uint32_t width, uint32_t height) {
  return Roi{0, 0, (width & ~1u) - 1, (height & ~1u) - 1};
}

bool is_valid_roi(const Roi& r, uint32_t width, uint32_t height) {
  return r.left % 2 == 0 && r.top % 2 == 0 && r.right % 2 == 1 && r.bottom % 2 == 1 &&
         r.right > r.left && r.bottom > r.top && r.right < width && r.bottom < height;
}

const char* to_string(ResizeStatus status) {
  switch (status) {
    case ResizeStatus::kOk:
      return "ok";
    case ResizeStatus::kBadSource:
      return "invalid source picture or strides";
    case ResizeStatus::kBadDestination:
      return "invalid destination picture or strides";
    case ResizeStatus::kBadSourceRoi:
      return "invalid source ROI";
    case ResizeStatus::kBadDestinationRoi:
      return "invalid destination ROI";
    case ResizeStatus::kBadInterpolation:
      return "interpolation not in 0..4";
  }
  return "?";
}

ResizeStatus resize_nv12(const Nv12ConstView& src, const Roi& sr, const Nv12View& dst,
                         const Roi& dr, Interpolation interpolation) {
  if (!is_valid_nv12(src)) return ResizeStatus::kBadSource;
  if (!is_valid_nv12(dst)) return ResizeStatus::kBadDestination;
  if (!is_valid_roi(sr, src.width, src.height)) return ResizeStatus::kBadSourceRoi;
  if (!is_valid_roi(dr, dst.width, dst.height)) return ResizeStatus::kBadDestinationRoi;
  const auto mode = static_cast<uint32_t>(interpolation);
  if (mode > 4) return ResizeStatus::kBadInterpolation;
  const bool nearest =
      interpolation == Interpolation::kNearest || interpolation == Interpolation::kTfNearest;

  const size_t ss = src.width_stride;
  const size_t ds = dst.width_stride;
  const PlaneRect sy{src.data + sr.top * ss + sr.left, ss, sr.width(), sr.height()};
  const OutRect dy{dst.data + dr.top * ds + dr.left, ds, dr.width(), dr.height()};
  resample_plane(sy, dy, 1, nearest);

  const uint8_t* suv = src.data + ss * src.height_stride;
  uint8_t* duv = dst.data + ds * dst.height_stride;
  const PlaneRect sc{suv + sr.top / 2 * ss + sr.left, ss, sr.width() / 2, sr.height() / 2};
  const OutRect dc{duv + dr.top / 2 * ds + dr.left, ds, dr.width() / 2, dr.height() / 2};
  resample_plane(sc, dc, 2, nearest);
  return ResizeStatus::kOk;
}

}  // namespace acl_sim::imaging
