// ascgen_padding.cpp: what ascgen_padding.h declares (README.md: how it is compiled).

#include "ascgen_padding.h"

namespace ascgen::serving {

Shape request_shape(const Input& in) {
  return make_shape({static_cast<int64_t>(in.height), static_cast<int64_t>(in.width)});
}

size_t smallest_hw_gear(const HwGear* gears, size_t n, const Shape& padded) {
  for (size_t k = 0; k < n; ++k)
    if (gears[k].height >= padded.dims[0] && gears[k].width >= padded.dims[1]) return k;
  return n - 1;
}

size_t pack_padded(void* dst, size_t capacity, const std::vector<const Input*>& requests,
                   const HwGear& gear) {
  const size_t row = static_cast<size_t>(gear.width);
  const size_t item = static_cast<size_t>(gear.elements());
  if (requests.size() * item > capacity)
    throw std::runtime_error("padding: a batch of " + std::to_string(requests.size()) +
                             " at the gear does not fit its buffer");
  auto* out = static_cast<uint8_t*>(dst);
  for (const Input* in : requests) {
    const size_t width = in->width;
    for (int64_t y = 0; y < gear.height; ++y) {
      std::memcpy(out, in->bytes.data() + static_cast<size_t>(y) * width, width);
      std::memset(out + width, 0, row - width);
      out += row;
    }
  }
  return requests.size() * item;
}

size_t current_output_item_bytes(const char* stage, aclmdlDesc* desc, size_t max_bytes, int batch) {
  aclmdlIODims now{}, most{};
  check(aclmdlGetCurOutputDims(desc, 0, &now), stage, "aclmdlGetCurOutputDims");
  check(aclmdlGetOutputDims(desc, 0, &most), stage, "aclmdlGetOutputDims");
  int64_t n = 1, m = 1;
  for (size_t k = 0; k < now.dimCount; ++k) n *= now.dims[k];
  for (size_t k = 0; k < most.dimCount; ++k) m *= most.dims[k];
  if (n <= 0 || m <= 0 || n > m)
    throw std::runtime_error(std::string("stage '") + stage + "': the model's current output (" +
                             std::to_string(n) + " elements) is not within its largest (" +
                             std::to_string(m) + ")");
  return static_cast<size_t>(static_cast<int64_t>(max_bytes) * n / m) / static_cast<size_t>(batch);
}

}  // namespace ascgen::serving
