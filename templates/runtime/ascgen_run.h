// ascgen_run.h: a frame program's run (its workers pushing frames as fast as the stream layout
// lets them, the reference run for --verify, the report) and its main(): one device, or several
// as threads or processes (ascgen_devices.h). Emitted verbatim by ascgen.
#ifndef ASCGEN_RUN_H_
#define ASCGEN_RUN_H_

#include "ascgen_affinity.h"
#include "ascgen_devices.h"
#include "ascgen_driver.h"
#include "ascgen_numa.h"
#include "ascgen_signals.h"

namespace ascgen {

// ---------------------------------------------------------------- the run

template <class W, class Layout>
void run_worker(W& t, aclrtContext context, const std::vector<Input>& inputs,
                const std::vector<int>& cpus) {
  current_run() = t.run;
  Run& run = run_state();
  const double cpu0 = thread_cpu_s();
  try {
    check(aclrtSetCurrentContext(context), "worker", "aclrtSetCurrentContext");
    pin_current_thread(cpus);
    Layout::drive(t, inputs);
  } catch (const std::exception& e) {
    run.error.set(e.what());
    run.stop = true;
    t.completions.abort();
  }
  t.cpu_s = thread_cpu_s() - cpu0;
}

// Runs every input once through worker 0, serially, and keeps its output as the reference.
template <class W, class Layout>
void record_reference(W& t, const std::vector<Input>& inputs) {
  Run& run = run_state();
  run.recording = true;
  run.expected.assign(inputs.size(), {});
  for (const Input& in : inputs) Layout::reference(t, in, inputs);
  run.recording = false;
}

// The workers' measurements merged into the report; returns their latency histogram.
template <class W>
LatencyHistogram fill_report(Report& report, const std::vector<std::unique_ptr<W>>& workers,
                             double report_cpu) {
  Run& run = run_state();
  LatencyHistogram latency;
  double rate_qps = 0;
  bool rated = true;
  for (const auto& t : workers) {
    latency.merge(t->latency);
    report.frames += t->measured_frames;
    report.host_cpu_s += t->cpu_s;
    rated = rated && t->rate.known();
    rate_qps += t->rate.qps();
  }
  if (rated) report.qps = rate_qps;  // else frames / duration
  report.host_cpu_s += report_cpu;
  report.frames_failed = run.frames_failed;
  report.first_failure_input = run.first_failure_input;
  report.first_failure_code = run.first_failure_code;
  return latency;
}

// One device's run. init_acl: this run initialises AscendCL (false under deploy: threads, where
// the process did once for every device).
template <class W, class Layout>
int run(const ProgramInfo& info, const Options& opt, Cleanup& cleanup,
        const std::vector<StageInfo>& stages, bool init_acl = true) {
  Run& run = run_state();
  run.info = &info;
  if (opt.load_given)
    throw BadFlags(
        "--clients, --rate and --trace load a server: a spec with source: {kind: requests}");
  if (!opt.only_stage.empty()) {
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
    run.only_stage = opt.only_stage;
  }
  const int window = Layout::window(opt, info);
  check_budget(info, opt.threads, window);
  const int32_t device = opt.devices.empty() ? info.device_id : std::atoi(opt.devices.c_str());
  // host.numa: this device's threads on its NUMA node's CPUs; this thread first, so that the
  // pinned host memory it allocates below is first touched there.
  const NumaPlacement numa = numa_placement(opt, device, cpus_for(opt.pin));
  const std::vector<int>& cpus = numa.pinned;
  if (numa.node >= 0) pin_current_thread(cpus);
  const std::vector<Input> inputs = prepare_inputs(info, opt.input, W::inspect_input);
  run.inputs = &inputs;
  const aclrtContext context = open_device(device, init_acl, cleanup);
  const Setup common{-1, window, info.batch_slots.slots(window), inputs, opt.model};
  typename W::Shared shared;  // what one copy serves every worker (outlives them: joined below)
  shared.setup(common, cleanup);
  std::vector<std::unique_ptr<W>> workers =
      make_workers<W>(info, opt, common, shared, run, cleanup);
  std::unique_ptr<ReportThread> reporter;
  if (Layout::kCallbacks) {
    reporter =
        start_reporter(context, workers, cleanup, [&run, &workers](const std::string& error) {
          run.error.set(error);
          run.stop = true;
          for (auto& t : workers) t->completions.abort();
        });
  }
  // Runs first at teardown, on every path: nothing is released while the device still uses it.
  cleanup.add("aclrtSynchronizeDevice (drain before release)",
              [] { return aclrtSynchronizeDevice(); });
  CallbackDrain drain(reporter.get());  // before the workers go, on every path
  size_t mem_free = 0, mem_total = 0;
  check(aclrtGetMemInfo(info.memory_attr, &mem_free, &mem_total), "setup", "aclrtGetMemInfo");

  run.verify = opt.verify;
  run.skip_decode_errors = opt.skip_decode_errors;
  if (opt.verify) record_reference<W, Layout>(*workers[0], inputs);

  Progress progress;
  begin_measurement(run, opt);
  const double cpu0 = process_cpu_s();
  std::vector<std::thread> threads;
  for (auto& t : workers)
    threads.emplace_back(run_worker<W, Layout>, std::ref(*t), context, std::cref(inputs),
                         std::cref(cpus));
  progress.run_until(run.stop, run.completed, run.measure_start, run.measure_end);
  run.stop = true;
  for (std::thread& th : threads) th.join();
  const double elapsed = std::max(0.0, std::min(now_s(), run.measure_end) - run.measure_start);
  drain.finish();
  run.error.rethrow();

  Report report = report_head(info, opt);
  report.duration_s = elapsed;
  const LatencyHistogram latency = fill_report(report, workers, reporter ? reporter->cpu_s() : 0.0);
  report.process_cpu_s = process_cpu_s() - cpu0;
  report.device_memory_bytes = static_cast<int64_t>(mem_total - mem_free);
  report.interrupted = stop_signal() != 0;
  report.windows_qps = progress.windows();
  report.windows_latency = run.windows.p99_max_ms();
  report.verified = verified_state(run, opt, workers[0]->output(0) != nullptr);
  for (const StageInfo& s : stages)
    report.stages.push_back({s.name, s.per_batch ? report.frames / info.batch : report.frames});
  if (numa.node >= 0) report.more = [&numa](Json& j) { numa_json(j, numa); };
  report.write(latency, opt.json_path, opt.quiet);
  return run_status(info.name, run, opt, report.frames);
}

// One device's run inside a cleanup that releases everything in reverse order on every path.
template <class W, class Layout>
int run_one(const ProgramInfo& info, const Options& opt, const std::vector<StageInfo>& stages,
            bool init_acl = true) {
  Cleanup cleanup;
  int status = 0;
  std::string error;
  try {
    status = run<W, Layout>(info, opt, cleanup, stages, init_acl);
  } catch (const BadFlags& e) {
    error = e.what();
    status = 2;
  } catch (const std::exception& e) {
    error = e.what();
    status = 3;
  }
  DeviceOutput* out = device_output();  // one of several devices: its parent merges
  if (!error.empty()) {
    const std::string who = out == nullptr ? "" : " device " + opt.devices;
    std::fprintf(stderr, "%s%s: %s\n", info.name, who.c_str(), error.c_str());
  }
  if (cleanup.run() != 0 && status == 0) {
    status = 3;
    error = cleanup.first_failure();  // (printed by the cleanup) the reason the parent names
  }
  if (out != nullptr) out->error = error;
  return status;
}

// The whole program: options, then one device's run, or one process per device (--devices,
// or the spec's device ids) with their reports merged.
template <class W, class Layout>
int run_main(int argc, char** argv, const ProgramInfo& info, const Options& defaults,
             const std::vector<StageInfo>& stages) {
  Options opt = parse_options(argc, argv, defaults);
#if ASCGEN_BACKEND_SIM
  setenv("ACL_SIM_PROFILE", ASCGEN_SIM_PROFILE, 0);  // the device this program was planned for
#endif
  install_signal_handlers();
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
      return run_device_threads<Run>(head, opt, devices, [&](const Options& one, Run& run) {
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

#endif  // ASCGEN_RUN_H_
