// JPEG header inspection for the simulated DVPP JPEG decoder (JPEGD).
//
// parse_jpeg_info() is our own marker walker: it reads SOI, every SOFn, DHT/DAC,
// DRI, SOS (skipping the entropy-coded data that follows) up to EOI, and never
// decodes pixels. jpegd_accepts() then applies the JPEGD input rules of
// ACL_FACTS.md section 4 with the limits passed in, so the API layer can map a
// rejection to ACL_ERROR_UNSUPPORTED_JPEG (148052) or ACL_ERROR_INVALID_PARAM.
#pragma once

#include <cstddef>
#include <cstdint>

namespace acl_sim::imaging {

// Chroma subsampling. The values equal acldvppJpegFormat (ACL_JPEG_CSS_444 = 0,
// 422 = 1, 420 = 2, GRAY = 3, 440 = 4, 411 = 5, UNKNOWN = 1000), so the API layer
// can cast instead of mapping.
enum class Subsampling : int32_t {
  k444 = 0,
  k422 = 1,
  k420 = 2,
  kGray = 3,  // one component ("400")
  k440 = 4,
  k411 = 5,
  kOther = 1000,  // CMYK/YCCK, unusual sampling factors, or no SOF seen
};

// The coding process named by the SOF marker.
enum class JpegCoding : uint8_t {
  kUnknown = 0,
  kBaseline,                // SOF0
  kExtendedHuffman,         // SOF1
  kProgressiveHuffman,      // SOF2
  kLosslessHuffman,         // SOF3
  kHierarchicalHuffman,     // SOF5..SOF7 (differential)
  kExtendedArithmetic,      // SOF9
  kProgressiveArithmetic,   // SOF10
  kLosslessArithmetic,      // SOF11
  kHierarchicalArithmetic,  // SOF13..SOF15
};

struct JpegInfo {
  bool valid = false;      // SOI, one SOF and at least one SOS, all segments in bounds
  const char* error = "";  // why valid is false (static string), "" when valid
  uint32_t width = 0;      // from the SOF (the DNL form, height 0, is reported invalid)
  uint32_t height = 0;
  uint32_t components = 0;  // Nf of the SOF
  uint32_t precision = 0;   // sample bits (8 or 12 for DCT, 2..16 lossless)
  Subsampling subsampling = Subsampling::kOther;
  JpegCoding coding = JpegCoding::kUnknown;
  uint32_t sof_marker = 0;        // 0xC0..0xCF, 0 when absent
  uint32_t num_scans = 0;         // SOS segments
  bool interleaved = false;       // the first scan carries every component
  bool has_eoi = false;           // false: truncated or trailing garbage before EOI
  uint32_t restart_interval = 0;  // DRI, 0 when absent
  // EXIF Orientation (tag 0x0112 of an APP1 Exif segment's first IFD): 1..8, 1 when absent.
  // 5..8 turn the picture a quarter: it is height x width upright.
  uint32_t orientation = 1;
};

// Walks the markers of `data`. Never reads outside [data, data + size).
JpegInfo parse_jpeg_info(const uint8_t* data, size_t size);

// Input rules of the hardware decoder; defaults are the Ascend 310 ones.
struct JpegdLimits {
  uint32_t min_width = 32;
  uint32_t min_height = 32;
  uint32_t max_width = 8192;
  uint32_t max_height = 8192;
  bool accept_411 = false;  // 310 JPEGD: 444/422/420/400/440 only
};

enum class JpegdReject : uint8_t {
  kNone = 0,
  kInvalidStream,  // not a parsable JPEG (the API layer: ACL_ERROR_INVALID_PARAM)
  kProgressive,    // SOF2 / SOF10
  kArithmetic,     // SOF9..SOF15
  kLossless,       // SOF3 / SOF11
  kHierarchical,   // SOF5..SOF7 / SOF13..SOF15
  kPrecision,      // not 8-bit samples
  kSubsampling,    // 411, CMYK, unusual sampling factors
  kTooSmall,       // width or height below the minimum
  kTooLarge,       // width or height above the maximum
};

struct JpegdVerdict {
  JpegdReject reject = JpegdReject::kNone;
  // Accepted but decoded by the software fallback on the AI CPU (~15 fps at
  // 1080p on the 310): a non-interleaved sequential stream (one SOS per
  // component, "3-SOS"). Only meaningful when accepted().
  bool software_fallback = false;
  bool accepted() const { return reject == JpegdReject::kNone; }
};

JpegdVerdict jpegd_accepts(const JpegInfo& info, const JpegdLimits& limits);

// Short English text for logs and error messages, e.g. "progressive JPEG".
const char* to_string(JpegdReject reject);
const char* to_string(Subsampling subsampling);
const char* to_string(JpegCoding coding);

}  // namespace acl_sim::imaging
