// jpeg_decode (stages/jpeg_decode.j2): the start-up check that JPEGD can decode an input, read
// from the JPEG's header on the host; the output descriptors of the frames in flight.
// Emitted verbatim by ascgen into the programs that have such a stage; hand-written, reviewed once.
#ifndef ASCGEN_STAGES_JPEG_DECODE_H_
#define ASCGEN_STAGES_JPEG_DECODE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "ascgen_dvpp.h"
#include "ascgen_inputs.h"
#include "ascgen_pools.h"

namespace ascgen {

// `count` output descriptors, one per frame in flight (released by Cleanup).
inline std::vector<acldvppPicDesc*> new_pic_descs(const char* stage, int64_t count,
                                                  Cleanup& cleanup) {
  std::vector<acldvppPicDesc*> descs;
  for (int64_t k = 0; k < count; ++k) descs.push_back(new_pic_desc(stage, cleanup));
  return descs;
}

// What start-up needs of a JPEG's header, read on the host: no AscendCL call, so it works
// before the device is open (acldvppJpegGetImageInfo goes through the DVPP manager, which needs
// a device and a stream: ACL_FACTS 8, issue 27). `frame` is the frame marker (SOFn): 0xC0
// baseline, 0xC1 extended sequential, 0xC2 progressive, 0xC3 lossless, 0xC9.. arithmetic;
// `orientation` the EXIF Orientation tag (1..8; 1 when absent).
struct JpegHeader {
  std::string error;  // empty when the header was read
  int frame = 0;
  uint32_t width = 0, height = 0, components = 0;
  int orientation = 1;
};

// The Orientation tag (0x0112) of an APP1 Exif segment's first IFD; 1 when it has none.
inline int exif_orientation(const uint8_t* seg, size_t n) {
  static const uint8_t kExif[6] = {'E', 'x', 'i', 'f', 0, 0};
  if (n < 14 || std::memcmp(seg, kExif, 6) != 0) return 1;
  const uint8_t* tiff = seg + 6;
  const size_t size = n - 6;
  const bool little = tiff[0] == 'I' && tiff[1] == 'I';
  if (!little && !(tiff[0] == 'M' && tiff[1] == 'M')) return 1;
  auto u16 = [&](size_t at) -> uint32_t {
    return little ? tiff[at] | tiff[at + 1] << 8 : tiff[at] << 8 | tiff[at + 1];
  };
  auto u32 = [&](size_t at) -> size_t {
    return little ? u16(at) | u16(at + 2) << 16 : u16(at) << 16 | u16(at + 2);
  };
  const size_t ifd = u32(4);
  if (ifd + 2 > size) return 1;
  const size_t entries = u16(ifd);
  for (size_t k = 0; k < entries && ifd + 2 + 12 * (k + 1) <= size; ++k) {
    const size_t e = ifd + 2 + 12 * k;
    if (u16(e) == 0x0112 && u16(e + 2) == 3) {  // Orientation, SHORT
      const uint32_t v = u16(e + 8);
      return v >= 1 && v <= 8 ? static_cast<int>(v) : 1;
    }
  }
  return 1;
}

// Walks the markers from SOI to the first scan (SOS), as JPEG (ITU T.81 B.1) lays them out.
inline JpegHeader read_jpeg_header(const std::vector<uint8_t>& b) {
  JpegHeader h;
  if (b.size() < 4 || b[0] != 0xFF || b[1] != 0xD8) {
    h.error = "is not a JPEG (no SOI marker)";
    return h;
  }
  size_t p = 2;
  while (p + 4 <= b.size()) {
    if (b[p] != 0xFF) {
      h.error = "has a damaged header (no marker at byte " + std::to_string(p) + ")";
      return h;
    }
    const uint8_t m = b[p + 1];
    if (m == 0xFF) {  // fill byte
      ++p;
      continue;
    }
    if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {  // markers without a length
      p += 2;
      continue;
    }
    if (m == 0xDA || m == 0xD9) break;  // the scan, or the end
    const size_t len = static_cast<size_t>(b[p + 2]) << 8 | b[p + 3];
    if (len < 2 || p + 2 + len > b.size()) {
      h.error = "has a damaged header (a segment runs past the end of the file)";
      return h;
    }
    const uint8_t* seg = b.data() + p + 4;
    const size_t n = len - 2;
    if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC && h.frame == 0) {
      if (n < 6) {
        h.error = "has a damaged frame header";
        return h;
      }
      h.frame = m;
      h.height = static_cast<uint32_t>(seg[1]) << 8 | seg[2];
      h.width = static_cast<uint32_t>(seg[3]) << 8 | seg[4];
      h.components = seg[5];
    } else if (m == 0xE1) {
      const int o = exif_orientation(seg, n);
      if (o != 1) h.orientation = o;
    }
    p += 2 + len;
  }
  if (h.frame == 0) h.error = "has no frame header (SOFn) before its scan";
  return h;
}

// Refuses at start-up, naming the input, what JPEGD cannot decode (ACL_FACTS 4: Huffman
// sequential JPEGs only, no progressive or arithmetic coding, no CMYK; the device's size
// range) and what it would rotate (EXIF orientations 5..8: JPEGD applies the tag, so the
// picture comes out height x width, which the planned geometry does not follow; ACL_FACTS 8);
// fills in the picture's size, rounded down to even as JPEGD writes it.
inline void inspect_jpeg(const char* stage, Input& in, uint32_t min_w, uint32_t min_h,
                         uint32_t max_w, uint32_t max_h) {
  auto refuse = [&](const std::string& why) {
    throw std::runtime_error("stage '" + std::string(stage) + "': input '" + in.name + "' " + why);
  };
  const JpegHeader h = read_jpeg_header(in.bytes);
  if (!h.error.empty()) refuse(h.error);
  if (h.frame == 0xC2 || h.frame == 0xC6 || h.frame == 0xCA || h.frame == 0xCE)
    refuse("is a progressive JPEG; JPEGD decodes sequential (baseline) JPEGs only");
  if (h.frame != 0xC0 && h.frame != 0xC1)
    refuse("is not a Huffman sequential JPEG; JPEGD decodes no other kind");
  if (h.components == 4) refuse("is a CMYK JPEG; JPEGD decodes YUV and grey JPEGs only");
  if (h.components != 1 && h.components != 3)
    refuse("has " + std::to_string(h.components) + " components; JPEGD decodes grey and YUV JPEGs");
  in.width = h.width;
  in.height = h.height;
  const std::string size = std::to_string(in.width) + "x" + std::to_string(in.height);
  if (h.orientation >= 5)
    refuse("is " + size + " with EXIF orientation " + std::to_string(h.orientation) +
           ": JPEGD rotates it to " + std::to_string(in.height) + "x" + std::to_string(in.width) +
           " as it decodes, which this program's geometry does not follow; store the picture "
           "upright (for example exiftran -a) or remove the tag");
  if (in.width < min_w || in.height < min_h)
    refuse("is " + size + ", below JPEGD's minimum " + std::to_string(min_w) + "x" +
           std::to_string(min_h));
  if (in.width > max_w || in.height > max_h)
    refuse("is " + size + ", larger than the spec's decode max " + std::to_string(max_w) + "x" +
           std::to_string(max_h));
  // JPEGD writes NV12, whose width and height are even: an odd picture loses its last column
  // or row (ACL_FACTS 4, JPEGD output w/h), and every later stage sees the even size.
  in.width &= ~1u;
  in.height &= ~1u;
}

}  // namespace ascgen

#endif  // ASCGEN_STAGES_JPEG_DECODE_H_
