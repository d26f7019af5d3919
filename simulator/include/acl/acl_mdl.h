// ascgen AscendCL simulator: model API (acl/acl_mdl.h).
//
// The subset of CANN's model API that ascgen-generated programs use, with the
// same names, types, values and signatures as CANN's acl_mdl.h (header
// version 1.17.0), written from the public AscendCL documentation. The
// conformance build (simulator/conformance) checks every declaration here
// against the real header.
#ifndef INC_EXTERNAL_ACL_ACL_MODEL_H_
#define INC_EXTERNAL_ACL_ACL_MODEL_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

// Array capacities of the query structs below.
#define ACL_MAX_DIM_CNT 128
#define ACL_MAX_TENSOR_NAME_LEN 128
#define ACL_MAX_BATCH_NUM 128
#define ACL_MAX_HW_NUM 128
#define ACL_MAX_SHAPE_COUNT 128
#define ACL_INVALID_NODE_INDEX 0xFFFFFFFF

// Name of the extra input ATC adds to a dynamic-batch / dynamic-HW model.
#define ACL_DYNAMIC_TENSOR_NAME "ascend_mbatch_shape_data"
// Name of the extra input ATC adds to a model with dynamic AIPP.
#define ACL_DYNAMIC_AIPP_NAME "ascend_dynamic_aipp_data"

typedef struct aclmdlDataset aclmdlDataset;
typedef struct aclmdlDesc aclmdlDesc;

// Shape of one model input or output.
typedef struct aclmdlIODims {
  char name[ACL_MAX_TENSOR_NAME_LEN];  // tensor name, NUL-terminated
  size_t dimCount;                     // number of valid entries in dims
  int64_t dims[ACL_MAX_DIM_CNT];       // -1 marks a dynamic dimension
} aclmdlIODims;

// Batch gears compiled into a dynamic-batch model.
typedef struct aclmdlBatch {
  size_t batchCount;                  // number of valid entries in batch
  uint64_t batch[ACL_MAX_BATCH_NUM];  // the gears
} aclmdlBatch;

// Height/width gears compiled into a dynamic-HW model.
typedef struct aclmdlHW {
  size_t hwCount;                  // number of valid entries in hw
  uint64_t hw[ACL_MAX_HW_NUM][2];  // {height, width} per gear
} aclmdlHW;

// ---------------------------------------------------------------------------
// Loading and unloading

// Work (scratch) and weight memory a model file needs when loaded with
// aclmdlLoadFromFileWithMem.
ACL_FUNC_VISIBILITY aclError aclmdlQuerySize(const char* fileName, size_t* workSize,
                                             size_t* weightSize);

// Loads a model; the runtime allocates its work and weight memory.
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFile(const char* modelPath, uint32_t* modelId);

// Loads a model into caller-owned device memory (sizes from aclmdlQuerySize).
// workPtr may be NULL, in which case the runtime allocates the work memory.
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFileWithMem(const char* modelPath, uint32_t* modelId,
                                                       void* workPtr, size_t workSize,
                                                       void* weightPtr, size_t weightSize);

// Unloads a model. Must run in the context that loaded it.
ACL_FUNC_VISIBILITY aclError aclmdlUnload(uint32_t modelId);

// ---------------------------------------------------------------------------
// Model description

ACL_FUNC_VISIBILITY aclmdlDesc* aclmdlCreateDesc();
ACL_FUNC_VISIBILITY aclError aclmdlDestroyDesc(aclmdlDesc* modelDesc);
// Fills modelDesc with the description of a loaded model.
ACL_FUNC_VISIBILITY aclError aclmdlGetDesc(aclmdlDesc* modelDesc, uint32_t modelId);

ACL_FUNC_VISIBILITY size_t aclmdlGetNumInputs(aclmdlDesc* modelDesc);
ACL_FUNC_VISIBILITY size_t aclmdlGetNumOutputs(aclmdlDesc* modelDesc);
// Bytes of input/output `index`; for dynamic models the size of the largest gear.
ACL_FUNC_VISIBILITY size_t aclmdlGetInputSizeByIndex(aclmdlDesc* modelDesc, size_t index);
ACL_FUNC_VISIBILITY size_t aclmdlGetOutputSizeByIndex(aclmdlDesc* modelDesc, size_t index);

ACL_FUNC_VISIBILITY aclError aclmdlGetInputDims(const aclmdlDesc* modelDesc, size_t index,
                                                aclmdlIODims* dims);
ACL_FUNC_VISIBILITY aclError aclmdlGetOutputDims(const aclmdlDesc* modelDesc, size_t index,
                                                 aclmdlIODims* dims);
// Output dims for the gear chosen at the last execution.
ACL_FUNC_VISIBILITY aclError aclmdlGetCurOutputDims(const aclmdlDesc* modelDesc, size_t index,
                                                    aclmdlIODims* dims);

ACL_FUNC_VISIBILITY const char* aclmdlGetInputNameByIndex(const aclmdlDesc* modelDesc,
                                                          size_t index);
ACL_FUNC_VISIBILITY const char* aclmdlGetOutputNameByIndex(const aclmdlDesc* modelDesc,
                                                           size_t index);
ACL_FUNC_VISIBILITY aclError aclmdlGetInputIndexByName(const aclmdlDesc* modelDesc,
                                                       const char* name, size_t* index);

// Batch gears of a dynamic-batch model (batchCount 0 for a static model).
ACL_FUNC_VISIBILITY aclError aclmdlGetDynamicBatch(const aclmdlDesc* modelDesc, aclmdlBatch* batch);

// Height/width gears of a dynamic-HW model (hwCount 0 for a model without them); `index` is
// reserved and must be (size_t)-1.
ACL_FUNC_VISIBILITY aclError aclmdlGetDynamicHW(const aclmdlDesc* modelDesc, size_t index,
                                                aclmdlHW* hw);

// ---------------------------------------------------------------------------
// Datasets: ordered lists of aclDataBuffer, one per model input or output.
// Destroying a dataset destroys neither its buffers nor their memory.

ACL_FUNC_VISIBILITY aclmdlDataset* aclmdlCreateDataset();
ACL_FUNC_VISIBILITY aclError aclmdlDestroyDataset(const aclmdlDataset* dataset);
ACL_FUNC_VISIBILITY aclError aclmdlAddDatasetBuffer(aclmdlDataset* dataset,
                                                    aclDataBuffer* dataBuffer);
ACL_FUNC_VISIBILITY size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset* dataset);
ACL_FUNC_VISIBILITY aclDataBuffer* aclmdlGetDatasetBuffer(const aclmdlDataset* dataset,
                                                          size_t index);

// ---------------------------------------------------------------------------
// Execution

// Runs the model and returns when the outputs are written.
ACL_FUNC_VISIBILITY aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset* input,
                                           aclmdlDataset* output);

// Queues one execution on `stream`. One modelId must not execute on several
// streams at the same time: load one instance per concurrently used stream.
ACL_FUNC_VISIBILITY aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset* input,
                                                aclmdlDataset* output, aclrtStream stream);

// Selects the batch gear for the next execution. `index` is the position of
// the ACL_DYNAMIC_TENSOR_NAME input in `dataset`; batchSize must be a gear
// listed by aclmdlGetDynamicBatch.
ACL_FUNC_VISIBILITY aclError aclmdlSetDynamicBatchSize(uint32_t modelId, aclmdlDataset* dataset,
                                                       size_t index, uint64_t batchSize);

// Selects the height/width gear for the next execution of a dynamic-HW model. `index` is the
// position of the ACL_DYNAMIC_TENSOR_NAME input; (height, width) must be a gear listed by
// aclmdlGetDynamicHW.
ACL_FUNC_VISIBILITY aclError aclmdlSetDynamicHWSize(uint32_t modelId, aclmdlDataset* dataset,
                                                    size_t index, uint64_t height, uint64_t width);

#ifdef __cplusplus
}
#endif

#endif  // INC_EXTERNAL_ACL_ACL_MODEL_H_
