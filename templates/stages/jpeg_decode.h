// jpeg_decode (stages/jpeg_decode.j2): the start-up check that JPEGD can decode an input.
// Emitted verbatim by ascgen into the programs that have such a stage; hand-written, reviewed once.
#ifndef ASCGEN_STAGES_JPEG_DECODE_H_
#define ASCGEN_STAGES_JPEG_DECODE_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "ascgen_dvpp.h"
#include "ascgen_inputs.h"

namespace ascgen {

// The frame marker (SOFn) of a JPEG: 0xC0 baseline, 0xC1 extended sequential, 0xC2
// progressive, 0xC3 lossless, 0xC9.. arithmetic coding; 0 if there is none before the scan.
inline int jpeg_frame_marker(const std::vector<uint8_t>& b) {
  if (b.size() < 4 || b[0] != 0xFF || b[1] != 0xD8) return 0;
  size_t p = 2;
  while (p + 4 <= b.size() && b[p] == 0xFF) {
    const uint8_t m = b[p + 1];
    if (m == 0xFF) {  // fill byte
      ++p;
      continue;
    }
    if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) return m;
    if (m == 0xDA || m == 0xD9) return 0;  // the scan, or the end, before any frame header
    p += 2 + (static_cast<size_t>(b[p + 2]) << 8 | b[p + 3]);
  }
  return 0;
}

// Refuses at start-up, naming the input, what JPEGD cannot decode (ACL_FACTS 4: Huffman
// sequential JPEGs only, no progressive or arithmetic coding, no CMYK; the device's size
// range); fills in the picture's size, rounded down to even as JPEGD writes it.
inline void inspect_jpeg(const char* stage, Input& in, uint32_t min_w, uint32_t min_h,
                         uint32_t max_w, uint32_t max_h) {
  auto refuse = [&](const std::string& why) {
    throw std::runtime_error("stage '" + std::string(stage) + "': input '" + in.name + "' " + why);
  };
  int32_t components = 0;
  const aclError ret = acldvppJpegGetImageInfo(
      in.bytes.data(), static_cast<uint32_t>(in.bytes.size()), &in.width, &in.height, &components);
  if (ret != ACL_SUCCESS)
    refuse("cannot be read: acldvppJpegGetImageInfo failed with error " + std::to_string(ret));
  const int marker = jpeg_frame_marker(in.bytes);
  if (marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE)
    refuse("is a progressive JPEG; JPEGD decodes sequential (baseline) JPEGs only");
  if (marker != 0xC0 && marker != 0xC1)
    refuse("is not a Huffman sequential JPEG; JPEGD decodes no other kind");
  if (components == 4) refuse("is a CMYK JPEG; JPEGD decodes YUV and grey JPEGs only");
  const std::string size = std::to_string(in.width) + "x" + std::to_string(in.height);
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
