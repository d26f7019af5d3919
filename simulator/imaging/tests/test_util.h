// Helpers shared by the imaging unit tests: synthetic pictures and JPEGs made
// with libturbojpeg's encoder, so the tests need no data files.
#pragma once

#include <cstdint>
#include <vector>

#include "acl_sim/imaging/nv12.h"

namespace acl_sim::imaging::test {

// A smooth RGB test card (gradients plus a low-frequency pattern).
std::vector<uint8_t> make_rgb(int width, int height);

// JPEG of make_rgb (or a solid colour) with a TJSAMP_* subsampling and TJFLAG_* flags.
std::vector<uint8_t> make_jpeg(int width, int height, int tj_subsamp, int tj_flags = 0,
                               int quality = 95);
std::vector<uint8_t> make_solid_jpeg(int width, int height, uint8_t r, uint8_t g, uint8_t b,
                                     int tj_subsamp);

// A header-only baseline stream: SOI, SOF0 with the given size and 3 components
// sampled 2x2/1x1/1x1, an empty SOS, EOI. Enough for parse_jpeg_info.
std::vector<uint8_t> make_header_only(uint32_t width, uint32_t height, uint8_t sof = 0xC0,
                                      uint8_t precision = 8);

// Offset of the first byte after the marker FF xx (its length field), or 0.
size_t find_marker(const std::vector<uint8_t>& jpeg, uint8_t marker);

// An NV12 frame with a deterministic pattern in the picture and `pad` in the padding.
Nv12Image make_nv12(uint32_t w, uint32_t h, uint32_t ws, uint32_t hs, uint32_t seed,
                    uint8_t pad = 0xEE);

}  // namespace acl_sim::imaging::test
