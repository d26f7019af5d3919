// Output pictures of the simulated VDEC (vdec_picture.h).
#include "vdec/vdec_picture.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "acl_sim/imaging/content_hash.h"
#include "core/profile.h"
#include "dvpp/dvpp_content.h"
#include "report/log.h"

namespace img = acl_sim::imaging;

namespace sim::vdec {

std::string misfit(const Target& out, const img::VideoPicture& p) {
  const uint32_t w = p.width, h = p.height;
  const uint32_t min_ws = std::max(dvpp::align_up(w, 16), 32u), min_hs = dvpp::align_up(h, 2);
  const char* what = nullptr;
  if (!out.semiplanar_420)
    what = "the format is not NV12 or NV21";
  else if ((out.width != 0 && out.width != w) || (out.height != 0 && out.height != h))
    what = "width x height differ from the stream's (VDEC on this device does not scale)";
  else if (out.width_stride % 16 != 0 || out.width_stride < min_ws)
    what = "widthStride is not a multiple of 16 of at least ALIGN(width, 16) and 32";
  else if (out.height_stride % 2 != 0 || out.height_stride < min_hs)
    what = "heightStride is not even, or below ALIGN(height, 2)";
  else if (out.size < static_cast<uint64_t>(out.width_stride) * out.height_stride * 3 / 2)
    what = "size is below widthStride x heightStride x 3 / 2";
  if (what == nullptr) return {};
  return "output picture " + std::to_string(out.width) + "x" + std::to_string(out.height) +
         " strides " + std::to_string(out.width_stride) + "x" + std::to_string(out.height_stride) +
         " size " + std::to_string(out.size) + " for a " + std::to_string(w) + "x" +
         std::to_string(h) + " stream: " + what + "; widthStride " + std::to_string(min_ws) +
         ", heightStride " + std::to_string(min_hs) + ", size " +
         std::to_string(static_cast<uint64_t>(min_ws) * min_hs * 3 / 2) + " would fit";
}

std::string outside_limits(const img::VideoPicture& p) {
  const Profile& prof = profile();
  if (!prof.has("limits.vdec_in.min_width")) return {};
  const auto min_w = static_cast<uint32_t>(prof.num("limits.vdec_in.min_width"));
  const auto min_h = static_cast<uint32_t>(prof.num("limits.vdec_in.min_height"));
  const auto max_w = static_cast<uint32_t>(prof.num("limits.vdec_in.max_width"));
  const auto max_h = static_cast<uint32_t>(prof.num("limits.vdec_in.max_height"));
  if (p.width >= min_w && p.height >= min_h && p.width <= max_w && p.height <= max_h) return {};
  return "a " + std::to_string(p.width) + "x" + std::to_string(p.height) + " stream: VDEC on the " +
         prof.str("soc") + " decodes " + std::to_string(min_w) + "x" + std::to_string(min_h) +
         " .. " + std::to_string(max_w) + "x" + std::to_string(max_h) +
         " (limits.vdec_in); scale the video before it reaches the device";
}

void write_picture(const Target& out, const img::VideoPicture& p, uint64_t identity) {
  const uint32_t ws = out.width_stride, hs = out.height_stride;
  const size_t bytes = static_cast<size_t>(ws) * hs * 3 / 2;
  auto* dst = static_cast<uint8_t*>(out.data);
  const uint64_t id = img::hash_combine(img::hash_combine(identity, ws), hs * 2u + out.nv21);
  uint64_t held = 0;
  if (dvpp::tag_get(dst, bytes, &held) && held == id) return;
  const size_t w = p.width, h = p.height, cw = (w + 1) / 2 * 2, ch = (h + 1) / 2;
  for (size_t r = 0; r < h; ++r) std::memcpy(dst + r * ws, p.nv12.data() + r * w, w);
  const uint8_t* uv = p.nv12.data() + w * h;
  uint8_t* duv = dst + static_cast<size_t>(ws) * hs;
  for (size_t r = 0; r < ch; ++r) {
    uint8_t* row = duv + r * ws;
    std::memcpy(row, uv + r * cw, cw);
    if (out.nv21)
      for (size_t c = 0; c + 1 < cw; c += 2) std::swap(row[c], row[c + 1]);
  }
  dvpp::tag_set(dst, bytes, id);
}

namespace {

struct Corruption {
  bool on = false;
  uint32_t channel = 0;
  uint64_t picture = 0;
};

Corruption read_corruption() {
  Corruption c;
  const char* v = std::getenv("ACL_SIM_VDEC_CORRUPT");
  if (v == nullptr || *v == '\0') return c;
  unsigned long channel = 0;
  unsigned long long picture = 0;
  char tail = 0;
  if (std::sscanf(v, "%lu:%llu%c", &channel, &picture, &tail) != 2) {
    log(LogLevel::kError,
        "ACL_SIM_VDEC_CORRUPT=%s is not CHANNEL:PICTURE (e.g. 0:5); no picture is corrupted", v);
    return c;
  }
  c.on = true;
  c.channel = static_cast<uint32_t>(channel);
  c.picture = picture;
  return c;
}

}  // namespace

bool corrupted(uint32_t channel, uint64_t picture) {
  static const Corruption c = read_corruption();
  return c.on && c.channel == channel && c.picture == picture;
}

void corrupt(const Target& out) {
  auto* y = static_cast<uint8_t*>(out.data);
  y[0] = static_cast<uint8_t>(y[0] ^ 0xFF);
  dvpp::tag_clear(out.data, static_cast<size_t>(out.width_stride) * out.height_stride * 3 / 2);
  log(LogLevel::kWarn,
      "ACL_SIM_VDEC_CORRUPT: flipped the first byte of a decoded picture at %p (test-only)",
      out.data);
}

}  // namespace sim::vdec
