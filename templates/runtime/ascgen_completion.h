// ascgen_completion.h: how a run learns that work is done: the first error of any thread,
// each worker's completed batches, and the report thread that runs the stream callbacks.
// Emitted verbatim by ascgen; hand-written, reviewed once, shared by every pipeline.
#ifndef ASCGEN_COMPLETION_H_
#define ASCGEN_COMPLETION_H_

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "ascgen_acl.h"
#include "ascgen_metrics.h"

namespace ascgen {

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
  void wait_until_done(int64_t batches);
  // wait_until_done for at most `ms` milliseconds: whether they are done (or the run aborted).
  bool wait_done_for(int64_t batches, int ms) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::milliseconds(ms),
                        [&] { return done_ >= batches || aborted_; });
  }
  void abort() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      aborted_ = true;
    }
    cv_.notify_all();
  }
  bool aborted() {
    std::lock_guard<std::mutex> lock(mu_);
    return aborted_;
  }
  // Batches complete so far (a video feeder asks without waiting).
  int64_t done_count() {
    std::lock_guard<std::mutex> lock(mu_);
    return done_;
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
  ReportThread(aclrtContext context, std::function<void(const std::string&)> fail);
  ReportThread(const ReportThread&) = delete;
  ReportThread& operator=(const ReportThread&) = delete;
  ~ReportThread();
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

#endif  // ASCGEN_COMPLETION_H_
