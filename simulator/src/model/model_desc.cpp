// Model descriptions (aclmdlDesc) and datasets (aclmdlDataset).
//
// Tensors of the simulated model: input i is named "input_<i>" with dims
// {batch, bytes / batch} (uint8 items, format ND); output i is "output_<i>" with
// dims {batch, bytes / batch / 4} (float32 scores). A model with dynamic batch
// gears (descriptor `gears=`) has one more input, the last, named
// ascend_mbatch_shape_data (dims {1}); aclmdlSetDynamicBatchSize picks the gear
// of the next execute.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "acl/acl.h"
#include "acl/acl_mdl.h"
#include "api/api.h"
#include "model/model_internal.h"
#include "report/log.h"
#include "rules/rules.h"

using namespace sim;

namespace {

constexpr char kMbatchName[] = "ascend_mbatch_shape_data";  // ACL_DYNAMIC_TENSOR_NAME

bool has_index(const aclmdlDesc* d, size_t index, bool input) {
  return d != nullptr && d->filled &&
         index < (input ? d->file.input_bytes.size() : d->file.output_bytes.size());
}

aclError fill_dims(const char* api, const aclmdlDesc* d, size_t index, bool input,
                   aclmdlIODims* dims, bool current = false) {
  if (dims == nullptr || !has_index(d, index, input))
    return raise_rule(Rule::kModelDescIndex, ACL_ERROR_INVALID_PARAM, api,
                      "no %s %zu in this description (or dims NULL, or aclmdlGetDesc not called)",
                      input ? "input" : "output", index);
  size_t bytes = input ? d->file.input_bytes[index] : d->file.output_bytes[index];
  *dims = aclmdlIODims{};
  if (input && d->file.has_mbatch_input() && index == d->file.mbatch_index()) {
    std::snprintf(dims->name, sizeof(dims->name), "%s", kMbatchName);
    dims->dimCount = 1;
    dims->dims[0] = 1;
    return ACL_SUCCESS;
  }
  std::snprintf(dims->name, sizeof(dims->name), "%s_%zu", input ? "input" : "output", index);
  dims->dimCount = 2;
  dims->dims[0] = d->file.batch;
  dims->dims[1] = static_cast<int64_t>(bytes / d->file.batch / (input ? 1 : 4));
  uint64_t h = 0, w = 0;  // the current shape of an output that follows the HW gear set last
  if (current && !input && current_hw(d->model_id, &h, &w))
    dims->dims[1] = static_cast<int64_t>(d->file.output_item_bytes(index, h * w) / 4);
  return ACL_SUCCESS;
}

// Per-thread storage for the names aclmdlGet*NameByIndex return.
const char* tensor_name(const aclmdlDesc* d, size_t index, bool input) {
  static thread_local std::string name;
  if (!has_index(d, index, input)) return "";
  name = input && d->file.has_mbatch_input() && index == d->file.mbatch_index()
             ? std::string(kMbatchName)
             : std::string(input ? "input_" : "output_") + std::to_string(index);
  return name.c_str();
}

std::atomic<long> g_live_descs{0};
std::atomic<long> g_live_datasets{0};

}  // namespace

long sim::live_model_descs() {
  return g_live_descs.load();
}
long sim::live_datasets() {
  return g_live_datasets.load();
}

extern "C" {

aclmdlDesc* aclmdlCreateDesc() {
  SIM_API_ENTER_OR(nullptr);
  aclmdlDesc* d = new (std::nothrow) aclmdlDesc;
  if (d != nullptr) ++g_live_descs;
  return d;
}

aclError aclmdlDestroyDesc(aclmdlDesc* modelDesc) {
  SIM_API_ENTER();
  if (modelDesc == nullptr)
    return raise_rule(Rule::kArgsNonNull, ACL_ERROR_INVALID_PARAM, __func__, "modelDesc is NULL");
  delete modelDesc;
  --g_live_descs;
  return ACL_SUCCESS;
}

aclError aclmdlGetDesc(aclmdlDesc* modelDesc, uint32_t modelId) {
  SIM_API_ENTER();
  if (modelDesc == nullptr)
    return raise_rule(Rule::kArgsNonNull, ACL_ERROR_INVALID_PARAM, __func__, "modelDesc is NULL");
  if (!model_file_of(modelId, &modelDesc->file))
    return raise_rule(Rule::kModelId, ACL_ERROR_INVALID_MODEL_ID, __func__,
                      "model id %u is not loaded", modelId);
  modelDesc->filled = true;
  modelDesc->model_id = modelId;
  return ACL_SUCCESS;
}

size_t aclmdlGetNumInputs(aclmdlDesc* modelDesc) {
  SIM_API_ENTER_OR(0);
  return modelDesc != nullptr && modelDesc->filled ? modelDesc->file.input_bytes.size() : 0;
}

size_t aclmdlGetNumOutputs(aclmdlDesc* modelDesc) {
  SIM_API_ENTER_OR(0);
  return modelDesc != nullptr && modelDesc->filled ? modelDesc->file.output_bytes.size() : 0;
}

size_t aclmdlGetInputSizeByIndex(aclmdlDesc* modelDesc, size_t index) {
  SIM_API_ENTER_OR(0);
  return has_index(modelDesc, index, true) ? modelDesc->file.input_bytes[index] : 0;
}

size_t aclmdlGetOutputSizeByIndex(aclmdlDesc* modelDesc, size_t index) {
  SIM_API_ENTER_OR(0);
  return has_index(modelDesc, index, false) ? modelDesc->file.output_bytes[index] : 0;
}

aclError aclmdlGetInputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  SIM_API_ENTER();
  return fill_dims(__func__, modelDesc, index, true, dims);
}

aclError aclmdlGetOutputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  SIM_API_ENTER();
  return fill_dims(__func__, modelDesc, index, false, dims);
}

aclError aclmdlGetCurOutputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  SIM_API_ENTER();
  return fill_dims(__func__, modelDesc, index, false, dims, true);
}

const char* aclmdlGetInputNameByIndex(const aclmdlDesc* modelDesc, size_t index) {
  SIM_API_ENTER_OR("");
  return tensor_name(modelDesc, index, true);
}

const char* aclmdlGetOutputNameByIndex(const aclmdlDesc* modelDesc, size_t index) {
  SIM_API_ENTER_OR("");
  return tensor_name(modelDesc, index, false);
}

aclError aclmdlGetInputIndexByName(const aclmdlDesc* modelDesc, const char* name, size_t* index) {
  SIM_API_ENTER();
  if (modelDesc == nullptr || !modelDesc->filled || name == nullptr || index == nullptr)
    return raise_rule(Rule::kArgsNonNull, ACL_ERROR_INVALID_PARAM, __func__,
                      "modelDesc, name and index are needed (after aclmdlGetDesc)");
  const ModelFile& f = modelDesc->file;
  for (size_t i = 0; i < f.input_bytes.size(); ++i) {
    const bool mbatch = f.has_mbatch_input() && i == f.mbatch_index();
    if ((mbatch ? std::string(kMbatchName) : std::string("input_") + std::to_string(i)) == name) {
      *index = i;
      return ACL_SUCCESS;
    }
  }
  return raise_rule(Rule::kModelInputName, ACL_ERROR_INVALID_PARAM, __func__,
                    "the model has no input named '%s'%s", name,
                    f.has_mbatch_input() ? "" : " (it is static: no ascend_mbatch_shape_data)");
}

aclError aclmdlGetDynamicBatch(const aclmdlDesc* modelDesc, aclmdlBatch* batch) {
  SIM_API_ENTER();
  if (modelDesc == nullptr || batch == nullptr)
    return raise_rule(Rule::kArgsNonNull, ACL_ERROR_INVALID_PARAM, __func__,
                      "modelDesc/batch NULL");
  *batch = aclmdlBatch{};
  if (!modelDesc->filled) return ACL_SUCCESS;  // nothing described: no gears
  for (uint32_t g : modelDesc->file.gears) batch->batch[batch->batchCount++] = g;
  return ACL_SUCCESS;
}

// The gear of the dataset's next execute: one of the model's gears, given at the index of
// its ascend_mbatch_shape_data input, before each execute (ACL_FACTS 5, "Dynamic batch":
// CANN's dynamic batch guide, aclcppdevg_000111 / aclcppdevg_03_0306).
aclError aclmdlSetDynamicBatchSize(uint32_t modelId, aclmdlDataset* dataset, size_t index,
                                   uint64_t batchSize) {
  SIM_API_ENTER();
  if (dataset == nullptr)
    return raise_rule(Rule::kArgsNonNull, ACL_ERROR_INVALID_PARAM, __func__, "dataset is NULL");
  ModelFile f;
  if (!model_file_of(modelId, &f))
    return raise_rule(Rule::kModelId, ACL_ERROR_INVALID_MODEL_ID, __func__,
                      "model id %u is not loaded", modelId);
  if (!f.dynamic())
    return raise_rule(Rule::kModelNotDynamic, ACL_ERROR_MODEL_NOT_DYNAMIC, __func__,
                      "model %u has no batch gears (batch fixed at load); batch %llu refused",
                      modelId, static_cast<unsigned long long>(batchSize));
  if (index != f.mbatch_index())
    return raise_rule(Rule::kModelDynamicIndex, ACL_ERROR_INVALID_PARAM, __func__,
                      "index %zu is not model %u's dynamic batch input (%s is input %zu; "
                      "aclmdlGetInputIndexByName)",
                      index, modelId, kMbatchName, f.mbatch_index());
  bool gear = false;
  for (uint32_t g : f.gears) gear = gear || g == batchSize;
  if (!gear)
    return raise_rule(Rule::kModelDynamicGear, ACL_ERROR_INVALID_PARAM, __func__,
                      "batch %llu is not one of model %u's gears (aclmdlGetDynamicBatch)",
                      static_cast<unsigned long long>(batchSize), modelId);
  dataset->dynamic_batch = static_cast<uint32_t>(batchSize);
  return ACL_SUCCESS;
}

aclmdlDataset* aclmdlCreateDataset() {
  SIM_API_ENTER_OR(nullptr);
  aclmdlDataset* ds = new (std::nothrow) aclmdlDataset;
  if (ds != nullptr) ++g_live_datasets;
  return ds;
}

aclError aclmdlDestroyDataset(const aclmdlDataset* dataset) {
  SIM_API_ENTER();
  if (dataset == nullptr)
    return raise_rule(Rule::kArgsNonNull, ACL_ERROR_INVALID_PARAM, __func__, "dataset is NULL");
  delete dataset;  // the buffers stay: the caller destroys them
  --g_live_datasets;
  return ACL_SUCCESS;
}

aclError aclmdlAddDatasetBuffer(aclmdlDataset* dataset, aclDataBuffer* dataBuffer) {
  SIM_API_ENTER();
  if (dataset == nullptr || dataBuffer == nullptr)
    return raise_rule(Rule::kArgsNonNull, ACL_ERROR_INVALID_PARAM, __func__,
                      "dataset %p, dataBuffer %p: both needed", static_cast<void*>(dataset),
                      static_cast<void*>(dataBuffer));
  dataset->buffers.push_back(dataBuffer);
  return ACL_SUCCESS;
}

size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset* dataset) {
  SIM_API_ENTER_OR(0);
  return dataset == nullptr ? 0 : dataset->buffers.size();
}

aclDataBuffer* aclmdlGetDatasetBuffer(const aclmdlDataset* dataset, size_t index) {
  SIM_API_ENTER_OR(nullptr);
  if (dataset == nullptr || index >= dataset->buffers.size()) return nullptr;
  return dataset->buffers[index];
}

}  // extern "C"
