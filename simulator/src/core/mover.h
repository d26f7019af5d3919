// Copy movers: threads that move a large copy's bytes while the copy runs on
// the model timeline, instead of on the device thread at its completion.
//
// Why: the device thread handles every task in model-time order. A 64 MiB
// memmove takes ~10 ms of CPU here; done at the copy's modelled end, it delays
// every later completion by as much, so two copies that the model finishes
// together are observed one after the other and the model's overlap vanishes
// from wall time. Started when the copy takes its engine unit, the bytes move
// during the copy's modelled service time (as a DMA engine moves them), on
// their own thread; the device thread only waits, at the modelled end, for
// whatever part the host CPU has not finished yet.
//
// A copy's destination is therefore written somewhere inside [start, end] and
// its source read there, as on the device; nothing ordered after the copy can
// start before its end (the device thread waits for the mover first).
#ifndef ACL_SIM_SRC_MOVER_H_
#define ACL_SIM_SRC_MOVER_H_

#include <cstddef>
#include <functional>
#include <memory>

namespace sim {
namespace mover {

struct Job;

// Copies at least this large go to a mover; smaller ones cost less than the
// hand-off to another thread (~10-16 us) and still run at completion.
constexpr size_t kMinBytes = 256 * 1024;

// Runs `work` on a mover thread as soon as one is free; never blocks.
std::shared_ptr<Job> start(std::function<void()> work);

// Blocks until `job`'s work has returned.
void wait(Job& job);

}  // namespace mover
}  // namespace sim

#endif  // ACL_SIM_SRC_MOVER_H_
