// ascgen_padding.h: requests of their own width (source format raw) on a model with dynamic
// height/width gears (ATC --dynamic_image_size; the model stage's hw_gears): each request is a
// uint8 tensor of the gears' height and its own width, row after row; a batch (merged under
// the padding rule, ascgen_batcher.h) runs at the smallest gear holding its widest request,
// each request zero-padded on the right to the gear's width, the items packed one after the
// other from the start of the model's input (what the model reads at that gear).
// Emitted verbatim by ascgen into servers; hand-written, reviewed once.
#ifndef ASCGEN_PADDING_H_
#define ASCGEN_PADDING_H_

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "ascgen_acl.h"
#include "ascgen_batcher.h"
#include "ascgen_inputs.h"

namespace ascgen::serving {

// One (height, width) gear of the model, as the spec's hw_gears list them (ascending).
struct HwGear {
  int64_t height;
  int64_t width;
  int64_t elements() const { return height * width; }
};

// A raw request's shape for the batcher: {height, width}.
Shape request_shape(const Input& in);

// The index of the smallest of `n` gears holding `padded` ({height, width}); the gears ascend
// in both, so the first that holds it. The requests were checked against the largest at start-up.
size_t smallest_hw_gear(const HwGear* gears, size_t n, const Shape& padded);

template <size_t N>
size_t hw_gear_for(const HwGear (&gears)[N], const Shape& padded) {
  return smallest_hw_gear(gears, N, padded);
}

// Start-up check of one raw request file: a whole number of rows of the gears' height, no
// wider than the largest gear (what the model cannot run is refused, never cut); sets its
// width and height.
template <size_t N>
void inspect_raw_request(const char* stage, Input& in, const HwGear (&gears)[N]) {
  const int64_t height = gears[N - 1].height, widest = gears[N - 1].width;
  const int64_t bytes = static_cast<int64_t>(in.bytes.size());
  const int64_t width = bytes / height;
  std::string why;
  if (bytes == 0 || bytes % height != 0)
    why = std::to_string(bytes) + " bytes are not whole rows of a tensor " +
          std::to_string(height) + " high (uint8, row after row)";
  else if (width > widest)
    why = "it is " + std::to_string(width) + " wide, wider than the model's largest gear (" +
          std::to_string(height) + "x" + std::to_string(widest) +
          "); resize it or compile the model with a wider gear";
  if (!why.empty())
    throw std::runtime_error("stage '" + std::string(stage) + "': input '" + in.name + "': " + why);
  in.width = static_cast<uint32_t>(width);
  in.height = static_cast<uint32_t>(height);
}

// Packs the batch's requests into `dst` (pinned host memory of `capacity` bytes) at `gear`:
// item k at k * gear elements, each row the request's then zeros to the gear's width. Returns
// the bytes written (the batch's items at the gear), which the upload copies.
size_t pack_padded(void* dst, size_t capacity, const std::vector<const Input*>& requests,
                   const HwGear& gear);

// The model's input for its (height, width) gear, after checking that the model lists exactly
// the spec's gears (aclmdlGetDynamicHW; its index is reserved, -1).
template <size_t N>
size_t dynamic_hw_input(const char* stage, aclmdlDesc* desc, const HwGear (&gears)[N]) {
  aclmdlHW got{};
  check(aclmdlGetDynamicHW(desc, static_cast<size_t>(-1), &got), stage, "aclmdlGetDynamicHW");
  bool same = got.hwCount == N;
  for (size_t k = 0; same && k < N; ++k)
    same = got.hw[k][0] == static_cast<uint64_t>(gears[k].height) &&
           got.hw[k][1] == static_cast<uint64_t>(gears[k].width);
  if (!same)
    throw std::runtime_error(std::string("stage '") + stage + "': the model has " +
                             std::to_string(got.hwCount) + " height/width gears, not the spec's " +
                             std::to_string(N) +
                             " (hw_gears); compile it with them or correct the spec");
  size_t index = 0;
  check(aclmdlGetInputIndexByName(desc, ACL_DYNAMIC_TENSOR_NAME, &index), stage,
        "aclmdlGetInputIndexByName");
  return index;
}

// One item's bytes of output 0 at the gear aclmdlSetDynamicHWSize set last: an output that
// follows the gear (a CRNN's time steps follow the width) has the current shape that
// aclmdlGetCurOutputDims gives (HIA aclcppdevg_03_1466: after aclmdlSetDynamicHWSize it
// outputs the runtime shape), so one item's bytes are the largest size's share by elements.
size_t current_output_item_bytes(const char* stage, aclmdlDesc* desc, size_t max_bytes, int batch);

}  // namespace ascgen::serving

#endif  // ASCGEN_PADDING_H_
