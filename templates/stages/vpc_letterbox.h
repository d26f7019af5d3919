// vpc_letterbox (stages/vpc_letterbox.j2): where a picture lands in its letterbox (the crop and
// paste areas of each input), and the canvas painted around it.
// Emitted verbatim by ascgen into the programs that have such a stage; hand-written, reviewed once.
#ifndef ASCGEN_STAGES_VPC_LETTERBOX_H_
#define ASCGEN_STAGES_VPC_LETTERBOX_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ascgen_dvpp.h"
#include "ascgen_inputs.h"

namespace ascgen {

// Where a w x h picture lands in an out_w x out_h letterbox: scaled to fit, aspect ratio
// kept, centred; DVPP ROIs have even left/top and odd right/bottom and are at least 10x6
// (ACL_FACTS 4, crop / paste ROI), and a paste area's left offset is a multiple of
// `left_align` (16 on the 310, 910 and 310P: ACL_FACTS 8, aclcppdevg_03_0345). The offset is
// rounded down, so the picture keeps its size and stays inside the output.
struct LetterboxArea {
  uint32_t left, right, top, bottom;
};

inline LetterboxArea letterbox_area(uint32_t w, uint32_t h, uint32_t out_w, uint32_t out_h,
                                    uint32_t left_align) {
  const double scale = std::min(static_cast<double>(out_w) / w, static_cast<double>(out_h) / h);
  auto even = [](double v, uint32_t lo, uint32_t hi) {
    uint32_t e = static_cast<uint32_t>(v) & ~1u;
    return std::min(std::max(e, lo), hi);
  };
  const uint32_t pw = even(w * scale, 10, out_w & ~1u), ph = even(h * scale, 6, out_h & ~1u);
  const uint32_t step = left_align % 2 == 0 ? left_align : 2 * left_align;  // and even
  const uint32_t left = (out_w - pw) / 2 / step * step, top = ((out_h - ph) / 2) & ~1u;
  return {left, left + pw - 1, top, top + ph - 1};
}

// Per input, its whole picture as a crop area (right and bottom odd, as letterbox_area's).
inline std::vector<acldvppRoiConfig*> whole_picture_rois(const char* stage,
                                                         const std::vector<Input>& inputs,
                                                         Cleanup& cleanup) {
  std::vector<acldvppRoiConfig*> rois;
  for (const Input& in : inputs)
    rois.push_back(new_roi(stage, 0, (in.width - 1) | 1u, 0, (in.height - 1) | 1u, cleanup));
  return rois;
}

// Per input, where its picture lands in `frame` (letterbox_area) as a paste area.
inline std::vector<acldvppRoiConfig*> letterbox_rois(const char* stage,
                                                     const std::vector<Input>& inputs,
                                                     const Picture& frame, uint32_t left_align,
                                                     Cleanup& cleanup) {
  std::vector<acldvppRoiConfig*> rois;
  for (const Input& in : inputs) {
    const LetterboxArea a =
        letterbox_area(in.width, in.height, frame.width, frame.height, left_align);
    rois.push_back(new_roi(stage, a.left, a.right, a.top, a.bottom, cleanup));
  }
  return rois;
}

// Paints a picture's canvas one colour: luma plane, then the interleaved chroma plane.
inline void fill_canvas(const char* stage, acldvppPicDesc* desc, const Picture& picture,
                        int32_t luma, int32_t chroma, aclrtStream stream) {
  uint8_t* data = static_cast<uint8_t*>(acldvppGetPicDescData(desc));
  const size_t luma_bytes = static_cast<size_t>(picture.width_stride) * picture.height_stride;
  check(aclrtMemsetAsync(data, luma_bytes, luma, luma_bytes, stream), stage, "aclrtMemsetAsync");
  check(aclrtMemsetAsync(data + luma_bytes, picture.bytes - luma_bytes, chroma,
                         picture.bytes - luma_bytes, stream),
        stage, "aclrtMemsetAsync");
}

}  // namespace ascgen

#endif  // ASCGEN_STAGES_VPC_LETTERBOX_H_
