// VDEC time and memory from the profile (engines.vdec; ascgen/dsl/profile.py VdecEngine):
//   service_us = frame_us + per_block_us x ceil(w / block) x ceil(h / block)
// on one of `units` decoder cores, and per channel
//   channel_fixed_bytes + channel_frames x NV12 bytes of ALIGN(w, block) x ALIGN(h, block)
// of DVPP memory. Fitted on the documented 310 capacities (tools/vdec_fit,
// simulator/docs/vdec_time.md). A profile without engines.vdec gives 0 for both.
#ifndef ACL_SIM_SRC_VDEC_TIMING_H_
#define ACL_SIM_SRC_VDEC_TIMING_H_

#include <cstddef>
#include <cstdint>

namespace sim::vdec {

double service_us(uint32_t width, uint32_t height);
size_t channel_bytes(uint32_t width, uint32_t height);

}  // namespace sim::vdec

#endif  // ACL_SIM_SRC_VDEC_TIMING_H_
