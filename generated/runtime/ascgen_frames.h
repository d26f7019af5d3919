// ascgen_frames.h: a frame program's mode of the run (ascgen_run.h): its workers push frames as
// fast as the stream layout lets them (ascgen_layouts.h), the reference run for --verify, what
// its report adds; and its main(): one device, or several as threads or processes
// (ascgen_devices.h). Emitted verbatim by ascgen; hand-written, reviewed once.
#ifndef ASCGEN_FRAMES_H_
#define ASCGEN_FRAMES_H_

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "ascgen_devices.h"
#include "ascgen_numa.h"
#include "ascgen_run.h"

namespace ascgen {

template <class W, class Layout>
class FrameMode {
 public:
  static constexpr bool kTimedAtStop = false;  // the workers' last windows are measured

  void check_flags(const Options& opt) {
    if (opt.load_given)
      throw BadFlags(
          "--clients, --rate and --trace load a server: a spec with source: {kind: requests}");
    if constexpr (W::kObjects) {
      // per_stage: a graph's decoded pictures are held until their crops are submitted, which
      // waits for their batch: a batch and one more frame in flight, or the hold never lets go.
      // per_thread: each window's object work runs after its frames (with them: no stage alone).
      if (!Layout::kCallbacks && !opt.only_stage.empty())
        throw BadFlags(
            "--only-stage: a graph program's stages run with its objects' work, not alone");
      if (Layout::kCallbacks && opt.depth < run_state().info->batch + 1)
        throw BadFlags("--depth " + std::to_string(opt.depth) +
                       ": a graph program needs at least " +
                       "the batch + 1 = " + std::to_string(run_state().info->batch + 1) +
                       " frames in flight (its decoded pictures wait for their batch's crops)");
    }
    if (opt.only_stage.empty()) return;
    if (!Layout::kStageAlone)
      throw BadFlags(
          "--only-stage needs a per_thread program with submit: by_step (ascgen bench --stages "
          "builds one)");
    if (opt.verify)
      throw BadFlags(
          "--only-stage and --verify exclude each other: a stage alone verifies nothing");
    if (std::none_of(std::begin(W::kSteps), std::end(W::kSteps),
                     [&](const StepFn<W>& s) { return opt.only_stage == s.stage; }))
      throw BadFlags("--only-stage " + opt.only_stage + ": no device stage of that name");
    run_state().only_stage = opt.only_stage;
  }
  int window(const Options& opt, const ProgramInfo& info) { return Layout::window(opt, info); }
  int32_t device(const Options& opt, const ProgramInfo& info) {
    return opt.devices.empty() ? info.device_id : std::atoi(opt.devices.c_str());
  }
  // host.numa: this device's threads on its NUMA node's CPUs; this thread first, so that the
  // pinned host memory it allocates is first touched there.
  std::vector<int> cpus(const Options& opt, int32_t device) {
    numa_ = numa_placement(opt, device, cpus_for(opt.pin));
    if (numa_.node >= 0) pin_current_thread(numa_.pinned);
    return numa_.pinned;
  }
  void prepare(const Options&, const ProgramInfo&, int) {}
  void adopt(std::vector<std::unique_ptr<W>>& workers) { workers_ = &workers; }
  bool callbacks() const { return Layout::kCallbacks; }
  void abort() {}
  // Runs every input once through worker 0, serially, and keeps its output as the reference.
  void reference(const std::vector<Input>& inputs) {
    Run& run = run_state();
    run.recording = true;
    run.expected.assign(inputs.size(), {});
    run.results.assign(inputs.size(), {});
    for (const Input& in : inputs) Layout::reference(*workers_->front(), in, inputs);
    run.recording = false;
    inputs_ = &inputs;
  }
  void start(aclrtContext context, const std::vector<Input>& inputs, const std::vector<int>& cpus) {
    for (auto& t : *workers_) {
      W* w = t.get();
      threads_.emplace_back([w, context, &inputs, &cpus] {
        worker_thread(*w, context, cpus, [w, &inputs] { Layout::drive(*w, inputs); }, [] {});
      });
    }
  }
  void join() {
    for (std::thread& th : threads_) th.join();
  }
  // The workers' measurements: frames, the run's completion rate, the merged latencies.
  LatencyHistogram fill(Report& report) {
    LatencyHistogram latency;
    for (const auto& t : *workers_) {
      latency.merge(t->latency);
      report.frames += t->measured_frames;
    }
    const CompletionRate rate = run_state().rate.get();
    if (rate.known()) report.qps = rate.qps();  // else frames / duration
    report.more = [this](Json& j) {
      if (numa_.node >= 0) numa_json(j, numa_);
      if constexpr (W::kObjects) {  // a graph: each frame's latency by stage
        using Part = std::remove_cv_t<decltype(W::objects)>;
        using Marks = std::remove_cv_t<decltype(W::stage_marks)>;
        std::vector<const Part*> parts;
        std::vector<const Marks*> frame_parts;
        for (const auto& t : *workers_) {
          parts.push_back(&t->objects);
          frame_parts.push_back(&t->stage_marks);
        }
        Part::breakdown_json(j, parts, frame_parts);
      }
      if (inputs_ != nullptr) results_json(j, run_state(), *inputs_);
    };
    return latency;
  }
  int64_t batches(const Report& report) const { return report.frames / run_state().info->batch; }
  bool verifiable(const W& first) const { return first.output(0) != nullptr; }
  void after_report(const ProgramInfo&) {}

 private:
  NumaPlacement numa_;
  std::vector<std::unique_ptr<W>>* workers_ = nullptr;
  std::vector<std::thread> threads_;
  const std::vector<Input>* inputs_ = nullptr;  // --verify: the inputs of the reference run
};

// One device's frame run.
template <class W, class Layout>
int run_one(const ProgramInfo& info, const Options& opt, const std::vector<StageInfo>& stages,
            bool init_acl = true) {
  return guarded(info, opt, [&](Cleanup& cleanup) {
    FrameMode<W, Layout> mode;
    return run_program<W>(mode, info, opt, cleanup, stages, init_acl);
  });
}

// The whole program: options, then one device's run, or one process per device (--devices,
// or the spec's device ids) with their reports merged.
template <class W, class Layout>
int run_main(int argc, char** argv, const ProgramInfo& info, const Options& defaults,
             const std::vector<StageInfo>& stages) {
  Options opt = start_program(argc, argv, defaults);
  warn_numa_balancing(info.name);
  if (opt.devices.empty()) return run_one<W, Layout>(info, opt, stages);
  const std::vector<int32_t> devices = parse_devices(info.name, opt.devices);
  if (devices.size() == 1) {
    opt.devices = std::to_string(devices[0]);
    return run_one<W, Layout>(info, opt, stages);
  }
  const Report head = report_head(info, opt);  // what the merged report says of the program
  try {
    if (opt.deploy == "threads")
      return run_device_threads(head, opt, devices, [&](const Options& one, Run& run) {
        current_run() = &run;
        return run_one<W, Layout>(info, one, stages, false);
      });
    return run_devices(head, opt, devices,
                       [&](const Options& one) { return run_one<W, Layout>(info, one, stages); });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", info.name, e.what());
    return 3;
  }
}

}  // namespace ascgen

#endif  // ASCGEN_FRAMES_H_
