// ascgen_support.h: the AscendCL side of every generated program. Emitted verbatim by ascgen
// next to main.cpp; hand-written, reviewed once, shared by every pipeline.
//
// - ASCGEN_CHECK: every AscendCL call is checked; a failure throws ascgen::AclFailure
//   naming the stage, the call and the error code.
// - Cleanup: resources are registered as they are created and released in reverse order,
//   on success and on every error path.
// - Pool / EventRing: rings of equal buffer slots and of events, allocated once at start-up.
// - Completions / ReportThread: batches completed by stream callbacks, observed without
//   blocking a submitting thread.
// The host side (options, inputs, metrics, JSON) is in ascgen_host.h.
#ifndef ASCGEN_SUPPORT_H_
#define ASCGEN_SUPPORT_H_

#include <cassert>
#include <condition_variable>
#include <functional>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "ascgen_host.h"
#if ASCGEN_BACKEND_SIM
#include "acl_sim/acl_sim.h"
#endif

// Bumped when the contract between generated main.cpp files and these headers changes.
#define ASCGEN_SUPPORT_ABI 2

#define ASCGEN_CHECK(stage, call) ::ascgen::check((call), (stage), #call)

namespace ascgen {

// ---------------------------------------------------------------- errors and cleanup

struct AclFailure : std::runtime_error {
  AclFailure(const std::string& stage, const std::string& call, aclError code)
      : std::runtime_error("stage '" + stage + "': " + call + " failed with error " +
                           std::to_string(code)),
        code(code) {}
  aclError code;
};

inline std::string call_name(const char* expr) {
  std::string s(expr);
  return s.substr(0, s.find('('));
}

inline void check(aclError ret, const char* stage, const char* expr) {
  if (ret != ACL_SUCCESS) throw AclFailure(stage, call_name(expr), ret);
}

// A create call that returns a pointer: NULL is a failure of that call (out of memory).
template <class T>
T* require(T* created, const char* stage, const char* call) {
  if (!created) throw AclFailure(stage, call, ACL_ERROR_BAD_ALLOC);
  return created;
}

// A LIFO of release actions. Each runs once; a failing release is reported and the rest
// still run, so nothing leaks whatever failed first.
class Cleanup {
 public:
  void add(std::string what, std::function<aclError()> release) {
    std::lock_guard<std::mutex> lock(mu_);
    actions_.push_back({std::move(what), std::move(release)});
  }
  int run() {
    std::lock_guard<std::mutex> lock(mu_);
    int failures = 0;
    while (!actions_.empty()) {
      Action a = std::move(actions_.back());
      actions_.pop_back();
      aclError ret = a.release();
      if (ret != ACL_SUCCESS) {
        const std::string line = "cleanup: " + a.what + " failed with error " + std::to_string(ret);
        std::fprintf(stderr, "%s\n", line.c_str());
        if (failures++ == 0) first_failure_ = line;
      }
    }
    return failures;
  }
  // The first release that failed in run(), as its line says ("" if none).
  const std::string& first_failure() const { return first_failure_; }

 private:
  struct Action {
    std::string what;
    std::function<aclError()> release;
  };
  std::mutex mu_;
  std::vector<Action> actions_;
  std::string first_failure_;
};

// ---------------------------------------------------------------- memory

enum class Memory { kDvpp, kDevice, kHostPinned };

// How many slots a ring has for a window of frames in flight per thread (--depth, or the
// sync window): the planner's SlotRule (ascgen/plan_model.py), applied to the run-time window.
struct SlotRule {
  int frames_per_slot;  // 1 for frame pools, the batch for batch pools
  int min_slots;        // per_stage batch rings keep two batches
  int fixed;            // a per-stage depth from the spec, 0 = none
  constexpr int slots(int window) const {
    return fixed > 0 ? fixed
                     : std::max(min_slots, (window + frames_per_slot - 1) / frames_per_slot);
  }
};

// A pool as the plan sized it: memory kind, bytes per slot (as requested and as the
// allocator reserves them) and its slot rule.
struct PoolSpec {
  Memory memory;
  size_t slot_bytes;
  size_t alloc_bytes;
  SlotRule rule;
};

// A ring of equal slots of one memory kind, allocated once, pre-touched, freed by Cleanup.
class Pool {
 public:
  void allocate(const char* stage, const char* name, const PoolSpec& spec, int window,
                Cleanup& cleanup) {
    name_ = name;
    bytes_ = spec.slot_bytes;
    slots_.assign(static_cast<size_t>(spec.rule.slots(window)), nullptr);
    for (void*& slot : slots_) {
      slot = alloc_one(stage, spec.memory, spec.slot_bytes, cleanup, name);
    }
  }
  // Frame or batch `index` uses slot index % slots (a reuse distance of slots()).
  void* slot(int64_t index) const {
    assert(index >= 0 && !slots_.empty());
    return slots_[static_cast<size_t>(index) % slots_.size()];
  }
  int slots() const { return static_cast<int>(slots_.size()); }
  size_t slot_bytes() const { return bytes_; }

 private:
  // Allocates one slot and registers its release before anything else can fail, so a failed
  // memset cannot leak the block.
  static void* alloc_one(const char* stage, Memory memory, size_t bytes, Cleanup& cleanup,
                         const char* pool) {
    void* p = nullptr;
    switch (memory) {
      case Memory::kDvpp:
        check(acldvppMalloc(&p, bytes), stage, "acldvppMalloc");
        break;
      case Memory::kDevice:
        check(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), stage, "aclrtMalloc");
        break;
      case Memory::kHostPinned:
        check(aclrtMallocHost(&p, bytes), stage, "aclrtMallocHost");
        break;
    }
    cleanup.add(std::string(free_name(memory)) + " of pool " + pool, release_for(memory, p));
    if (memory == Memory::kHostPinned)
      std::memset(p, 0, bytes);  // pre-touch: no page faults during the run
    else
      check(aclrtMemset(p, bytes, 0, bytes), stage, "aclrtMemset");
    return p;
  }
  static const char* free_name(Memory memory) {
    switch (memory) {
      case Memory::kDvpp:
        return "acldvppFree";
      case Memory::kDevice:
        return "aclrtFree";
      case Memory::kHostPinned:
        break;
    }
    return "aclrtFreeHost";
  }
  static std::function<aclError()> release_for(Memory memory, void* p) {
    switch (memory) {
      case Memory::kDvpp:
        return [p] { return acldvppFree(p); };
      case Memory::kDevice:
        return [p] { return aclrtFree(p); };
      case Memory::kHostPinned:
        break;
    }
    return [p] { return aclrtFreeHost(p); };
  }
  std::string name_;
  size_t bytes_ = 0;
  std::vector<void*> slots_;
};

// A ring of classic events with exactly one waiter, one event per slot of the pool it guards.
// Each record is waited on once and reset by its waiter before the ring comes round to it
// again: Create -> Record -> StreamWaitEvent -> ResetEvent on the waiting stream (ACL_FACTS
// 1.4 "Events": one waiter per event; only Ex events, absent on the 310, may be re-recorded).
class EventRing {
 public:
  void create(const char* stage, const char* name, int count, Cleanup& cleanup) {
    stage_ = stage;
    events_.assign(static_cast<size_t>(count), nullptr);
    for (aclrtEvent& e : events_) {
      check(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC), stage, "aclrtCreateEventWithFlag");
      aclrtEvent ev = e;
      cleanup.add(std::string("aclrtDestroyEvent of ring ") + name,
                  [ev] { return aclrtDestroyEvent(ev); });
    }
  }
  int size() const { return static_cast<int>(events_.size()); }
  // The recorder: marks item `index` done on `stream`.
  void record(int64_t index, aclrtStream stream) const {
    check(aclrtRecordEvent(at(index), stream), stage_, "aclrtRecordEvent");
  }
  // The waiting stream: work submitted after this waits for item `index`; the event is then
  // reset on the same stream, ready for its next record.
  void wait(int64_t index, aclrtStream stream) const {
    aclrtEvent e = at(index);
    check(aclrtStreamWaitEvent(stream, e), stage_, "aclrtStreamWaitEvent");
    check(aclrtResetEvent(e, stream), stage_, "aclrtResetEvent");
  }
  // The host as the waiter: blocks until item `index` is done, then resets the event on the
  // recording stream, before that stream's next record of it.
  void host_wait(int64_t index, aclrtStream recorder) const {
    aclrtEvent e = at(index);
    check(aclrtSynchronizeEvent(e), stage_, "aclrtSynchronizeEvent");
    check(aclrtResetEvent(e, recorder), stage_, "aclrtResetEvent");
  }

 private:
  aclrtEvent at(int64_t index) const {
    assert(index >= 0 && !events_.empty());
    return events_[static_cast<size_t>(index) % events_.size()];
  }
  const char* stage_ = "";
  std::vector<aclrtEvent> events_;
};

// A stream, named after its owner (worker -1: shared by the workers) for the simulator's hazard
// reports.
inline aclrtStream new_stream(const char* stage, const char* name, int worker, Cleanup& cleanup) {
  aclrtStream s = nullptr;
  check(aclrtCreateStream(&s), stage, "aclrtCreateStream");
  cleanup.add(std::string("aclrtDestroyStream ") + name, [s] { return aclrtDestroyStream(s); });
#if ASCGEN_BACKEND_SIM
  std::string label =
      std::string(name) + (worker < 0 ? " (shared)" : " of worker " + std::to_string(worker));
  check(aclsimSetStreamName(s, label.c_str()), stage, "aclsimSetStreamName");
#else
  (void)worker;
#endif
  return s;
}

// A DVPP channel for the work of one stream: a channel is never used by two streams at once
// (CANN 5.0.4-9.0, acldvppCreateChannel).
// `modes` (acldvppChannelMode bits) is set where the device has channel modes, else 0.
inline acldvppChannelDesc* new_dvpp_channel(const char* stage, uint32_t modes, Cleanup& cleanup) {
  acldvppChannelDesc* c = require(acldvppCreateChannelDesc(), stage, "acldvppCreateChannelDesc");
  cleanup.add("acldvppDestroyChannelDesc", [c] { return acldvppDestroyChannelDesc(c); });
  if (modes != 0) check(acldvppSetChannelDescMode(c, modes), stage, "acldvppSetChannelDescMode");
  check(acldvppCreateChannel(c), stage, "acldvppCreateChannel");
  cleanup.add("acldvppDestroyChannel", [c] { return acldvppDestroyChannel(c); });
  return c;
}

inline uint32_t align_up(uint32_t v, uint32_t a) {
  return (v + a - 1) / a * a;
}

// ---------------------------------------------------------------- DVPP and model helpers

// A YUV420SP picture as the plan laid it out (strides and bytes are the planner's).
struct Picture {
  acldvppPixelFormat format;
  uint32_t width, height, width_stride, height_stride;
  size_t bytes;
};

inline acldvppPicDesc* new_pic_desc(const char* stage, Cleanup& cleanup) {
  acldvppPicDesc* desc = require(acldvppCreatePicDesc(), stage, "acldvppCreatePicDesc");
  cleanup.add("acldvppDestroyPicDesc", [desc] { return acldvppDestroyPicDesc(desc); });
  return desc;
}

inline void set_pic_desc(const char* stage, acldvppPicDesc* d, void* data, uint32_t size,
                         acldvppPixelFormat format, uint32_t width, uint32_t height,
                         uint32_t width_stride, uint32_t height_stride) {
  check(acldvppSetPicDescData(d, data), stage, "acldvppSetPicDescData");
  check(acldvppSetPicDescSize(d, size), stage, "acldvppSetPicDescSize");
  check(acldvppSetPicDescFormat(d, format), stage, "acldvppSetPicDescFormat");
  check(acldvppSetPicDescWidth(d, width), stage, "acldvppSetPicDescWidth");
  check(acldvppSetPicDescHeight(d, height), stage, "acldvppSetPicDescHeight");
  check(acldvppSetPicDescWidthStride(d, width_stride), stage, "acldvppSetPicDescWidthStride");
  check(acldvppSetPicDescHeightStride(d, height_stride), stage, "acldvppSetPicDescHeightStride");
}

// Descriptors of `picture` at item `item` of every slot of `pool` (items > 1: frames laid
// side by side in a batch slot), in the order slot * items + item.
inline std::vector<acldvppPicDesc*> picture_descs(const char* stage, const Pool& pool, int items,
                                                  const Picture& picture, Cleanup& cleanup) {
  std::vector<acldvppPicDesc*> descs;
  for (int slot = 0; slot < pool.slots(); ++slot) {
    for (int item = 0; item < items; ++item) {
      acldvppPicDesc* desc = new_pic_desc(stage, cleanup);
      uint8_t* data =
          static_cast<uint8_t*>(pool.slot(slot)) + static_cast<size_t>(item) * picture.bytes;
      set_pic_desc(stage, desc, data, static_cast<uint32_t>(picture.bytes), picture.format,
                   picture.width, picture.height, picture.width_stride, picture.height_stride);
      descs.push_back(desc);
    }
  }
  return descs;
}

inline acldvppRoiConfig* new_roi(const char* stage, uint32_t left, uint32_t right, uint32_t top,
                                 uint32_t bottom, Cleanup& cleanup) {
  acldvppRoiConfig* roi =
      require(acldvppCreateRoiConfig(left, right, top, bottom), stage, "acldvppCreateRoiConfig");
  cleanup.add("acldvppDestroyRoiConfig", [roi] { return acldvppDestroyRoiConfig(roi); });
  return roi;
}

inline acldvppResizeConfig* new_resize_config(const char* stage, uint32_t interpolation,
                                              Cleanup& cleanup) {
  acldvppResizeConfig* c = require(acldvppCreateResizeConfig(), stage, "acldvppCreateResizeConfig");
  cleanup.add("acldvppDestroyResizeConfig", [c] { return acldvppDestroyResizeConfig(c); });
  check(acldvppSetResizeConfigInterpolation(c, interpolation), stage,
        "acldvppSetResizeConfigInterpolation");
  return c;
}

// Where a w x h picture lands in an out_w x out_h letterbox: scaled to fit, aspect ratio
// kept, centred; DVPP ROIs have even left/top and odd right/bottom and are at least 10x6
// (ACL_FACTS 4, crop / paste ROI).
struct LetterboxArea {
  uint32_t left, right, top, bottom;
};

inline LetterboxArea letterbox_area(uint32_t w, uint32_t h, uint32_t out_w, uint32_t out_h) {
  const double scale = std::min(static_cast<double>(out_w) / w, static_cast<double>(out_h) / h);
  auto even = [](double v, uint32_t lo, uint32_t hi) {
    uint32_t e = static_cast<uint32_t>(v) & ~1u;
    return std::min(std::max(e, lo), hi);
  };
  const uint32_t pw = even(w * scale, 10, out_w & ~1u), ph = even(h * scale, 6, out_h & ~1u);
  const uint32_t left = ((out_w - pw) / 2) & ~1u, top = ((out_h - ph) / 2) & ~1u;
  return {left, left + pw - 1, top, top + ph - 1};
}

// Paints a picture's canvas one colour: luma plane, then the interleaved chroma plane.
inline void fill_canvas(const char* stage, acldvppPicDesc* desc, const Picture& picture,
                        int32_t luma, int32_t chroma, aclrtStream stream) {
  uint8_t* data = static_cast<uint8_t*>(acldvppGetPicDescData(desc));
  const size_t luma_bytes = static_cast<size_t>(picture.width_stride) * picture.height_stride;
  check(aclrtMemsetAsync(data, luma_bytes, luma, luma_bytes, stream), stage, "aclrtMemsetAsync");
  check(aclrtMemsetAsync(data + luma_bytes, picture.bytes - luma_bytes, chroma,
                         picture.bytes - luma_bytes, stream),
        stage, "aclrtMemsetAsync");
}

// Copies frame i of batch b into its place in the batch slot (batch assembly by copy).
inline void copy_into_batch(const char* stage, const Pool& batch, int64_t b, int64_t i,
                            const void* frame, size_t frame_bytes, aclrtStream stream) {
  const size_t offset = static_cast<size_t>(i) * frame_bytes;
  uint8_t* dst = static_cast<uint8_t*>(batch.slot(b)) + offset;
  check(aclrtMemcpyAsync(dst, batch.slot_bytes() - offset, frame, frame_bytes,
                         ACL_MEMCPY_DEVICE_TO_DEVICE, stream),
        stage, "aclrtMemcpyAsync");
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

// A model with dynamic batch gears: checks that it was compiled with `gears` (ATC's
// --dynamic_batch_size) and returns the index of its ascend_mbatch_shape_data input (ACL_FACTS
// 5, "Dynamic batch").
template <size_t N>
size_t dynamic_batch_input(const char* stage, aclmdlDesc* desc, const int (&gears)[N]) {
  aclmdlBatch got{};
  check(aclmdlGetDynamicBatch(desc, &got), stage, "aclmdlGetDynamicBatch");
  bool same = got.batchCount == N;
  for (size_t k = 0; same && k < N; ++k) same = got.batch[k] == static_cast<uint64_t>(gears[k]);
  if (!same)
    throw std::runtime_error(std::string("stage '") + stage + "': the model has " +
                             std::to_string(got.batchCount) +
                             " dynamic batch gears, not the spec's " + std::to_string(N) +
                             " (gears); compile it with them or correct the spec");
  size_t index = 0;
  check(aclmdlGetInputIndexByName(desc, ACL_DYNAMIC_TENSOR_NAME, &index), stage,
        "aclmdlGetInputIndexByName");
  return index;
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

// The loaded model must take and give exactly what the plan sized the buffers for.
inline void expect_model_sizes(const char* stage, aclmdlDesc* desc, size_t in, size_t out) {
  size_t got_in = aclmdlGetInputSizeByIndex(desc, 0);
  if (got_in == 0) throw AclFailure(stage, "aclmdlGetInputSizeByIndex", ACL_ERROR_INVALID_PARAM);
  size_t got_out = aclmdlGetOutputSizeByIndex(desc, 0);
  if (got_out == 0) throw AclFailure(stage, "aclmdlGetOutputSizeByIndex", ACL_ERROR_INVALID_PARAM);
  if (got_in != in || got_out != out)
    throw std::runtime_error(std::string("stage '") + stage + "': the model takes " +
                             std::to_string(got_in) + " bytes and gives " +
                             std::to_string(got_out) + ", but the spec plans " +
                             std::to_string(in) + " and " + std::to_string(out) +
                             "; regenerate from a spec that matches the model");
}

// ---------------------------------------------------------------- completion

// The first error of any thread; the run stops and main reports it.
class FirstError {
 public:
  void set(const std::string& message) {
    std::lock_guard<std::mutex> lock(mu_);
    if (message_.empty()) message_ = message;
  }
  void rethrow() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!message_.empty()) throw std::runtime_error(message_);
  }

 private:
  std::mutex mu_;
  std::string message_;
};

// Batches of one worker completed so far, in order (callbacks of one stream run in order).
class Completions {
 public:
  void done(int64_t batch) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = batch + 1;
    }
    cv_.notify_all();
  }
  // Blocks until `batches` batches are complete; fails after 60 s of no progress.
  void wait_until_done(int64_t batches) {
    std::unique_lock<std::mutex> lock(mu_);
    while (done_ < batches && !aborted_) {
      int64_t before = done_;
      if (!cv_.wait_for(lock, std::chrono::seconds(60),
                        [&] { return done_ != before || aborted_; }))
        throw std::runtime_error("no batch completed for 60 s: the device or a callback is stuck");
    }
  }
  void abort() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      aborted_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t done_ = 0;
  bool aborted_ = false;
};

// The thread that runs stream callbacks. It starts, publishes its id and waits: main subscribes
// it to the completion streams (aclrtSubscribeReport) and only then calls start(), because
// aclrtProcessReport on a thread with no subscription fails at once with
// ACL_ERROR_RT_THREAD_SUBSCRIBE (ACL_FACTS 1.4, Callbacks). It loops until stopped (on
// destruction at the latest, so no error path can leave it running).
class ReportThread {
 public:
  // `fail` is called once, on the report thread, when one of its calls fails: the run fails.
  ReportThread(aclrtContext context, std::function<void(const std::string&)> fail)
      : fail_(std::move(fail)), thread_([this, context] { loop(context); }) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return state_ != State::kStarting; });
    }
    // The thread could not serve this context: fail here, before any stream is subscribed to
    // it, so that no callback is ever launched that nothing would run.
    if (context_error_ != ACL_SUCCESS) {
      thread_.join();
      check(context_error_, "report thread", "aclrtSetCurrentContext");
    }
  }
  ReportThread(const ReportThread&) = delete;
  ReportThread& operator=(const ReportThread&) = delete;
  ~ReportThread() { stop(); }
  uint64_t id() const { return id_; }
  double cpu_s() const { return cpu_s_; }
  bool failed() const { return failed_; }
  // Every stream it serves is subscribed: begin processing reports.
  void start() { set(State::kRunning); }
  void stop() {
    set(State::kStopped);
    if (thread_.joinable()) thread_.join();
  }

 private:
  enum class State { kStarting, kWaiting, kRunning, kStopped };
  void set(State s) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (state_ != State::kStopped) state_ = s;
    }
    cv_.notify_all();
  }
  void loop(aclrtContext context) {
    id_ = static_cast<uint64_t>(pthread_self());
    const double cpu0 = thread_cpu_s();
    context_error_ = aclrtSetCurrentContext(context);
    if (context_error_ != ACL_SUCCESS) {
      set(State::kStopped);
      return;
    }
    set(State::kWaiting);
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return state_ == State::kRunning || state_ == State::kStopped; });
      if (state_ == State::kStopped) return;
    }
    aclError ret = ACL_SUCCESS;
    // A failed aclrtProcessReport fails the run, but the thread goes on draining the callbacks
    // already queued (they must all run before their streams are unsubscribed); it gives up
    // after kMaxFailures failures in a row.
    int failures = 0;
    while (!failed_ && running()) {
      ret = aclrtProcessReport(100);
      if (ret == ACL_SUCCESS || ret == ACL_ERROR_RT_REPORT_TIMEOUT) {
        failures = 0;
        continue;
      }
      if (failures == 0) report_failure("aclrtProcessReport", ret);
      if (++failures >= kMaxFailures) failed_ = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    cpu_s_ = thread_cpu_s() - cpu0;
  }
  static constexpr int kMaxFailures = 100;
  void report_failure(const char* call, aclError ret) {
    if (!reported_.exchange(true))
      fail_(std::string("report thread: ") + call + " failed with error " + std::to_string(ret));
  }
  bool running() {
    std::lock_guard<std::mutex> lock(mu_);
    return state_ == State::kRunning;
  }
  std::function<void(const std::string&)> fail_;
  std::mutex mu_;
  std::condition_variable cv_;
  State state_ = State::kStarting;
  std::atomic<bool> failed_{false};    // gave up: no callback will run any more
  std::atomic<bool> reported_{false};  // the run was told of a failure
  uint64_t id_ = 0;
  aclError context_error_ = ACL_SUCCESS;  // written before the constructor stops waiting
  double cpu_s_ = 0;
  std::thread thread_;
};

}  // namespace ascgen

#endif  // ASCGEN_SUPPORT_H_
