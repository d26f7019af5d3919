// ascgen_loadgen.cpp: the definitions of ascgen_loadgen.h (README.md: how they are compiled).

#include "ascgen_loadgen.h"

#include <sstream>

namespace ascgen::serving {

PriorityMix PriorityMix::parse(const std::string& text) {
  PriorityMix m;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ':')) {
    char* end = nullptr;
    const long w = std::strtol(part.c_str(), &end, 10);
    if (part.empty() || end == nullptr || *end != '\0' || w < 0 || w > 1000000)
      throw std::invalid_argument("'" + text + "': weights are whole numbers 0..1000000, e.g. 1:3");
    m.weights_.push_back(static_cast<uint64_t>(w));
    m.total_ += static_cast<uint64_t>(w);
  }
  if (m.weights_.empty() || m.total_ == 0 || m.weights_.size() > 16)
    throw std::invalid_argument("'" + text + "': give 1 to 16 weights, at least one above 0");
  return m;
}

}  // namespace ascgen::serving
