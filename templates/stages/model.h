// model (stages/model.j2): datasets over the pools' slots, the model's sizes checked against
// the plan, dynamic batch gears, and pattern inputs for a model without an upload stage.
// Emitted verbatim by ascgen into the programs that have such a stage; hand-written, reviewed once.
#ifndef ASCGEN_STAGES_MODEL_H_
#define ASCGEN_STAGES_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ascgen_inputs.h"
#include "ascgen_pools.h"

namespace ascgen {

// Loads the model file at `path` into `model` and its description into `desc` (both released
// by Cleanup, the description first).
inline void load_model_file(const char* stage, const std::string& path, uint32_t& model,
                            aclmdlDesc*& desc, Cleanup& cleanup) {
  ASCGEN_CHECK(stage, aclmdlLoadFromFile(path.c_str(), &model));
  cleanup.add("aclmdlUnload", [id = model] { return aclmdlUnload(id); });
  desc = require(aclmdlCreateDesc(), stage, "aclmdlCreateDesc");
  cleanup.add("aclmdlDestroyDesc", [d = desc] { return aclmdlDestroyDesc(d); });
  ASCGEN_CHECK(stage, aclmdlGetDesc(desc, model));
}

// A dataset of one buffer; the dataset and its buffer descriptor are released by Cleanup.
inline aclmdlDataset* new_dataset(const char* stage, void* data, size_t bytes, Cleanup& cleanup) {
  aclmdlDataset* set = require(aclmdlCreateDataset(), stage, "aclmdlCreateDataset");
  cleanup.add("aclmdlDestroyDataset", [set] { return aclmdlDestroyDataset(set); });
  aclDataBuffer* buf = require(aclCreateDataBuffer(data, bytes), stage, "aclCreateDataBuffer");
  cleanup.add("aclDestroyDataBuffer", [buf] { return aclDestroyDataBuffer(buf); });
  check(aclmdlAddDatasetBuffer(set, buf), stage, "aclmdlAddDatasetBuffer");
  return set;
}

// One dataset per slot of `pool`, over the slot's first `bytes` (in slot order).
inline std::vector<aclmdlDataset*> slot_datasets(const char* stage, const Pool& pool, size_t bytes,
                                                 Cleanup& cleanup) {
  std::vector<aclmdlDataset*> sets;
  for (int slot = 0; slot < pool.slots(); ++slot)
    sets.push_back(new_dataset(stage, pool.slot(slot), bytes, cleanup));
  return sets;
}

// A model with dynamic batch gears: checks that it was compiled with `gears` (ATC's
// --dynamic_batch_size) and returns the index of its ascend_mbatch_shape_data input (ACL_FACTS
// 5, "Dynamic batch").
inline size_t dynamic_batch_input(const char* stage, aclmdlDesc* desc, const int* gears, size_t n) {
  aclmdlBatch got{};
  check(aclmdlGetDynamicBatch(desc, &got), stage, "aclmdlGetDynamicBatch");
  bool same = got.batchCount == n;
  for (size_t k = 0; same && k < n; ++k) same = got.batch[k] == static_cast<uint64_t>(gears[k]);
  if (!same)
    throw std::runtime_error(std::string("stage '") + stage + "': the model has " +
                             std::to_string(got.batchCount) +
                             " dynamic batch gears, not the spec's " + std::to_string(n) +
                             " (gears); compile it with them or correct the spec");
  size_t index = 0;
  check(aclmdlGetInputIndexByName(desc, ACL_DYNAMIC_TENSOR_NAME, &index), stage,
        "aclmdlGetInputIndexByName");
  return index;
}
template <size_t N>
size_t dynamic_batch_input(const char* stage, aclmdlDesc* desc, const int (&gears)[N]) {
  return dynamic_batch_input(stage, desc, gears, N);
}

// Adds the dynamic batch input's buffer (device memory the program does not write) to an
// input dataset of one buffer (new_dataset), so at index 1; released by Cleanup.
inline void add_dynamic_batch_buffer(const char* stage, aclmdlDesc* desc, aclmdlDataset* set,
                                     size_t index, Cleanup& cleanup) {
  if (index != 1)
    throw std::runtime_error(std::string("stage '") + stage + "': the dynamic batch input is " +
                             std::to_string(index) + ", not the input after the data (1)");
  const size_t bytes = aclmdlGetInputSizeByIndex(desc, index);
  if (bytes == 0) throw AclFailure(stage, "aclmdlGetInputSizeByIndex", ACL_ERROR_INVALID_PARAM);
  void* data = nullptr;
  check(aclrtMalloc(&data, bytes, ACL_MEM_MALLOC_HUGE_FIRST), stage, "aclrtMalloc");
  cleanup.add("aclrtFree", [data] { return aclrtFree(data); });
  aclDataBuffer* buf = require(aclCreateDataBuffer(data, bytes), stage, "aclCreateDataBuffer");
  cleanup.add("aclDestroyDataBuffer", [buf] { return aclDestroyDataBuffer(buf); });
  check(aclmdlAddDatasetBuffer(set, buf), stage, "aclmdlAddDatasetBuffer");
}

// The smallest gear that holds `items` (the gears ascend; the last is the model's batch).
template <size_t N>
uint64_t gear_for(const int (&gears)[N], int64_t items) {
  for (int g : gears)
    if (g >= items) return static_cast<uint64_t>(g);
  return static_cast<uint64_t>(gears[N - 1]);
}

// Fills every slot of a model's input once at start-up with one of `n` pattern tensors.
inline void fill_pattern(const char* stage, const Pool& pool, size_t n) {
  for (int slot = 0; slot < pool.slots(); ++slot) {
    std::vector<uint8_t> tensor =
        pattern_tensor(pool.slot_bytes(), static_cast<uint64_t>(slot) % n);
    check(aclrtMemcpy(pool.slot(slot), pool.slot_bytes(), tensor.data(), tensor.size(),
                      ACL_MEMCPY_HOST_TO_DEVICE),
          stage, "aclrtMemcpy");
  }
}

// The loaded model must have exactly the inputs and outputs the plan sized buffers for: as
// many (the spec's extra_inputs / extra_outputs, plus `gear_inputs` the model adds for its
// gears) and each of its size, checked at start-up rather than at the first execute (issue 27).
template <size_t NI, size_t NO>
void expect_model_sizes(const char* stage, aclmdlDesc* desc, const size_t (&in)[NI],
                        const size_t (&out)[NO], size_t gear_inputs) {
  const size_t inputs = aclmdlGetNumInputs(desc), outputs = aclmdlGetNumOutputs(desc);
  if (inputs == 0) throw AclFailure(stage, "aclmdlGetNumInputs", ACL_ERROR_INVALID_PARAM);
  if (outputs == 0) throw AclFailure(stage, "aclmdlGetNumOutputs", ACL_ERROR_INVALID_PARAM);
  auto refuse = [&](const std::string& what) {
    throw std::runtime_error(std::string("stage '") + stage + "': " + what +
                             "; regenerate from a spec that matches the model (input_bytes, "
                             "output_bytes, extra_inputs, extra_outputs)");
  };
  if (inputs != NI + gear_inputs || outputs != NO)
    refuse("the model has " + std::to_string(inputs) + " input(s) and " + std::to_string(outputs) +
           " output(s), but the spec plans " + std::to_string(NI + gear_inputs) + " and " +
           std::to_string(NO));
  for (size_t k = 0; k < NI; ++k) {
    const size_t got = aclmdlGetInputSizeByIndex(desc, k);
    if (got == 0) throw AclFailure(stage, "aclmdlGetInputSizeByIndex", ACL_ERROR_INVALID_PARAM);
    if (got != in[k])
      refuse("the model's input " + std::to_string(k) + " takes " + std::to_string(got) +
             " bytes, but the spec plans " + std::to_string(in[k]));
  }
  for (size_t k = 0; k < NO; ++k) {
    const size_t got = aclmdlGetOutputSizeByIndex(desc, k);
    if (got == 0) throw AclFailure(stage, "aclmdlGetOutputSizeByIndex", ACL_ERROR_INVALID_PARAM);
    if (got != out[k])
      refuse("the model's output " + std::to_string(k) + " gives " + std::to_string(got) +
             " bytes, but the spec plans " + std::to_string(out[k]));
  }
}

// Adds to a dataset buffers of device memory, zero-filled, for the model's inputs after the first
// (sizes[1..]: the spec's extra_inputs); released by Cleanup.
template <size_t N>
void add_model_buffers(const char* stage, aclmdlDataset* set, const size_t (&sizes)[N],
                       Cleanup& cleanup) {
  for (size_t k = 1; k < N; ++k) {
    void* data = nullptr;
    check(aclrtMalloc(&data, sizes[k], ACL_MEM_MALLOC_HUGE_FIRST), stage, "aclrtMalloc");
    cleanup.add("aclrtFree", [data] { return aclrtFree(data); });
    check(aclrtMemset(data, sizes[k], 0, sizes[k]), stage, "aclrtMemset");
    aclDataBuffer* buf = require(aclCreateDataBuffer(data, sizes[k]), stage, "aclCreateDataBuffer");
    cleanup.add("aclDestroyDataBuffer", [buf] { return aclDestroyDataBuffer(buf); });
    check(aclmdlAddDatasetBuffer(set, buf), stage, "aclmdlAddDatasetBuffer");
  }
}

// Adds to an output dataset the model's outputs after the first, each a piece of `slot` (the
// first output's buffer, which holds them all) at its offset: sizes[k] bytes at offsets[k].
template <size_t N>
void add_output_buffers(const char* stage, aclmdlDataset* set, void* slot, const size_t (&sizes)[N],
                        const size_t (&offsets)[N], Cleanup& cleanup) {
  for (size_t k = 1; k < N; ++k) {
    void* data = static_cast<uint8_t*>(slot) + offsets[k];
    aclDataBuffer* buf = require(aclCreateDataBuffer(data, sizes[k]), stage, "aclCreateDataBuffer");
    cleanup.add("aclDestroyDataBuffer", [buf] { return aclDestroyDataBuffer(buf); });
    check(aclmdlAddDatasetBuffer(set, buf), stage, "aclmdlAddDatasetBuffer");
  }
}

}  // namespace ascgen

#endif  // ASCGEN_STAGES_MODEL_H_
