// Which H.264 access units are field pictures (PAFF: each field of an interlaced frame coded as
// a picture of its own, sent as an access unit of its own). VDEC V1 answers the first field of
// a pair with result code 0x20000 and no picture, normal, and the frame comes with the second
// (HA canncommercial/601 aclcppdevg_03_0208; ACL_FACTS 8); the channel needs to know which
// units are fields, before and apart from the decode (which the content cache may skip).
//
// Read from the headers (ITU-T H.264 7.3.2.1.1 and 7.3.3): the sequence parameter set's
// frame_mbs_only_flag (and what its position depends on), then the slice header's
// field_pic_flag. H.265 field coding sends each field as a picture VDEC outputs: never a field
// here.
#ifndef ACL_SIM_SRC_VDEC_FIELDS_H_
#define ACL_SIM_SRC_VDEC_FIELDS_H_

#include <cstddef>
#include <cstdint>

namespace sim::vdec {

class FieldParser {
 public:
  // True when the access unit's picture is a field (field_pic_flag 1); reads the parameter sets
  // it carries first.
  bool field_picture(const uint8_t* data, size_t size);

 private:
  void read_sps(const uint8_t* rbsp, size_t size);
  bool read_slice(const uint8_t* rbsp, size_t size) const;
  bool known_ = false;            // a sequence parameter set was read
  bool frame_mbs_only_ = true;    // no field can occur
  bool separate_planes_ = false;  // separate_colour_plane_flag: colour_plane_id in slices
  uint32_t frame_num_bits_ = 4;   // log2_max_frame_num
};

}  // namespace sim::vdec

#endif  // ACL_SIM_SRC_VDEC_FIELDS_H_
