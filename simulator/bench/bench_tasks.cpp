// Simulated zero-duration tasks per second on this machine.
//
//   acl_sim_bench [tasks] [streams]
// Submits `tasks` engine-less tasks (the internal task API, as DVPP/model code
// uses it) round-robin over `streams` streams from one thread, then waits.
// ACL_SIM_TIME_SCALE defaults to 0.001 here, so the model's own costs
// (5 us dispatch, 3 us submit) do not cap the figure: it measures the
// simulator's CPU cost per task.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "acl/acl.h"
#include "acl_sim/acl_sim.h"
#include "core/task.h"

int main(int argc, char** argv) {
  long tasks = argc > 1 ? std::atol(argv[1]) : 400000;
  int nstreams = argc > 2 ? std::atoi(argv[2]) : 4;
  setenv("ACL_SIM_TIME_SCALE", "0.001", 0);
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
    std::fprintf(stderr, "bench: aclInit/aclrtSetDevice failed (set ACL_SIM_PROFILE?)\n");
    return 1;
  }
  std::vector<aclrtStream> streams(nstreams);
  for (auto& s : streams) aclrtCreateStream(&s);
  auto t0 = std::chrono::steady_clock::now();
  double cpu0 = aclsimCpuSeconds();
  for (long i = 0; i < tasks; ++i) {
    sim::TaskSpec spec;
    spec.name = "nop";
    sim::submit("bench", streams[i % nstreams], std::move(spec));
  }
  for (auto s : streams) aclrtSynchronizeStream(s);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double cpu = aclsimCpuSeconds() - cpu0;
  std::printf(
      "acl_sim_bench: %ld zero-duration tasks on %d streams in %.3f s: %.0f tasks/s "
      "(device thread %.2f us CPU per task)\n",
      tasks, nstreams, wall, tasks / wall, cpu / tasks * 1e6);
  for (auto s : streams) aclrtDestroyStream(s);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
