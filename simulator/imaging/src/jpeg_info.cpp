// Our own JPEG marker walker (ITU-T T.81 annex B syntax); see jpeg_info.h.
#include "acl_sim/imaging/jpeg_info.h"

#include <cstring>

namespace acl_sim::imaging {
namespace {

uint32_t be16(const uint8_t* p) {
  return (uint32_t{p[0]} << 8) | p[1];
}

bool is_sof(uint8_t m) {
  // C0..CF minus DHT (C4), JPG (C8) and DAC (CC).
  return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
}

bool is_standalone(uint8_t m) {
  return (m >= 0xD0 && m <= 0xD7) || m == 0x01;
}

JpegCoding coding_of(uint8_t sof) {
  switch (sof) {
    case 0xC0:
      return JpegCoding::kBaseline;
    case 0xC1:
      return JpegCoding::kExtendedHuffman;
    case 0xC2:
      return JpegCoding::kProgressiveHuffman;
    case 0xC3:
      return JpegCoding::kLosslessHuffman;
    case 0xC5:
    case 0xC6:
    case 0xC7:
      return JpegCoding::kHierarchicalHuffman;
    case 0xC9:
      return JpegCoding::kExtendedArithmetic;
    case 0xCA:
      return JpegCoding::kProgressiveArithmetic;
    case 0xCB:
      return JpegCoding::kLosslessArithmetic;
    default:
      return JpegCoding::kHierarchicalArithmetic;  // CD..CF
  }
}

// Component sampling factors of a SOF, as read.
struct Sampling {
  uint32_t h[4] = {0, 0, 0, 0};
  uint32_t v[4] = {0, 0, 0, 0};
};

Subsampling classify(uint32_t components, const Sampling& s) {
  if (components == 1) return Subsampling::kGray;
  if (components != 3) return Subsampling::kOther;
  if (s.h[1] != s.h[2] || s.v[1] != s.v[2]) return Subsampling::kOther;
  if (s.h[0] < s.h[1] || s.v[0] < s.v[1] || s.h[0] % s.h[1] || s.v[0] % s.v[1]) {
    return Subsampling::kOther;
  }
  const uint32_t rx = s.h[0] / s.h[1];
  const uint32_t ry = s.v[0] / s.v[1];
  if (rx == 1 && ry == 1) return Subsampling::k444;
  if (rx == 2 && ry == 1) return Subsampling::k422;
  if (rx == 2 && ry == 2) return Subsampling::k420;
  if (rx == 1 && ry == 2) return Subsampling::k440;
  if (rx == 4 && ry == 1) return Subsampling::k411;
  return Subsampling::kOther;
}

JpegInfo fail(JpegInfo info, const char* why) {
  info.valid = false;
  info.error = why;
  return info;
}

// Returns the offset of the marker that ends the entropy-coded segment starting
// at `pos` (the 0xFF of a marker other than RSTn and stuffed 0xFF00), or `size`.
size_t skip_entropy_data(const uint8_t* data, size_t size, size_t pos) {
  while (pos + 1 < size) {
    const void* ff = std::memchr(data + pos, 0xFF, size - 1 - pos);
    if (ff == nullptr) break;
    pos = static_cast<size_t>(static_cast<const uint8_t*>(ff) - data);
    const uint8_t next = data[pos + 1];
    if (next == 0x00 || (next >= 0xD0 && next <= 0xD7)) {
      pos += 2;
    } else if (next == 0xFF) {
      ++pos;  // fill byte before a marker
    } else {
      return pos;
    }
  }
  return size;
}

// Reads a SOF segment (payload at p, length len including the 2 length bytes).
const char* read_sof(const uint8_t* p, uint32_t len, JpegInfo* info, Sampling* s) {
  if (len < 8) return "SOF segment too short";
  info->precision = p[0];
  info->height = be16(p + 1);
  info->width = be16(p + 3);
  info->components = p[5];
  if (info->components == 0 || info->components > 4) return "SOF component count not in 1..4";
  if (len != 8 + 3 * info->components) return "SOF length does not match its component count";
  for (uint32_t c = 0; c < info->components; ++c) {
    s->h[c] = p[6 + 3 * c + 1] >> 4;
    s->v[c] = p[6 + 3 * c + 1] & 15;
    if (s->h[c] < 1 || s->h[c] > 4 || s->v[c] < 1 || s->v[c] > 4) {
      return "SOF sampling factor not in 1..4";
    }
  }
  if (info->width == 0) return "SOF width is 0";
  if (info->height == 0) return "SOF height is 0 (DNL marker not supported)";
  return nullptr;
}

// The Orientation tag of an APP1 payload that starts "Exif\0\0" (a TIFF header, then IFD0);
// 1 when it is not there or out of 1..8. Reads only [p, p + n).
uint32_t exif_orientation(const uint8_t* p, size_t n) {
  if (n < 14 || std::memcmp(p, "Exif\0\0", 6) != 0) return 1;
  const uint8_t* tiff = p + 6;
  const size_t size = n - 6;
  const bool little = tiff[0] == 'I' && tiff[1] == 'I';
  if (!little && !(tiff[0] == 'M' && tiff[1] == 'M')) return 1;
  auto u16 = [&](size_t at) -> uint32_t {
    return little ? tiff[at] | tiff[at + 1] << 8 : tiff[at] << 8 | tiff[at + 1];
  };
  const size_t ifd = little ? (u16(4) | u16(6) << 16) : (u16(4) << 16 | u16(6));
  if (ifd + 2 > size) return 1;
  const size_t entries = u16(ifd);
  for (size_t k = 0; k < entries && ifd + 2 + 12 * (k + 1) <= size; ++k) {
    const size_t e = ifd + 2 + 12 * k;
    if (u16(e) == 0x0112 && u16(e + 2) == 3) {
      const uint32_t v = u16(e + 8);
      return v >= 1 && v <= 8 ? v : 1;
    }
  }
  return 1;
}

}  // namespace

JpegInfo parse_jpeg_info(const uint8_t* data, size_t size) {
  JpegInfo info;
  if (data == nullptr || size < 4 || data[0] != 0xFF || data[1] != 0xD8) {
    return fail(info, "no SOI marker");
  }
  Sampling sampling;
  size_t pos = 2;
  while (pos < size) {
    if (data[pos] != 0xFF) {  // garbage between segments: tolerated, as libjpeg does
      ++pos;
      continue;
    }
    while (pos < size && data[pos] == 0xFF) ++pos;  // fill bytes
    if (pos >= size) break;
    const uint8_t marker = data[pos++];
    if (marker == 0xD9) {
      info.has_eoi = true;
      break;
    }
    if (marker == 0xD8) return fail(info, "second SOI marker");
    if (marker == 0x00 || is_standalone(marker)) continue;
    if (pos + 2 > size) return fail(info, "truncated marker segment");
    const uint32_t len = be16(data + pos);
    if (len < 2 || pos + len > size) return fail(info, "marker segment overruns the buffer");
    const uint8_t* payload = data + pos + 2;
    if (is_sof(marker)) {
      if (info.sof_marker == 0) {
        info.sof_marker = marker;
        info.coding = coding_of(marker);
        if (const char* why = read_sof(payload, len, &info, &sampling)) return fail(info, why);
        info.subsampling = classify(info.components, sampling);
      } else if (info.coding != JpegCoding::kHierarchicalHuffman &&
                 info.coding != JpegCoding::kHierarchicalArithmetic) {
        return fail(info, "more than one SOF marker");
      }
    } else if (marker == 0xE1) {  // APP1: Exif
      if (const uint32_t o = exif_orientation(payload, len - 2); o != 1) info.orientation = o;
    } else if (marker == 0xDD) {  // DRI
      if (len != 4) return fail(info, "DRI segment length is not 4");
      info.restart_interval = be16(payload);
    } else if (marker == 0xDA) {  // SOS
      if (info.sof_marker == 0) return fail(info, "SOS before SOF");
      const uint32_t ns = len >= 3 ? payload[0] : 0;
      if (ns == 0 || ns > 4 || len != 6 + 2 * ns) return fail(info, "malformed SOS segment");
      if (info.num_scans == 0) info.interleaved = ns == info.components;
      ++info.num_scans;
      pos = skip_entropy_data(data, size, pos + len);
      continue;
    }
    pos += len;
  }
  if (info.sof_marker == 0) return fail(info, "no SOF marker");
  if (info.num_scans == 0) return fail(info, "no SOS marker");
  info.valid = true;
  info.error = "";
  return info;
}

JpegdVerdict jpegd_accepts(const JpegInfo& info, const JpegdLimits& limits) {
  JpegdVerdict v;
  auto reject = [&v](JpegdReject r) {
    v.reject = r;
    return v;
  };
  if (!info.valid) return reject(JpegdReject::kInvalidStream);
  switch (info.coding) {
    case JpegCoding::kBaseline:
    case JpegCoding::kExtendedHuffman:
      break;
    case JpegCoding::kProgressiveHuffman:
      return reject(JpegdReject::kProgressive);
    case JpegCoding::kLosslessHuffman:
    case JpegCoding::kLosslessArithmetic:
      return reject(JpegdReject::kLossless);
    case JpegCoding::kHierarchicalHuffman:
    case JpegCoding::kHierarchicalArithmetic:
      return reject(JpegdReject::kHierarchical);
    case JpegCoding::kExtendedArithmetic:
    case JpegCoding::kProgressiveArithmetic:
      return reject(JpegdReject::kArithmetic);
    case JpegCoding::kUnknown:
      return reject(JpegdReject::kInvalidStream);
  }
  if (info.precision != 8) return reject(JpegdReject::kPrecision);
  switch (info.subsampling) {
    case Subsampling::k444:
    case Subsampling::k422:
    case Subsampling::k420:
    case Subsampling::kGray:
    case Subsampling::k440:
      break;
    case Subsampling::k411:
      if (!limits.accept_411) return reject(JpegdReject::kSubsampling);
      break;
    case Subsampling::kOther:
      return reject(JpegdReject::kSubsampling);
  }
  if (info.width < limits.min_width || info.height < limits.min_height) {
    return reject(JpegdReject::kTooSmall);
  }
  if (info.width > limits.max_width || info.height > limits.max_height) {
    return reject(JpegdReject::kTooLarge);
  }
  v.software_fallback = !info.interleaved || info.num_scans > 1;
  return v;
}

const char* to_string(JpegdReject reject) {
  switch (reject) {
    case JpegdReject::kNone:
      return "accepted";
    case JpegdReject::kInvalidStream:
      return "not a valid JPEG stream";
    case JpegdReject::kProgressive:
      return "progressive JPEG";
    case JpegdReject::kArithmetic:
      return "arithmetic-coded JPEG";
    case JpegdReject::kLossless:
      return "lossless JPEG";
    case JpegdReject::kHierarchical:
      return "hierarchical JPEG";
    case JpegdReject::kPrecision:
      return "sample precision is not 8 bits";
    case JpegdReject::kSubsampling:
      return "unsupported chroma subsampling or color components";
    case JpegdReject::kTooSmall:
      return "resolution below the JPEGD minimum";
    case JpegdReject::kTooLarge:
      return "resolution above the JPEGD maximum";
  }
  return "?";
}

const char* to_string(Subsampling subsampling) {
  switch (subsampling) {
    case Subsampling::k444:
      return "444";
    case Subsampling::k422:
      return "422";
    case Subsampling::k420:
      return "420";
    case Subsampling::kGray:
      return "400";
    case Subsampling::k440:
      return "440";
    case Subsampling::k411:
      return "411";
    case Subsampling::kOther:
      return "other";
  }
  return "?";
}

const char* to_string(JpegCoding coding) {
  switch (coding) {
    case JpegCoding::kUnknown:
      return "unknown";
    case JpegCoding::kBaseline:
      return "baseline";
    case JpegCoding::kExtendedHuffman:
      return "extended-huffman";
    case JpegCoding::kProgressiveHuffman:
      return "progressive";
    case JpegCoding::kLosslessHuffman:
      return "lossless";
    case JpegCoding::kHierarchicalHuffman:
      return "hierarchical";
    case JpegCoding::kExtendedArithmetic:
      return "arithmetic";
    case JpegCoding::kProgressiveArithmetic:
      return "progressive-arithmetic";
    case JpegCoding::kLosslessArithmetic:
      return "lossless-arithmetic";
    case JpegCoding::kHierarchicalArithmetic:
      return "hierarchical-arithmetic";
  }
  return "?";
}

}  // namespace acl_sim::imaging
