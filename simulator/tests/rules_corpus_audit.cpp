// Rule corpus, part 2 (rules_corpus.h): the rules added by the audit of the simulator
// against ACL_FACTS 1.4, 2.2, 3.4 (simulator/README.md, "Rules added by the audit").
// Each `bad` breaks one documented restriction, its twin does the same work the
// documented way.
#define ENABLE_DVPP_INTERFACE
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "rules_corpus.h"

namespace corpus {

bool open_device(aclrtStream* s) {
  return aclInit(nullptr) == ACL_SUCCESS && aclrtSetDevice(0) == ACL_SUCCESS &&
         aclrtCreateStream(s) == ACL_SUCCESS;
}

int close_device(aclrtStream s) {
  aclrtSynchronizeDevice();
  aclrtDestroyStream(s);
  aclrtResetDevice(0);
  return aclFinalize() == ACL_SUCCESS ? 0 : 1;
}

namespace {

constexpr size_t kBig = 64u << 20;  // an upload that keeps a stream busy for ~20 ms (model)

// A stream kept busy by a large upload, so that what is queued behind it has not run.
struct Busy {
  void* host = nullptr;
  void* dev = nullptr;
  bool on(aclrtStream s) {
    if (aclrtMallocHost(&host, kBig) || aclrtMalloc(&dev, kBig, ACL_MEM_MALLOC_HUGE_FIRST))
      return false;
    return aclrtMemcpyAsync(dev, kBig, host, kBig, ACL_MEMCPY_HOST_TO_DEVICE, s) == ACL_SUCCESS;
  }
  void free() {
    if (dev) aclrtFree(dev);
    if (host) aclrtFreeHost(host);
  }
};

// ---- model ----------------------------------------------------------------------

constexpr size_t kIn = 4000, kOut = 1600;

std::string model_file() {
  std::string path = corpus::temp_file("audit.model");
  std::ofstream(path) << "format=acl_sim_model\nversion=1\nname=audit\nbatch=4\ninputs=1\n"
                         "input.0.bytes=4000\noutputs=1\noutput.0.bytes=1600\n"
                         "memory_bytes=1048576\nlatency_ms.1=1.0\nlatency_ms.8=4.0\n";
  return path;
}

struct ModelIo {
  void *in = nullptr, *out = nullptr;
  aclmdlDataset *ins = nullptr, *outs = nullptr;
  aclDataBuffer *bin = nullptr, *bout = nullptr;
  bool make() {
    if (aclrtMalloc(&in, kIn, ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&out, kOut, ACL_MEM_MALLOC_HUGE_FIRST))
      return false;
    ins = aclmdlCreateDataset();
    outs = aclmdlCreateDataset();
    bin = aclCreateDataBuffer(in, kIn);
    bout = aclCreateDataBuffer(out, kOut);
    return aclmdlAddDatasetBuffer(ins, bin) == ACL_SUCCESS &&
           aclmdlAddDatasetBuffer(outs, bout) == ACL_SUCCESS;
  }
  void free() {
    aclmdlDestroyDataset(ins);
    aclmdlDestroyDataset(outs);
    aclDestroyDataBuffer(bin);
    aclDestroyDataBuffer(bout);
    aclrtFree(in);
    aclrtFree(out);
  }
};

// The model is loaded in the device's default context; a created context becomes current
// (aclrtCreateContext binds it) and the model runs there. The twin sets the loading context
// current again before it executes and unloads.
int model_same_context(bool bad) {
  aclrtStream s = nullptr;
  if (!open_device(&s)) return 2;
  const std::string path = model_file();
  aclrtContext loading = nullptr, other = nullptr;
  uint32_t id = 0;
  ModelIo io;
  if (aclrtGetCurrentContext(&loading) || aclmdlLoadFromFile(path.c_str(), &id) || !io.make())
    return 2;
  if (aclrtCreateContext(&other, 0) != ACL_SUCCESS) return 2;  // now current
  if (!bad) aclrtSetCurrentContext(loading);
  const aclError ran = aclmdlExecute(id, io.ins, io.outs);
  const aclError unloaded = aclmdlUnload(id);
  aclrtSetCurrentContext(loading);
  if (unloaded != ACL_SUCCESS) aclmdlUnload(id);  // bad: the refused unload, done right
  aclrtDestroyContext(other);
  aclrtSetCurrentContext(loading);
  io.free();
  std::remove(path.c_str());
  const int rc = close_device(s);
  if (bad) return rc;  // the rule's exit status decides
  return ran == ACL_SUCCESS && unloaded == ACL_SUCCESS ? rc : 3;
}

// Unloads a model whose execution is still queued behind an upload. The twin synchronises.
int model_unload_in_flight(bool bad) {
  aclrtStream s = nullptr;
  if (!open_device(&s)) return 2;
  const std::string path = model_file();
  uint32_t id = 0;
  ModelIo io;
  Busy busy;
  if (aclmdlLoadFromFile(path.c_str(), &id) || !io.make() || !busy.on(s)) return 2;
  const aclError ran = aclmdlExecuteAsync(id, io.ins, io.outs, s);
  if (!bad) aclrtSynchronizeStream(s);
  const aclError unloaded = aclmdlUnload(id);
  aclrtSynchronizeStream(s);
  busy.free();
  io.free();
  std::remove(path.c_str());
  const int rc = close_device(s);
  return ran == ACL_SUCCESS && unloaded == ACL_SUCCESS ? rc : 3;
}

// ---- DVPP -----------------------------------------------------------------------

// One resize queued behind an upload, then the channel is destroyed (bad: before the stream
// passed it; twin: after aclrtSynchronizeStream).
int channel_destroy_pending(bool bad) {
  aclrtStream s = nullptr;
  if (!open_device(&s)) return 2;
  void *in = nullptr, *out = nullptr;
  acldvppMalloc(&in, 448 * 448 * 3 / 2);
  acldvppMalloc(&out, 224 * 224 * 3 / 2);
  aclrtMemset(in, 448 * 448 * 3 / 2, 128, 448 * 448 * 3 / 2);
  acldvppPicDesc *pin = nv12(in, 448, 448), *pout = nv12(out, 224, 224);
  acldvppResizeConfig* cfg = acldvppCreateResizeConfig();
  acldvppChannelDesc* ch = acldvppCreateChannelDesc();
  Busy busy;
  if (acldvppCreateChannel(ch) != ACL_SUCCESS || !busy.on(s)) return 2;
  const aclError resized = acldvppVpcResizeAsync(ch, pin, pout, cfg, s);
  if (!bad) aclrtSynchronizeStream(s);
  const aclError destroyed = acldvppDestroyChannel(ch);
  aclrtSynchronizeStream(s);
  acldvppDestroyChannelDesc(ch);
  acldvppDestroyPicDesc(pin);
  acldvppDestroyPicDesc(pout);
  acldvppDestroyResizeConfig(cfg);
  acldvppFree(in);
  acldvppFree(out);
  busy.free();
  const int rc = close_device(s);
  return resized == ACL_SUCCESS && destroyed == ACL_SUCCESS ? rc : 3;
}

// ---- callbacks ------------------------------------------------------------------

struct Reporter {
  pthread_t tid{};
  aclrtContext ctx = nullptr;
  aclrtStream stream = nullptr;
  bool bad = false;
  std::atomic<bool> go{false};  // set once the thread is subscribed (report.thread_subscribed)
  std::atomic<bool> stop{false};
  std::atomic<int> ran{0};
  std::atomic<aclError> inner{ACL_SUCCESS};
  static void* loop(void* arg) {
    auto* r = static_cast<Reporter*>(arg);
    aclrtSetCurrentContext(r->ctx);
    while (!r->go.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    while (!r->stop.load()) aclrtProcessReport(10);
    return nullptr;
  }
  // bad: waits for its own stream inside the callback (documented: errors or deadlock).
  static void callback(void* arg) {
    auto* r = static_cast<Reporter*>(arg);
    if (r->bad) r->inner = aclrtSynchronizeStream(r->stream);
    r->ran.fetch_add(1);
  }
};

// A blocking callback that synchronises its own stream (bad; the simulator refuses it
// instead of hanging). The twin's callback only signals; the main thread synchronises.
int callback_forbidden_call(bool bad) {
  aclrtStream s = nullptr;
  if (!open_device(&s)) return 2;
  Reporter r;
  r.bad = bad;
  r.stream = s;
  aclrtGetCurrentContext(&r.ctx);
  pthread_create(&r.tid, nullptr, Reporter::loop, &r);
  aclrtSubscribeReport(static_cast<uint64_t>(r.tid), s);
  r.go = true;
  aclrtLaunchCallback(Reporter::callback, &r, ACL_CALLBACK_BLOCK, s);
  aclrtSynchronizeStream(s);
  while (r.ran.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  r.stop = true;
  pthread_join(r.tid, nullptr);
  aclrtUnSubscribeReport(static_cast<uint64_t>(r.tid), s);
  const int rc = close_device(s);
  if (bad) return r.inner.load() == ACL_ERROR_API_NOT_SUPPORT ? rc : 3;
  return rc;
}

}  // namespace

std::vector<Case> with_audit_cases(std::vector<Case> base) {
  const std::vector<Case> audit = {
      {"model_same_context", "RULE model.same_context ", 87, "", "", model_same_context},
      {"model_unload_in_flight", "RULE model.unload_in_flight ", 87, "", "",
       model_unload_in_flight},
      {"channel_destroy_pending", "RULE dvpp.channel_destroy_pending ", 87, "", "",
       channel_destroy_pending},
      {"callback_forbidden_call", "RULE callback.forbidden_call ", 87, "", "",
       callback_forbidden_call},
  };
  base.insert(base.end(), audit.begin(), audit.end());
  return base;
}

}  // namespace corpus
