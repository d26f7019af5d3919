// assemble (stages/assemble.j2): a batch put together on the device, frame by frame.
// Emitted verbatim by ascgen into the programs that have such a stage; hand-written, reviewed once.
#ifndef ASCGEN_STAGES_ASSEMBLE_H_
#define ASCGEN_STAGES_ASSEMBLE_H_

#include <cstddef>
#include <cstdint>

#include "ascgen_pools.h"

namespace ascgen {

// Copies frame i of batch b into its place in the batch slot (batch assembly by copy).
inline void copy_into_batch(const char* stage, const Pool& batch, int64_t b, int64_t i,
                            const void* frame, size_t frame_bytes, aclrtStream stream) {
  const size_t offset = static_cast<size_t>(i) * frame_bytes;
  uint8_t* dst = static_cast<uint8_t*>(batch.slot(b)) + offset;
  check(aclrtMemcpyAsync(dst, batch.slot_bytes() - offset, frame, frame_bytes,
                         ACL_MEMCPY_DEVICE_TO_DEVICE, stream),
        stage, "aclrtMemcpyAsync");
}

}  // namespace ascgen

#endif  // ASCGEN_STAGES_ASSEMBLE_H_
