// Model loading and execution (aclmdlLoad*, aclmdlUnload, aclmdlQuerySize,
// aclmdlExecute, aclmdlExecuteAsync) on the simulated model descriptor
// (model_file.h).
//
// - Load reads the descriptor, accounts memory_bytes of device memory
//   (aclmdlLoadFromFile allocates it; ...WithMem uses the caller's blocks) and
//   uploads the weights: a synchronous H2D task of weight_bytes.
// - An execution is one task on kAicore for latency_ms at the model's batch.
//   At its completion (reading the input then, not at submit) every batch item
//   k of every output is a function of input item k alone (model_outputs); a detector's
//   outputs are the detections in its input pictures (model_detector.h).
//   Dynamic batch gears run at the gear set before the execute; dynamic height/width gears
//   (model_dynamic_hw.cpp) read the gear's items and take the gear's share of the time.
// - One model id must not execute on two streams at once (ACL_FACTS 2.2): an
//   execution submitted while one on another stream has not completed fails
//   with ACL_ERROR_RT_MODEL_EXECUTE (507011), rule model.concurrent_streams.
//   CANN reports this pattern as an error at the stream; the simulator refuses
//   the submit, so the failing call is the one that broke the rule.
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_mdl.h"
#include "acl_sim/imaging/content_hash.h"
#include "api/api.h"
#include "api/runtime.h"
#include "core/clock.h"
#include "core/device.h"
#include "core/memory.h"
#include "core/profile.h"
#include "core/task.h"
#include "model/model_detector.h"
#include "model/model_internal.h"
#include "report/log.h"
#include "rules/rules.h"

using namespace sim;

namespace sim {

void model_outputs(const void* input, size_t input_bytes, void* output, size_t output_bytes,
                   uint32_t batch) {
  size_t in_item = input_bytes / batch, out_item = output_bytes / batch;
  auto* out = static_cast<uint8_t*>(output);
  for (uint32_t k = 0; k < batch; ++k) {
    uint64_t state =
        acl_sim::imaging::hash64(static_cast<const uint8_t*>(input) + k * in_item, in_item);
    uint8_t* item = out + k * out_item;
    for (size_t i = 0; i < out_item; i += 4) {
      // splitmix64, then the top 24 bits as a float32 in [0, 1).
      uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      z ^= z >> 31;
      float f = static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
      std::memcpy(item + i, &f, std::min<size_t>(4, out_item - i));
    }
  }
}

}  // namespace sim

namespace {

struct LoadedModel {
  uint32_t id = 0;
  ModelFile file;
  void* memory = nullptr;        // owned when not loaded WithMem
  void* work = nullptr;          // owned: WithMem with a NULL workPtr
  unsigned generation = 0;       // model_clock() generation at load (aclInit)
  const Context* ctx = nullptr;  // the context it was loaded in (rule model.same_context)
  std::mutex mu;
  std::map<const void*, int> in_flight;  // per stream (nullptr: aclmdlExecute)
  uint64_t cur_h = 0, cur_w = 0;         // the HW gear set last (aclmdlSetDynamicHWSize)
};

struct Models {
  std::mutex mu;
  uint32_t next_id = 1;
  std::map<uint32_t, std::shared_ptr<LoadedModel>> by_id;
};

Models& models() {
  static Models m;
  return m;
}

}  // namespace

size_t sim::live_models() {
  Models& m = models();
  std::lock_guard<std::mutex> lock(m.mu);
  size_t n = 0;
  for (const auto& kv : m.by_id) n += kv.second->generation == model_clock().generation();
  return n;
}

namespace {

std::shared_ptr<LoadedModel> find(uint32_t id) {
  Models& m = models();
  std::lock_guard<std::mutex> lock(m.mu);
  auto it = m.by_id.find(id);
  return it == m.by_id.end() ? nullptr : it->second;
}

aclError upload_weights(const char* api, const ModelFile& f) {
  if (f.weight_bytes == 0) return ACL_SUCCESS;
  TaskSpec spec;
  spec.engine = Engine::kH2D;
  spec.service_us = copy_service_us(Engine::kH2D, f.weight_bytes);
  spec.name = "model_load";
  return submit_sync(api, std::move(spec));
}

aclError register_model(const char* api, std::shared_ptr<LoadedModel> m, uint32_t* modelId) {
  m->generation = model_clock().generation();
  m->ctx = current_context();
  if (aclError rc = upload_weights(api, m->file)) return rc;
  Models& reg = models();
  std::lock_guard<std::mutex> lock(reg.mu);
  m->id = reg.next_id++;
  *modelId = m->id;
  reg.by_id[m->id] = std::move(m);
  return ACL_SUCCESS;
}

// Load, execute and unload of one model in one context (device rule model.same_context,
// ACL_ERROR_RT_MODEL_CONTEXT: the code CANN names for a model outside the current context).
aclError check_context(const char* api, const LoadedModel& m) {
  const Context* now = current_context();
  // A model of an earlier aclInit: its context is gone (aclFinalize), nothing to compare.
  if (now == m.ctx || m.generation != model_clock().generation()) return ACL_SUCCESS;
  return raise_rule(Rule::kModelSameContext, ACL_ERROR_RT_MODEL_CONTEXT, api,
                    "model %u was loaded in %s context %p (device %d), the calling thread's "
                    "current context is %s %p: aclrtSetCurrentContext(<the loading context>) "
                    "first",
                    m.id, m.ctx->is_default ? "the default" : "a created",
                    static_cast<const void*>(m.ctx), m.ctx->device_id,
                    now == nullptr ? "none," : (now->is_default ? "the default" : "a created"),
                    static_cast<const void*>(now));
}

// Checks a dataset against the model's sizes; fills the (pointer, size) list.
aclError check_io(const char* api, const aclmdlDataset* ds, const std::vector<size_t>& sizes,
                  bool is_input, std::vector<ByteRange>* io) {
  const char* side = is_input ? "input" : "output";
  if (ds == nullptr)
    return raise_rule(Rule::kModelDataset, ACL_ERROR_INVALID_PARAM, api, "%s dataset is NULL",
                      side);
  if (ds->buffers.size() != sizes.size())
    return raise_rule(Rule::kModelDataset, ACL_ERROR_INVALID_PARAM, api,
                      "%s dataset has %zu buffers, the model has %zu %ss", side, ds->buffers.size(),
                      sizes.size(), side);
  for (size_t i = 0; i < sizes.size(); ++i) {
    const aclDataBuffer* b = ds->buffers[i];
    if (b == nullptr || b->data == nullptr)
      return raise_rule(Rule::kModelDataset, ACL_ERROR_INVALID_PARAM, api, "%s buffer %zu is NULL",
                        side, i);
    bool ok = is_input ? b->size == sizes[i] : b->size >= sizes[i];
    if (!ok)
      return raise_rule(
          is_input ? Rule::kModelInputSize : Rule::kModelOutputSize, ACL_ERROR_INVALID_PARAM, api,
          "%s %zu buffer has %zu bytes, the model %s %zu (aclmdlGet%sSizeByIndex)", side, i,
          b->size, is_input ? "takes" : "writes at least", sizes[i], is_input ? "Input" : "Output");
    MemKind k = classify(b->data, sizes[i]);
    if (k != MemKind::kDevice && k != MemKind::kDvpp)
      return raise_rule(Rule::kModelIoMemory, ACL_ERROR_RT_INVALID_MEMORY_TYPE, api,
                        "%s %zu buffer %p (+%zu bytes) is not inside one device memory block", side,
                        i, b->data, sizes[i]);
    io->push_back({b->data, sizes[i]});
  }
  return ACL_SUCCESS;
}

aclError execute(const char* api, uint32_t modelId, const aclmdlDataset* input,
                 aclmdlDataset* output, aclrtStream stream, bool async) {
  if (aclError rc = require_context(api)) return rc;
  std::shared_ptr<LoadedModel> m = find(modelId);
  if (!m)
    return raise_rule(Rule::kModelId, ACL_ERROR_INVALID_MODEL_ID, api, "model id %u is not loaded",
                      modelId);
  if (aclError rc = check_context(api, *m)) return rc;
  TaskSpec spec;
  if (aclError rc = check_io(api, input, m->file.input_bytes, true, &spec.reads)) return rc;
  if (aclError rc = check_io(api, output, m->file.output_bytes, false, &spec.writes)) return rc;
  const void* key = nullptr;
  if (async) {
    std::unique_lock<std::mutex> lk(device().mu());
    Stream* s = nullptr;
    if (aclError rc = resolve_stream(api, stream, &s)) return rc;
    key = s;
  }
  {
    std::lock_guard<std::mutex> lock(m->mu);
    for (const auto& kv : m->in_flight) {
      if (kv.first != key && kv.second > 0)
        return raise_rule(Rule::kModelConcurrentStreams, ACL_ERROR_RT_MODEL_EXECUTE, api,
                          "model %u still executing on another stream: one model id must not run "
                          "on several streams at once (load one instance per stream)",
                          modelId);
    }
    ++m->in_flight[key];
  }
  // A dynamic model runs at the gear aclmdlSetDynamicBatchSize gave the input dataset for this
  // execute (ACL_FACTS 5, "Dynamic batch": before each execute); it reads and writes that
  // many items.
  uint32_t batch = m->file.batch;
  if (m->file.dynamic()) {
    batch = input->dynamic_batch;
    if (batch == 0) {
      std::lock_guard<std::mutex> lock(m->mu);
      --m->in_flight[key];
      return raise_rule(Rule::kModelDynamicBatchUnset, ACL_ERROR_INVALID_PARAM, api,
                        "model %u has dynamic batch gears: call aclmdlSetDynamicBatchSize on the "
                        "input dataset before each execute",
                        modelId);
    }
    input->dynamic_batch = 0;
    spec.reads[0].size = spec.reads[0].size / m->file.batch * batch;
    for (ByteRange& w : spec.writes) w.size = w.size / m->file.batch * batch;
  }
  // A dynamic-HW model runs at the (h, w) gear aclmdlSetDynamicHWSize gave the dataset (the
  // same "before each execute" as batch gears): it reads batch items of h * w elements, packed
  // from the start of input 0, and its time and per-item traffic scale with the gear's share
  // of the largest gear's elements (a convolutional network's work per item is proportional
  // to its pixels; the weights are read once whatever the gear).
  double hw_share = 1.0;
  if (m->file.dynamic_hw()) {
    if (input->dynamic_h == 0) {
      std::lock_guard<std::mutex> lock(m->mu);
      --m->in_flight[key];
      return raise_rule(Rule::kModelDynamicHwUnset, ACL_ERROR_INVALID_PARAM, api,
                        "model %u has height/width gears: call aclmdlSetDynamicHWSize on the "
                        "input dataset before each execute",
                        modelId);
    }
    const uint64_t elements = input->dynamic_h * input->dynamic_w;
    input->dynamic_h = input->dynamic_w = 0;
    hw_share = static_cast<double>(elements) / static_cast<double>(m->file.hw_max_elements());
    spec.reads[0].size = batch * elements * m->file.hw_element_bytes;
    // An output that follows the gear holds the batch's items at the gear's size, packed.
    for (size_t o = 0; o < spec.writes.size(); ++o)
      spec.writes[o].size = batch * m->file.output_item_bytes(o, elements);
  }
  spec.engine = Engine::kAicore;
  spec.service_us = m->file.latency_at(batch) * 1000.0 * hw_share;
  // DDR traffic: inputs and outputs plus the weights and activations it streams.
  // (a gear below the compiled batch, or a smaller HW gear, streams fewer items' activations)
  const size_t per_item =
      static_cast<size_t>(static_cast<double>(m->file.traffic_bytes_per_item) * hw_share);
  const size_t fewer = (m->file.batch - batch) * m->file.traffic_bytes_per_item +
                       batch * (m->file.traffic_bytes_per_item - per_item);
  spec.traffic_bytes =
      static_cast<double>(m->file.traffic_bytes > fewer ? m->file.traffic_bytes - fewer : 0);
  for (const auto* side : {&spec.reads, &spec.writes})
    for (const ByteRange& r : *side) spec.traffic_bytes += static_cast<double>(r.size);
  spec.name = "model_" + m->file.name;
  // Another model ran on the AI Core before: this one's weights come in again from DDR, a
  // share of weight_bytes at the memory bandwidth (docs/shared_bandwidth.md section 2).
  spec.model_key = acl_sim::imaging::hash64(m->file.path.data(), m->file.path.size()) | 1;
  const double ddr_bytes_per_us = profile().num("memory.bandwidth_GBps", 0.0) * 1e3;
  if (ddr_bytes_per_us > 0)
    spec.model_switch_us = engine_param(Engine::kAicore, "model_switch_weight_share", 0.0) *
                           static_cast<double>(m->file.weight_bytes) / ddr_bytes_per_us;
  std::vector<ByteRange> in = spec.reads, out = spec.writes;
  spec.work = [m, key, in, out, batch] {
    std::vector<void*> outputs;
    for (const ByteRange& o : out) outputs.push_back(const_cast<void*>(o.addr));
    // A detector writes its detections (model_detector.h); any further output is hashed.
    const size_t written =
        m->file.is_detector() ? detector_outputs(m->file, in[0].addr, outputs.data(), batch) : 0;
    for (size_t o = written; o < out.size(); ++o)
      model_outputs(in[0].addr, in[0].size, outputs[o], out[o].size, batch);
    std::lock_guard<std::mutex> lock(m->mu);
    --m->in_flight[key];
  };
  aclError rc = async ? submit(api, stream, std::move(spec)) : submit_sync(api, std::move(spec));
  if (rc != ACL_SUCCESS) {
    std::lock_guard<std::mutex> lock(m->mu);
    --m->in_flight[key];
  }
  return rc;
}

}  // namespace

extern "C" {

aclError aclmdlQuerySize(const char* fileName, size_t* workSize, size_t* weightSize) {
  SIM_API_ENTER();
  if (workSize == nullptr || weightSize == nullptr)
    return raise_rule(Rule::kArgsNonNull, ACL_ERROR_INVALID_PARAM, __func__,
                      "workSize/weightSize NULL");
  ModelFile f;
  if (aclError rc = read_model_file(__func__, fileName, &f)) return rc;
  *workSize = f.work_bytes();
  *weightSize = f.weight_bytes;
  return ACL_SUCCESS;
}

aclError aclmdlLoadFromFile(const char* modelPath, uint32_t* modelId) {
  SIM_API_ENTER();
  if (aclError rc = require_context(__func__)) return rc;
  if (modelId == nullptr)
    return raise_rule(Rule::kArgsNonNull, ACL_ERROR_INVALID_PARAM, __func__, "modelId is NULL");
  auto m = std::make_shared<LoadedModel>();
  if (aclError rc = read_model_file(__func__, modelPath, &m->file)) return rc;
  if (aclError rc = device_alloc(__func__, &m->memory, m->file.memory_bytes)) return rc;
  aclError rc = register_model(__func__, m, modelId);
  if (rc != ACL_SUCCESS) device_free(__func__, m->memory);
  return rc;
}

aclError aclmdlLoadFromFileWithMem(const char* modelPath, uint32_t* modelId, void* workPtr,
                                   size_t workSize, void* weightPtr, size_t weightSize) {
  SIM_API_ENTER();
  if (aclError rc = require_context(__func__)) return rc;
  if (modelId == nullptr)
    return raise_rule(Rule::kArgsNonNull, ACL_ERROR_INVALID_PARAM, __func__, "modelId is NULL");
  auto m = std::make_shared<LoadedModel>();
  if (aclError rc = read_model_file(__func__, modelPath, &m->file)) return rc;
  const ModelFile& f = m->file;
  if (weightPtr == nullptr || weightSize < f.weight_bytes ||
      classify(weightPtr, f.weight_bytes) != MemKind::kDevice)
    return raise_rule(Rule::kModelWeightMemory, ACL_ERROR_INVALID_PARAM, __func__,
                      "weights need %zu bytes of device memory (aclmdlQuerySize), got %p (+%zu)",
                      f.weight_bytes, weightPtr, weightSize);
  if (workPtr != nullptr &&
      (workSize < f.work_bytes() || classify(workPtr, f.work_bytes()) != MemKind::kDevice))
    return raise_rule(
        Rule::kModelWorkMemory, ACL_ERROR_INVALID_PARAM, __func__,
        "work memory needs %zu bytes of device memory (aclmdlQuerySize), got %p (+%zu)",
        f.work_bytes(), workPtr, workSize);
  if (workPtr == nullptr && f.work_bytes() > 0)
    if (aclError rc = device_alloc(__func__, &m->work, f.work_bytes())) return rc;
  aclError rc = register_model(__func__, m, modelId);
  if (rc != ACL_SUCCESS && m->work != nullptr) device_free(__func__, m->work);
  return rc;
}

aclError aclmdlUnload(uint32_t modelId) {
  SIM_API_ENTER();
  std::shared_ptr<LoadedModel> m;
  {
    Models& reg = models();
    std::lock_guard<std::mutex> lock(reg.mu);
    auto it = reg.by_id.find(modelId);
    if (it == reg.by_id.end())
      return raise_rule(Rule::kModelId, ACL_ERROR_INVALID_MODEL_ID, __func__,
                        "model id %u is not loaded", modelId);
    m = it->second;
    if (aclError rc = check_context(__func__, *m)) return rc;
    reg.by_id.erase(it);
  }
  {
    std::lock_guard<std::mutex> lock(m->mu);
    for (const auto& kv : m->in_flight)
      if (kv.second > 0)
        raise_rule(Rule::kModelUnloadInFlight, ACL_SUCCESS, __func__,
                   "model %u unloaded with %d execution(s) not complete: synchronize the "
                   "stream first (its work memory goes back while the execution still uses it)",
                   modelId, kv.second);
  }
  // After aclFinalize the blocks are gone already (and their addresses may be
  // reused): only free what this initialisation allocated.
  if (m->generation != model_clock().generation()) return ACL_SUCCESS;
  if (m->memory != nullptr) device_free(__func__, m->memory);
  if (m->work != nullptr) device_free(__func__, m->work);
  return ACL_SUCCESS;
}

aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output) {
  SIM_API_ENTER();
  return execute(__func__, modelId, input, output, nullptr, false);
}

aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output,
                            aclrtStream stream) {
  SIM_API_ENTER();
  return execute(__func__, modelId, input, output, stream, true);
}

}  // extern "C"

namespace sim {

bool model_file_of(uint32_t modelId, ModelFile* out) {
  std::shared_ptr<LoadedModel> m = find(modelId);
  if (!m) return false;
  *out = m->file;
  return true;
}

void set_current_hw(uint32_t modelId, uint64_t h, uint64_t w) {
  std::shared_ptr<LoadedModel> m = find(modelId);
  if (!m) return;
  std::lock_guard<std::mutex> lock(m->mu);
  m->cur_h = h;
  m->cur_w = w;
}

bool current_hw(uint32_t modelId, uint64_t* h, uint64_t* w) {
  std::shared_ptr<LoadedModel> m = find(modelId);
  if (!m) return false;
  std::lock_guard<std::mutex> lock(m->mu);
  *h = m->cur_h;
  *w = m->cur_w;
  return m->cur_h != 0;
}

}  // namespace sim
