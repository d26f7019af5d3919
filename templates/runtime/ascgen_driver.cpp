// ascgen_driver.cpp: what ascgen_driver.h declares (README.md: how it is compiled).

#include "ascgen_driver.h"

namespace ascgen {

Run*& current_run() {
  thread_local Run* run = nullptr;
  return run;
}

Run& run_state() {
  static Run run;
  Run* mine = current_run();
  return mine != nullptr ? *mine : run;
}

void frame_failed(Run& run, const std::string& input, uint32_t code, const std::string& why) {
  if (run.frames_failed.fetch_add(1) == 0) {
    std::lock_guard<std::mutex> lock(run.failure_mu);
    run.first_failure_input = input;
    run.first_failure_code = code;
    run.first_failure_why = why;
  }
  if (!run.skip_decode_errors) run.stop = true;
}

void results_json(Json& j, const Run& run, const std::vector<Input>& inputs) {
  auto said = [](const std::string& s) { return !s.empty(); };
  if (std::none_of(run.results.begin(), run.results.end(), said)) return;
  j.key("results").open('[');
  for (size_t k = 0; k < run.results.size() && k < inputs.size(); ++k) {
    j.open('{').key("input").str(inputs[k].name).key("found");
    j.raw(said(run.results[k]) ? run.results[k] : "null").close('}');
  }
  j.close(']');
}

Frame frame_at(int64_t f) {
  const int batch = run_state().info->batch;
  return Frame{f, f / batch, f % batch};
}

std::vector<Input> prepare_inputs(const ProgramInfo& info, const std::string& path,
                                  void (*inspect)(Input&)) {
  std::vector<Input> inputs;
  if (info.source == SourceKind::kTensor) {
    for (int k = 0; k < 4; ++k)
      inputs.push_back({k, "tensor" + std::to_string(k),
                        pattern_tensor(info.tensor_bytes, static_cast<uint64_t>(k)), 0, 0});
    return inputs;
  }
  const bool raw = info.source == SourceKind::kRawFiles;
  const bool video = info.source == SourceKind::kVideoFiles;  // a folder: every file in it
  for (InputFile& file : load_inputs(path, info.max_input_bytes,
                                     raw     ? ".u8"
                                     : video ? ""
                                             : nullptr)) {
    Input in{static_cast<int>(inputs.size()), file.name, std::move(file.bytes), 0, 0};
    inspect(in);
    inputs.push_back(std::move(in));
  }
  return inputs;
}

void check_budget(const ProgramInfo& info, const WorkerNeeds& worker, int threads, int window) {
  const DeviceBudget& d = info.budget;
  const int64_t events = worker.events, dvpp = worker.dvpp_bytes;
  const int64_t device = info.model_bytes_per_worker + worker.device_bytes;
  auto fail = [&](const std::string& what, int64_t need, int64_t limit) {
    throw BadFlags("--threads " + std::to_string(threads) + " with a window of " +
                   std::to_string(window) + " frames needs " + std::to_string(need) + " " + what +
                   ", the device has " + std::to_string(limit) + "; lower --threads or --depth");
  };
  if (events * threads > d.max_events) fail("events", events * threads, d.max_events);
  if (int64_t{info.streams_per_worker} * threads > d.max_streams)
    fail("streams", int64_t{info.streams_per_worker} * threads, d.max_streams);
  if (dvpp * threads > d.dvpp_bytes) fail("bytes of DVPP memory", dvpp * threads, d.dvpp_bytes);
  if (device * threads > d.device_bytes)
    fail("bytes of device memory", device * threads, d.device_bytes);
}

Report report_head(const ProgramInfo& info, const Options& opt) {
  Report report;
  report.program = info.name;
  report.profile = info.profile;
  report.streams = info.streams;
  report.threads = opt.threads;
  report.depth = opt.depth;
  report.batch = info.batch;
  report.sync_every = info.sync_every;
  return report;
}

aclrtContext open_device(int32_t device, bool init_acl, Cleanup& cleanup) {
  if (init_acl) {
    check(aclInit(nullptr), "setup", "aclInit");
    cleanup.add("aclFinalize", [] { return aclFinalize(); });
  }
  check(aclrtSetDevice(device), "setup", "aclrtSetDevice");
  cleanup.add("aclrtResetDevice", [device] { return aclrtResetDevice(device); });
  aclrtContext context = nullptr;
  check(aclrtCreateContext(&context, device), "setup", "aclrtCreateContext");
  cleanup.add("aclrtDestroyContext", [context] { return aclrtDestroyContext(context); });
  return context;
}

void begin_measurement(Run& run, const Options& opt) {
  run.frame_limit = opt.frames;
  run.measure_start = now_s() + opt.warmup_s;
  run.measure_end = opt.frames > 0 ? 1e300 : run.measure_start + opt.duration_s;
  run.windows.reserve(opt.frames > 0 ? 0.0 : opt.duration_s);
}

int verified_state(const Run& run, const Options& opt, bool verifiable) {
  if (!opt.verify || !verifiable) return -1;
  const bool failed = run.frames_failed > 0 && !opt.skip_decode_errors;
  return run.mismatches == 0 && !failed ? 1 : 0;
}

int run_status(const char* program, const Run& run, const Options& opt, int64_t frames) {
  if (run.mismatches > 0) return 1;
  if (run.requirement_missed > 0) return 1;  // the report said which streams and why
  if (run.frames_failed > 0 && !opt.skip_decode_errors) {
    if (!run.first_failure_why.empty())
      std::fprintf(stderr, "%s: input '%s' failed: %s\n", program, run.first_failure_input.c_str(),
                   run.first_failure_why.c_str());
    else
      std::fprintf(stderr, "%s: decoding input '%s' failed with result code %" PRId64 "\n", program,
                   run.first_failure_input.c_str(), run.first_failure_code);
    return 1;
  }
  if (stop_signal() != 0) return 128 + stop_signal();
  if (frames == 0) {
    std::fprintf(stderr,
                 "%s: nothing was measured: no frame completed after the %.6g s warm-up%s\n",
                 program, opt.warmup_s,
                 opt.frames > 0 ? "" : "; give a longer --duration (or a shorter --warmup)");
    return 3;
  }
  return 0;
}

void finish_callbacks(ReportThread& reporter) {
  Run& run = run_state();
  aclError ret = aclrtSynchronizeDevice();
  if (ret != ACL_SUCCESS)
    run.error.set("completion: aclrtSynchronizeDevice failed with error " + std::to_string(ret));
  const double deadline = now_s() + 60.0;
  while (run.callbacks_run < run.callbacks_launched && !reporter.failed() && now_s() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  reporter.stop();
}

int guarded(const ProgramInfo& info, const Options& opt,
            const std::function<int(Cleanup&)>& run_it) {
  Cleanup cleanup;
  int status = 0;
  std::string error;
  try {
    status = run_it(cleanup);
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

void write_report(Report& report, const LatencyHistogram& latency, const Run& run,
                  const Options& opt, const std::vector<StageInfo>& stages, int64_t batches,
                  bool verifiable) {
  report.frames_failed = run.frames_failed;
  report.first_failure_input = run.first_failure_input;
  report.first_failure_code = run.first_failure_code;
  report.interrupted = stop_signal() != 0;
  report.windows_latency = run.windows.p99_max_ms();
  report.verified = verified_state(run, opt, verifiable);
  for (const StageInfo& s : stages)
    report.stages.push_back({s.name, s.per_batch ? batches : report.frames});
  report.write(latency, opt.json_path, opt.quiet);
}

}  // namespace ascgen
