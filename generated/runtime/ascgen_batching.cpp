// ascgen_batching.cpp: what ascgen_batching.h declares (README.md: how it is compiled).

#include "ascgen_batching.h"

namespace ascgen::serving {

Shape make_shape(std::initializer_list<int64_t> dims) {
  if (dims.size() > static_cast<size_t>(kMaxRank))
    throw std::invalid_argument("a request shape has at most 4 dimensions");
  Shape s;
  for (int64_t d : dims) s.dims[s.rank++] = d;
  return s;
}

bool padding_acceptable(int64_t padded_elements, int64_t smallest_elements) {
  return padded_elements - smallest_elements <= kPaddingAbsoluteElements ||
         2 * smallest_elements >= padded_elements;
}

void scale_durations(BatcherConfig* config, double factor) {
  auto scaled = [factor](int64_t us) {
    const double v = static_cast<double>(us) * factor;
    return v >= static_cast<double>(kMaxDurationUs) ? kMaxDurationUs : static_cast<int64_t>(v);
  };
  config->max_queue_delay_us = scaled(config->max_queue_delay_us);
  for (QueuePolicy& p : config->policies) p.default_timeout_us = scaled(p.default_timeout_us);
}

const char* batch_reason_name(BatchReason r) {
  switch (r) {
    case BatchReason::kMaxBatch:
      return "max_batch";
    case BatchReason::kPreferred:
      return "preferred";
    case BatchReason::kDelayExpired:
      return "delay_expired";
    case BatchReason::kShapeBreak:
      return "shape_break";
    case BatchReason::kFlush:
      return "flush";
  }
  return "?";
}

}  // namespace ascgen::serving
