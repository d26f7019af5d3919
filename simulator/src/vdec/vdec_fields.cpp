// Field pictures of an H.264 stream (vdec_fields.h).
#include "vdec/vdec_fields.h"

#include <vector>

namespace sim::vdec {

namespace {

// An RBSP's bits (emulation prevention already removed); reads past the end give zeros.
class BitReader {
 public:
  BitReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint32_t u(uint32_t bits) {
    uint32_t v = 0;
    for (uint32_t k = 0; k < bits; ++k) v = (v << 1) | bit();
    return v;
  }
  uint32_t ue() {
    uint32_t zeros = 0;
    while (bit() == 0 && zeros < 32) ++zeros;
    return zeros == 0 ? 0 : (1u << zeros) - 1 + u(zeros);
  }
  int32_t se() {
    const uint32_t k = ue();
    return (k & 1) != 0 ? static_cast<int32_t>((k + 1) / 2) : -static_cast<int32_t>(k / 2);
  }

 private:
  uint32_t bit() {
    if (pos_ >= size_ * 8) return 0;
    const uint32_t b = (data_[pos_ / 8] >> (7 - pos_ % 8)) & 1u;
    ++pos_;
    return b;
  }
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// A scaling list, skipped (7.3.2.1.1.1).
void skip_scaling_list(BitReader& r, int size) {
  int last = 8, next = 8;
  for (int j = 0; j < size; ++j) {
    if (next != 0) next = (last + r.se() + 256) % 256;
    last = next == 0 ? last : next;
  }
}

// The NAL unit's payload without its emulation prevention bytes (at most `limit` bytes: the
// headers read here are short).
std::vector<uint8_t> rbsp_of(const uint8_t* p, size_t n, size_t limit) {
  std::vector<uint8_t> out;
  int zeros = 0;
  for (size_t i = 0; i < n && out.size() < limit; ++i) {
    if (zeros >= 2 && p[i] == 3) {
      zeros = 0;
      continue;
    }
    out.push_back(p[i]);
    zeros = p[i] == 0 ? zeros + 1 : 0;
  }
  return out;
}

bool high_profile(uint32_t profile) {
  switch (profile) {
    case 100:
    case 110:
    case 122:
    case 244:
    case 44:
    case 83:
    case 86:
    case 118:
    case 128:
    case 138:
    case 139:
    case 134:
    case 135:
      return true;
    default:
      return false;
  }
}

}  // namespace

void FieldParser::read_sps(const uint8_t* rbsp, size_t size) {
  BitReader r(rbsp, size);
  const uint32_t profile = r.u(8);
  r.u(16);  // constraint flags, level_idc
  r.ue();   // seq_parameter_set_id
  separate_planes_ = false;
  if (high_profile(profile)) {
    const uint32_t chroma = r.ue();
    if (chroma == 3) separate_planes_ = r.u(1) != 0;
    r.ue();  // bit_depth_luma_minus8
    r.ue();  // bit_depth_chroma_minus8
    r.u(1);  // qpprime_y_zero_transform_bypass_flag
    if (r.u(1) != 0)
      for (int i = 0; i < (chroma != 3 ? 8 : 12); ++i)
        if (r.u(1) != 0) skip_scaling_list(r, i < 6 ? 16 : 64);
  }
  frame_num_bits_ = r.ue() + 4;
  const uint32_t poc_type = r.ue();
  if (poc_type == 0) {
    r.ue();
  } else if (poc_type == 1) {
    r.u(1);
    r.se();
    r.se();
    const uint32_t cycle = r.ue();
    for (uint32_t i = 0; i < cycle && i < 256; ++i) r.se();
  }
  r.ue();  // max_num_ref_frames
  r.u(1);  // gaps_in_frame_num_value_allowed_flag
  r.ue();  // pic_width_in_mbs_minus1
  r.ue();  // pic_height_in_map_units_minus1
  frame_mbs_only_ = r.u(1) != 0;
  known_ = true;
}

bool FieldParser::read_slice(const uint8_t* rbsp, size_t size) const {
  if (!known_ || frame_mbs_only_) return false;
  BitReader r(rbsp, size);
  r.ue();  // first_mb_in_slice
  r.ue();  // slice_type
  r.ue();  // pic_parameter_set_id
  if (separate_planes_) r.u(2);
  r.u(frame_num_bits_);
  return r.u(1) != 0;  // field_pic_flag
}

bool FieldParser::field_picture(const uint8_t* data, size_t size) {
  for (size_t i = 0; i + 3 < size; ++i) {
    if (data[i] != 0 || data[i + 1] != 0 || data[i + 2] != 1) continue;
    const size_t p = i + 3;
    size_t end = p;
    while (end + 2 < size && !(data[end] == 0 && data[end + 1] == 0 && data[end + 2] <= 1)) ++end;
    if (end + 2 >= size) end = size;
    const int type = data[p] & 0x1F;
    if (type == 7) {
      const std::vector<uint8_t> rbsp = rbsp_of(data + p + 1, end - p - 1, 256);
      read_sps(rbsp.data(), rbsp.size());
    } else if (type == 1 || type == 5) {
      const std::vector<uint8_t> rbsp = rbsp_of(data + p + 1, end - p - 1, 32);
      return read_slice(rbsp.data(), rbsp.size());  // the first slice says it for the picture
    }
    i = end - 1;
  }
  return false;
}

}  // namespace sim::vdec
