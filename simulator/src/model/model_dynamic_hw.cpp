// Dynamic height/width gears ("dynamic image size", ATC --dynamic_image_size): a model compiled
// with (h, w) gears has the extra input ACL_DYNAMIC_TENSOR_NAME, lists its gears with
// aclmdlGetDynamicHW, and runs each execute at the gear aclmdlSetDynamicHWSize gave the input
// dataset before it (model_api.cpp reads and scales by it).
// Sources: CANN's aclmdlGetDynamicHW (aclcppdevg_03_1465, canncommercial/63RC1 aclcppdevg_03_1009:
// `index` is reserved, fixed at -1; hwCount 0: the model has no HW gears) and
// aclmdlSetDynamicHWSize (aclcppdevg_03_0307, canncommercial/700 aclcppdevg_03_0134: `index` from
// aclmdlGetInputIndexByName(ACL_DYNAMIC_TENSOR_NAME); the (height, width) set "can only be one of
// the gears set when the model was built").
#include "acl/acl.h"
#include "acl/acl_mdl.h"
#include "api/api.h"
#include "model/model_internal.h"
#include "report/log.h"
#include "rules/rules.h"

using namespace sim;

extern "C" {

aclError aclmdlGetDynamicHW(const aclmdlDesc* modelDesc, size_t index, aclmdlHW* hw) {
  SIM_API_ENTER();
  if (modelDesc == nullptr || hw == nullptr)
    return raise_rule(Rule::kArgsNonNull, ACL_ERROR_INVALID_PARAM, __func__, "modelDesc/hw NULL");
  if (index != static_cast<size_t>(-1))
    return raise_rule(Rule::kModelDynamicHwReservedIndex, ACL_ERROR_INVALID_PARAM, __func__,
                      "index %zu: the parameter is reserved and must be -1", index);
  *hw = aclmdlHW{};
  if (!modelDesc->filled) return ACL_SUCCESS;  // nothing described: no gears
  for (const ModelFile::HwGear& g : modelDesc->file.hw_gears) {
    hw->hw[hw->hwCount][0] = g.h;
    hw->hw[hw->hwCount][1] = g.w;
    ++hw->hwCount;
  }
  return ACL_SUCCESS;
}

aclError aclmdlSetDynamicHWSize(uint32_t modelId, aclmdlDataset* dataset, size_t index,
                                uint64_t height, uint64_t width) {
  SIM_API_ENTER();
  if (dataset == nullptr)
    return raise_rule(Rule::kArgsNonNull, ACL_ERROR_INVALID_PARAM, __func__, "dataset is NULL");
  ModelFile f;
  if (!model_file_of(modelId, &f))
    return raise_rule(Rule::kModelId, ACL_ERROR_INVALID_MODEL_ID, __func__,
                      "model id %u is not loaded", modelId);
  if (!f.dynamic_hw())
    return raise_rule(Rule::kModelNotDynamic, ACL_ERROR_MODEL_NOT_DYNAMIC, __func__,
                      "model %u has no height/width gears; %llux%llu refused", modelId,
                      static_cast<unsigned long long>(height),
                      static_cast<unsigned long long>(width));
  if (index != f.mbatch_index())
    return raise_rule(Rule::kModelDynamicIndex, ACL_ERROR_INVALID_PARAM, __func__,
                      "index %zu is not model %u's dynamic input (%s is input %zu; "
                      "aclmdlGetInputIndexByName)",
                      index, modelId, ACL_DYNAMIC_TENSOR_NAME, f.mbatch_index());
  bool gear = false;
  for (const ModelFile::HwGear& g : f.hw_gears) gear = gear || (g.h == height && g.w == width);
  if (!gear)
    return raise_rule(Rule::kModelDynamicHwGear, ACL_ERROR_INVALID_PARAM, __func__,
                      "%llux%llu (height x width) is not one of model %u's gears "
                      "(aclmdlGetDynamicHW)",
                      static_cast<unsigned long long>(height),
                      static_cast<unsigned long long>(width), modelId);
  dataset->dynamic_h = height;
  dataset->dynamic_w = width;
  set_current_hw(modelId, height, width);  // aclmdlGetCurOutputDims reports its shape
  return ACL_SUCCESS;
}

}  // extern "C"
