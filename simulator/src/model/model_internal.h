// Internal types of the model API (model_api.cpp, model_desc.cpp).
#ifndef ACL_SIM_SRC_MODEL_INTERNAL_H_
#define ACL_SIM_SRC_MODEL_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "acl/acl_base.h"
#include "model/model_file.h"

// Must stay token-identical to the definition in data_buffer.cpp (the runtime
// core owns aclDataBuffer; the model API only reads it).
struct aclDataBuffer {
  void* data;
  size_t size;
};

struct aclmdlDataset {
  std::vector<aclDataBuffer*> buffers;  // not owned
  // aclmdlSetDynamicBatchSize's gear for the next execute of a dynamic model (0: none set); an
  // execute consumes it.
  mutable uint32_t dynamic_batch = 0;
  // aclmdlSetDynamicHWSize's gear for the next execute of a dynamic-HW model (0: none set); an
  // execute consumes it.
  mutable uint64_t dynamic_h = 0, dynamic_w = 0;
};

struct aclmdlDesc {
  bool filled = false;  // aclmdlGetDesc succeeded
  uint32_t model_id = 0;
  sim::ModelFile file;
};

namespace sim {

// The simulated model's outputs (documented in simulator/README.md): the input
// and the output are split into `batch` equal items; output item k is a
// function of input item k's bytes alone: seed = ash64(item, seed 0), then
// splitmix64 from that seed, each 64-bit draw z giving the little-endian
// float32 (z >> 40) / 2^24 in [0, 1).
void model_outputs(const void* input, size_t input_bytes, void* output, size_t output_bytes,
                   uint32_t batch);

// Live objects for the leak report at aclFinalize (leak.cpp): models loaded
// since aclInit, and model descriptors and datasets not yet destroyed.
size_t live_models();
long live_model_descs();
long live_datasets();

// The descriptor of a loaded model; false if `modelId` is not loaded.
bool model_file_of(uint32_t modelId, ModelFile* out);

// The HW gear aclmdlSetDynamicHWSize set last for the model (what aclmdlGetCurOutputDims
// reports, HIA aclcppdevg_03_1466); false when none was set or the model is not loaded.
void set_current_hw(uint32_t modelId, uint64_t h, uint64_t w);
bool current_hw(uint32_t modelId, uint64_t* h, uint64_t* w);

}  // namespace sim

#endif  // ACL_SIM_SRC_MODEL_INTERNAL_H_
