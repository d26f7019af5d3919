// Copy movers (mover.h): a small pool of threads, started on first use and
// never torn down (a process may exit while the device thread still waits on
// one; the pool must outlive every static that could use it).
#include "core/mover.h"

#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace sim {
namespace mover {

struct Job {
  std::function<void()> work;
  bool done = false;
};

namespace {

// Two movers: two copies on different engines (H2D and D2H, say) overlap, as
// on the device; more would only compete for the host's cores.
constexpr int kThreads = 2;

class Pool {
 public:
  Pool() : pid_(getpid()) {
    for (int i = 0; i < kThreads; ++i) std::thread([this] { loop(); }).detach();
  }
  // After fork() the child has none of the parent's threads: it moves inline.
  bool usable() const { return getpid() == pid_; }
  void push(const std::shared_ptr<Job>& job) {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(job);
    work_.notify_one();
  }
  void wait(Job& job) {
    std::unique_lock<std::mutex> lk(mu_);
    done_.wait(lk, [&] { return job.done; });
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      work_.wait(lk, [&] { return !queue_.empty(); });
      std::shared_ptr<Job> job = std::move(queue_.front());
      queue_.pop_front();
      lk.unlock();
      job->work();
      job->work = nullptr;
      lk.lock();
      job->done = true;
      done_.notify_all();
    }
  }

  const pid_t pid_;
  std::mutex mu_;
  std::condition_variable work_, done_;
  std::deque<std::shared_ptr<Job>> queue_;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: see the file comment
  return *p;
}

}  // namespace

std::shared_ptr<Job> start(std::function<void()> work) {
  auto job = std::make_shared<Job>();
  job->work = std::move(work);
  if (pool().usable()) {
    pool().push(job);
  } else {
    job->work();
    job->work = nullptr;
    job->done = true;
  }
  return job;
}

void wait(Job& job) {
  if (pool().usable()) pool().wait(job);  // else start() already ran it inline
}

}  // namespace mover
}  // namespace sim
