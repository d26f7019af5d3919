// ascgen_run.h: the one run of every generated program, frame program or server: the flags
// checked against the device, the inputs, the device opened, the workers and the report
// thread, the measured period, the drain, the report and the exit status, every resource
// released in reverse order on every path. What differs is the program's mode, whose hooks the
// run calls in order: ascgen_frames.h (workers push frames as their stream layout lets them)
// and ascgen_serving.h (workers serve the batches a batcher forms from a load).
// Emitted verbatim by ascgen; hand-written, reviewed once.
//
// A mode M of workers W has:
//   void check_flags(const Options&);                   // BadFlags for flags that do not apply
//   int window(const Options&, const ProgramInfo&);     // frames in flight that size the pools
//   int32_t device(const Options&, const ProgramInfo&); // the device this run opens
//   std::vector<int> cpus(const Options&, int32_t);     // the workers' CPUs (may pin this thread)
//   void prepare(const Options&, const ProgramInfo&, int batch_slots);  // before the device
//   void adopt(std::vector<std::unique_ptr<W>>&);       // the workers, set up
//   bool callbacks() const;                             // batches complete on the report thread
//   void abort();                                       // the run failed: wake what waits
//   void reference(const std::vector<Input>&);          // --verify's reference, on worker 0
//   void start(aclrtContext, const std::vector<Input>&, const std::vector<int>& cpus);
//   void join();                                        // after the measured period
//   static constexpr bool kTimedAtStop;                 // its period ends at the stop, not the
//   join LatencyHistogram fill(Report&);                     // frames (requests), qps, extra keys
//   int64_t batches(const Report&) const;               // measured batches (per-batch stages)
//   bool verifiable(const W& first) const;              // --verify has something to compare
//   void after_report(const ProgramInfo&);              // what the report's reader must know
#ifndef ASCGEN_RUN_H_
#define ASCGEN_RUN_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ascgen_affinity.h"
#include "ascgen_driver.h"
#include "ascgen_signals.h"

namespace ascgen {

// The options of a run: the flags parsed against the program's defaults (its --input and
// --model: those its CMakeLists names); then the simulated device it was planned for, and the
// signal handlers.
inline Options start_program(int argc, char** argv, Options defaults,
                             const std::function<void(Options&)>& adjust = nullptr) {
  defaults.input = ASCGEN_DEFAULT_INPUT;
  defaults.model = ASCGEN_DEFAULT_MODEL;
  Options opt = parse_options(argc, argv, defaults);
  if (adjust) adjust(opt);
#if ASCGEN_BACKEND_SIM
  setenv("ACL_SIM_PROFILE", ASCGEN_SIM_PROFILE, 0);  // the device this program was planned for
#endif
  install_signal_handlers();
  return opt;
}

// A worker's thread: on the run's context and CPUs, `body` until it returns or fails; a
// failure stops the run (`abort` wakes what the worker's failure would leave waiting).
template <class W>
void worker_thread(W& t, aclrtContext context, const std::vector<int>& cpus,
                   const std::function<void()>& body, const std::function<void()>& abort) {
  current_run() = t.run;
  Run& run = run_state();
  const double cpu0 = thread_cpu_s();
  try {
    check(aclrtSetCurrentContext(context), "worker", "aclrtSetCurrentContext");
    pin_current_thread(cpus);
    body();
  } catch (const std::exception& e) {
    run.error.set(e.what());
    run.stop = true;
    abort();
    t.completions.abort();
  }
  t.cpu_s = thread_cpu_s() - cpu0;
}

// One device's run in `mode`. init_acl: this run initialises AscendCL (false under deploy:
// threads, where the process did once for every device).
template <class W, class Mode>
int run_program(Mode& mode, const ProgramInfo& info, const Options& opt, Cleanup& cleanup,
                const std::vector<StageInfo>& stages, bool init_acl = true) {
  Run& run = run_state();
  run.info = &info;
  mode.check_flags(opt);
  const int window = mode.window(opt, info);
  check_budget(info, worker_needs<W>(window), opt.threads, window);
  const int32_t device = mode.device(opt, info);
  const std::vector<int> cpus = mode.cpus(opt, device);
  const std::vector<Input> inputs = prepare_inputs(info, opt.input, W::inspect_input);
  run.inputs = &inputs;  // the completions read them
  const int batch_slots = info.batch_slots.slots(window);
  mode.prepare(opt, info, batch_slots);
  const aclrtContext context = open_device(device, init_acl, cleanup);
  Profiler profiler;  // --profile: initialised before the model loads
  if (!opt.profile_dir.empty() && !init_acl)
    throw BadFlags("--profile profiles one device per process: run with --deploy processes");
  // one device of several (a process each) profiles into its own folder
  profiler.init(device_output() == nullptr || opt.profile_dir.empty()
                    ? opt.profile_dir
                    : opt.profile_dir + "/device" + std::to_string(device),
                device, cleanup);
  const Setup common{-1, window, batch_slots, inputs, opt.model};
  typename W::Shared shared;  // what one copy serves every worker (outlives them: joined below)
  shared.setup(common, cleanup);
  std::vector<std::unique_ptr<W>> workers =
      make_workers<W>(info, opt, common, shared, run, cleanup);
  const std::string host_names = host_stage_names<W>(stages);  // their profile range's name
  for (auto& t : workers) {
    t->step_stamps = profiler.step_stamps(step_stages<W>(), cleanup);
    if (profiler.on() && !host_names.empty())
      t->host_stamp = profiler.step_stamps({host_names.c_str()}, cleanup)[0];
  }
  mode.adopt(workers);
  std::unique_ptr<ReportThread> reporter;
  if (mode.callbacks()) {
    reporter = start_reporter(context, workers, cleanup, [&](const std::string& error) {
      run.error.set(error);
      run.stop = true;
      mode.abort();
      for (auto& t : workers) t->completions.abort();
    });
    run.report_thread = reporter->id();
    run.reporter = reporter.get();
  }
  // Runs first at teardown, on every path: nothing is released while the device still uses it.
  cleanup.add("aclrtSynchronizeDevice (drain before release)",
              [] { return aclrtSynchronizeDevice(); });
  CallbackDrain drain(reporter.get());  // before the workers go, on every path
  size_t mem_free = 0, mem_total = 0;
  check(aclrtGetMemInfo(info.memory_attr, &mem_free, &mem_total), "setup", "aclrtGetMemInfo");

  run.verify = opt.verify;
  run.skip_decode_errors = opt.skip_decode_errors;
  if (opt.verify) mode.reference(inputs);

  Progress progress;
  profiler.start(cleanup);
  begin_measurement(run, opt);
  const double cpu0 = process_cpu_s();
  mode.start(context, inputs, cpus);
  progress.run_until(run.stop, run.completed, run.measure_start, run.measure_end);
  run.stop = true;
  const double stopped = now_s();
  mode.join();
  const double end = Mode::kTimedAtStop ? stopped : now_s();
  const double elapsed = std::max(0.0, std::min(end, run.measure_end) - run.measure_start);
  drain.finish();
  mode.abort();  // nothing waits any more
  run.error.rethrow();
  if (profiler.on()) {  // every task of the run in the profile, then stop
    check(aclrtSynchronizeDevice(), "profile", "aclrtSynchronizeDevice");
    profiler.stop();
  }

  Report report = report_head(info, opt);
  report.duration_s = elapsed;
  for (const auto& t : workers) report.host_cpu_s += t->cpu_s;
  if (reporter) report.host_cpu_s += reporter->cpu_s();
  const LatencyHistogram latency = mode.fill(report);
  report.process_cpu_s = process_cpu_s() - cpu0;
  report.device_memory_bytes = static_cast<int64_t>(mem_total - mem_free);
  report.windows_qps = progress.windows();
  write_report(report, latency, run, opt, stages, mode.batches(report),
               mode.verifiable(*workers[0]));
  mode.after_report(info);
  return run_status(info.name, run, opt, report.frames);
}

}  // namespace ascgen

#endif  // ASCGEN_RUN_H_
