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

// Bumped when the contract between generated main.cpp files and these headers changes.
#define ASCGEN_SUPPORT_ABI 1

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
        std::fprintf(stderr, "cleanup: %s failed with error %d\n", a.what.c_str(), ret);
        ++failures;
      }
    }
    return failures;
  }

 private:
  struct Action {
    std::string what;
    std::function<aclError()> release;
  };
  std::mutex mu_;
  std::vector<Action> actions_;
};

// ---------------------------------------------------------------- memory

enum class Memory { kDvpp, kDevice, kHostPinned };

// A ring of equal slots of one memory kind, allocated once, pre-touched, freed by Cleanup.
class Pool {
 public:
  void allocate(const char* stage, const char* name, Memory memory, size_t slot_bytes, int slots,
                Cleanup& cleanup) {
    name_ = name;
    bytes_ = slot_bytes;
    slots_.assign(static_cast<size_t>(slots), nullptr);
    for (void*& slot : slots_) {
      slot = alloc_one(stage, memory, slot_bytes);
      cleanup.add(std::string(free_name(memory)) + " of pool " + name, release_for(memory, slot));
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
  static void* alloc_one(const char* stage, Memory memory, size_t bytes) {
    void* p = nullptr;
    switch (memory) {
      case Memory::kDvpp:
        check(acldvppMalloc(&p, bytes), stage, "acldvppMalloc");
        check(aclrtMemset(p, bytes, 0, bytes), stage, "aclrtMemset");
        break;
      case Memory::kDevice:
        check(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), stage, "aclrtMalloc");
        check(aclrtMemset(p, bytes, 0, bytes), stage, "aclrtMemset");
        break;
      case Memory::kHostPinned:
        check(aclrtMallocHost(&p, bytes), stage, "aclrtMallocHost");
        std::memset(p, 0, bytes);  // pre-touch: no page faults during the run
        break;
    }
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

// A ring of events, one per slot of the pool its stage writes.
class EventRing {
 public:
  void create(const char* stage, int count, Cleanup& cleanup) {
    events_.assign(static_cast<size_t>(count), nullptr);
    for (aclrtEvent& e : events_) {
      check(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC), stage, "aclrtCreateEventWithFlag");
      aclrtEvent ev = e;
      cleanup.add(std::string("aclrtDestroyEvent of stage ") + stage, [ev] { return aclrtDestroyEvent(ev); });
    }
  }
  aclrtEvent at(int64_t index) const {
    assert(index >= 0 && !events_.empty());
    return events_[static_cast<size_t>(index) % events_.size()];
  }

 private:
  std::vector<aclrtEvent> events_;
};

inline int ceil_div(int a, int b) { return (a + b - 1) / b; }


inline uint32_t align_up(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

// ---------------------------------------------------------------- DVPP and model helpers

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

// A dataset of one buffer; the dataset and its buffer descriptor are released by Cleanup.
inline aclmdlDataset* new_dataset(const char* stage, void* data, size_t bytes, Cleanup& cleanup) {
  aclmdlDataset* set = require(aclmdlCreateDataset(), stage, "aclmdlCreateDataset");
  cleanup.add("aclmdlDestroyDataset", [set] { return aclmdlDestroyDataset(set); });
  aclDataBuffer* buf = require(aclCreateDataBuffer(data, bytes), stage, "aclCreateDataBuffer");
  cleanup.add("aclDestroyDataBuffer", [buf] { return aclDestroyDataBuffer(buf); });
  check(aclmdlAddDatasetBuffer(set, buf), stage, "aclmdlAddDatasetBuffer");
  return set;
}

// The loaded model must take and give exactly what the plan sized the buffers for.
inline void expect_model_sizes(const char* stage, aclmdlDesc* desc, size_t in, size_t out) {
  size_t got_in = aclmdlGetInputSizeByIndex(desc, 0);
  if (got_in == 0) throw AclFailure(stage, "aclmdlGetInputSizeByIndex", ACL_ERROR_INVALID_PARAM);
  size_t got_out = aclmdlGetOutputSizeByIndex(desc, 0);
  if (got_out == 0) throw AclFailure(stage, "aclmdlGetOutputSizeByIndex", ACL_ERROR_INVALID_PARAM);
  if (got_in != in || got_out != out)
    throw std::runtime_error(std::string("stage '") + stage + "': the model takes " +
                             std::to_string(got_in) + " bytes and gives " + std::to_string(got_out) +
                             ", but the spec plans " + std::to_string(in) + " and " +
                             std::to_string(out) + "; regenerate from a spec that matches the model");
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
      if (!cv_.wait_for(lock, std::chrono::seconds(60), [&] { return done_ != before || aborted_; }))
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

// The thread that runs stream callbacks: it loops on aclrtProcessReport until stopped
// (on destruction at the latest, so no error path can leave it running).
class ReportThread {
 public:
  // `fail` is called once, on the report thread, if it cannot go on: no callback will run.
  ReportThread(aclrtContext context, std::function<void(const std::string&)> fail)
      : fail_(std::move(fail)), thread_([this, context] { loop(context); }) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return started_; });
  }
  ReportThread(const ReportThread&) = delete;
  ReportThread& operator=(const ReportThread&) = delete;
  ~ReportThread() { stop(); }
  uint64_t id() const { return id_; }
  double cpu_s() const { return cpu_s_; }
  void stop() {
    running_ = false;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void loop(aclrtContext context) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      id_ = static_cast<uint64_t>(pthread_self());
      started_ = true;
    }
    cv_.notify_all();
    const double cpu0 = thread_cpu_s();
    const char* call = "aclrtSetCurrentContext";
    aclError ret = aclrtSetCurrentContext(context);
    while (ret == ACL_SUCCESS && running_) {
      call = "aclrtProcessReport";
      ret = aclrtProcessReport(100);
      if (ret == ACL_ERROR_RT_REPORT_TIMEOUT) ret = ACL_SUCCESS;
    }
    if (ret != ACL_SUCCESS)
      fail_(std::string("report thread: ") + call + " failed with error " + std::to_string(ret));
    cpu_s_ = thread_cpu_s() - cpu0;
  }
  std::function<void(const std::string&)> fail_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool started_ = false;
  std::atomic<bool> running_{true};
  uint64_t id_ = 0;
  double cpu_s_ = 0;
  std::thread thread_;
};

}  // namespace ascgen

#endif  // ASCGEN_SUPPORT_H_
