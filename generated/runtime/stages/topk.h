// topk (stages/topk.j2): the host's top-k of one frame's scores. No AscendCL here.
// Emitted verbatim by ascgen into programs with a topk stage; hand-written, reviewed once.
#ifndef ASCGEN_STAGES_TOPK_H_
#define ASCGEN_STAGES_TOPK_H_

#include <algorithm>
#include <cstdint>

namespace ascgen {

// Top-k of one frame's scores, folded into a checksum so the work cannot be optimised away.
inline uint64_t top_k_checksum(const float* scores, int n, int k) {
  int best[64];
  k = std::min(k, 64);
  int filled = 0;
  for (int i = 0; i < n; ++i) {
    if (filled == k && !(scores[i] > scores[best[k - 1]])) continue;
    int pos = filled < k ? filled++ : k - 1;
    while (pos > 0 && scores[i] > scores[best[pos - 1]]) {
      best[pos] = best[pos - 1];
      --pos;
    }
    best[pos] = i;
  }
  uint64_t sum = 0;
  for (int i = 0; i < filled; ++i) sum = sum * 31 + static_cast<uint64_t>(best[i]);
  return sum;
}

}  // namespace ascgen

#endif  // ASCGEN_STAGES_TOPK_H_
