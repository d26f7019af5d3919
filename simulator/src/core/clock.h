// The device timeline's clock. Model time is microseconds since aclInit;
// wall time is model time multiplied by ACL_SIM_TIME_SCALE (0.1 runs the
// device 10x faster than the profile says). All device deadlines are absolute
// model times, converted to wall time only to decide when to wake up.
#ifndef ACL_SIM_SRC_CLOCK_H_
#define ACL_SIM_SRC_CLOCK_H_

#include <chrono>

namespace sim {

class Clock {
 public:
  using Wall = std::chrono::steady_clock;

  void start(double scale) {
    scale_ = scale;
    epoch_ = Wall::now();
    ++generation_;
  }
  // Changes at every start(), so per-thread model state can tell it is stale.
  unsigned generation() const { return generation_; }
  double scale() const { return scale_; }
  double now_us() const {
    return std::chrono::duration<double, std::micro>(Wall::now() - epoch_).count() / scale_;
  }
  Wall::time_point wall_at(double model_us) const {
    return epoch_ + std::chrono::duration_cast<Wall::duration>(
                        std::chrono::duration<double, std::micro>(model_us * scale_));
  }
  // Host timeouts are given in model milliseconds.
  Wall::time_point deadline_after_ms(double model_ms) const {
    return wall_at(now_us() + model_ms * 1000.0);
  }

 private:
  double scale_ = 1.0;
  unsigned generation_ = 0;
  Wall::time_point epoch_ = Wall::now();
};

Clock& model_clock();

}  // namespace sim

#endif  // ACL_SIM_SRC_CLOCK_H_
