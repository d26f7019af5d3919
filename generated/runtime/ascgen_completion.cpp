// ascgen_completion.cpp: what ascgen_completion.h declares (README.md: how it is compiled).

#include "ascgen_completion.h"

namespace ascgen {

void Completions::wait_until_done(int64_t batches) {
  std::unique_lock<std::mutex> lock(mu_);
  while (done_ < batches && !aborted_) {
    int64_t before = done_;
    if (!cv_.wait_for(lock, std::chrono::seconds(60), [&] { return done_ != before || aborted_; }))
      throw std::runtime_error("no batch completed for 60 s: the device or a callback is stuck");
  }
}

ReportThread::ReportThread(aclrtContext context, std::function<void(const std::string&)> fail)
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

ReportThread::~ReportThread() {
  stop();
}

}  // namespace ascgen
