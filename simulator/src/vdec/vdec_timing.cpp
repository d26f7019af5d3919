// The VDEC time and memory model (vdec_timing.h).
#include "vdec/vdec_timing.h"

#include "core/task.h"

namespace sim::vdec {
namespace {

double tiles(uint32_t v, double block) {
  return block > 0 ? static_cast<double>((v + static_cast<uint32_t>(block) - 1) /
                                         static_cast<uint32_t>(block))
                   : 0.0;
}

}  // namespace

double service_us(uint32_t width, uint32_t height) {
  const double block = engine_param(Engine::kVdec, "block");
  return engine_param(Engine::kVdec, "frame_us") +
         engine_param(Engine::kVdec, "per_block_us") * tiles(width, block) * tiles(height, block);
}

size_t channel_bytes(uint32_t width, uint32_t height) {
  const double block = engine_param(Engine::kVdec, "block");
  const double frame = tiles(width, block) * block * tiles(height, block) * block * 1.5;
  return static_cast<size_t>(engine_param(Engine::kVdec, "channel_fixed_bytes") +
                             engine_param(Engine::kVdec, "channel_frames") * frame);
}

}  // namespace sim::vdec
