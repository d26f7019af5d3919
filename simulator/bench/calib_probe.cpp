// Calibration probes: each repeats one experiment of the published Ascend 310
// study (/work/shared/calibration/ascend310_seed.yaml) on the simulator and
// prints one JSON line. tools/calibration/run.py runs them all and writes
// docs/calibration.md.
//
//   acl_sim_calib model_sync | model_async | h2d_merged | h2d_unmerged |
//                 jpegd_async_one_stream | model_batch BATCH | pipeline THREADS
//                 [--frames N]
//   acl_sim_calib write_jpeg PATH      (the generated study JPEG)
//
// Times are model time (aclsimNowUs), so ACL_SIM_TIME_SCALE < 1 only shortens
// the wall time, as long as the host keeps up. The model is a descriptor with
// the profile's resnet50 latencies; the JPEG is a generated 1024x1536 baseline
// 4:2:0 picture of about 75 KB, as in the study.
#include <sys/resource.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#ifndef ENABLE_DVPP_INTERFACE
#define ENABLE_DVPP_INTERFACE
#endif
#include "acl/acl.h"
#include "acl/acl_mdl.h"
#include "acl/ops/acl_dvpp.h"
#include "acl_sim/acl_sim.h"
#include "core/profile.h"

// calib_dvpp.cpp: CANN's DVPP figures by channel count ("vpc" or "jpegd").
double dvpp_channels(const std::string& engine, int channels, const std::vector<uint8_t>& jpeg);

namespace {

constexpr uint32_t kW = 1536, kH = 1024;  // the study's JPEG
constexpr size_t kJpegTarget = 75825;
constexpr uint32_t kNet = 224;
constexpr size_t kNetBytes = kNet * kNet * 3 / 2;  // 75,264
constexpr size_t kOutPerItem = 4000;

void die(const char* what, aclError rc) {
  std::fprintf(stderr, "acl_sim_calib: %s failed: %d\n", what, static_cast<int>(rc));
  std::exit(1);
}
#define OK(call)                             \
  do {                                       \
    aclError rc_ = (call);                   \
    if (rc_ != ACL_SUCCESS) die(#call, rc_); \
  } while (0)

double process_cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

// A smooth synthetic photo-like picture, encoded at the quality whose size is
// closest to the study's 75,825 bytes.
std::vector<uint8_t> encode_study_jpeg() {
  std::vector<uint8_t> rgb(static_cast<size_t>(kW) * kH * 3);
  for (uint32_t y = 0; y < kH; ++y)
    for (uint32_t x = 0; x < kW; ++x) {
      uint8_t* p = &rgb[(static_cast<size_t>(y) * kW + x) * 3];
      double fx = x / 97.0, fy = y / 61.0;
      p[0] = static_cast<uint8_t>(128 + 100 * std::sin(fx) * std::cos(fy));
      p[1] = static_cast<uint8_t>(128 + 90 * std::sin(fx * 0.7 + fy * 1.3));
      p[2] = static_cast<uint8_t>(128 + 60 * std::sin(x / 23.0 + std::sin(y / 37.0) * 3));
    }
  std::vector<uint8_t> best;
  tjhandle tj = tjInitCompress();
  for (int q = 40; q <= 95; ++q) {
    unsigned char* buf = nullptr;
    unsigned long size = 0;
    if (tjCompress2(tj, rgb.data(), kW, 0, kH, TJPF_RGB, &buf, &size, TJSAMP_420, q, 0) == 0) {
      auto dist = [](size_t n) { return n > kJpegTarget ? n - kJpegTarget : kJpegTarget - n; };
      if (best.empty() || dist(size) < dist(best.size())) best.assign(buf, buf + size);
    }
    tjFree(buf);
  }
  tjDestroy(tj);
  return best;
}

const std::vector<uint8_t>& study_jpeg() {
  static const std::vector<uint8_t> jpeg = encode_study_jpeg();
  return jpeg;
}

// A descriptor of ResNet-50 at `batch` with the profile's latency table.
std::string model_file(uint32_t batch) {
  const sim::Profile& p = sim::profile();
  static std::atomic<int> serial{0};
  std::string path = "/tmp/acl_sim_calib_" + std::to_string(getpid()) + "_" +
                     std::to_string(serial++) + "_b" + std::to_string(batch) + ".model";
  std::ofstream f(path);
  f << "format=acl_sim_model\nversion=1\nname=resnet50\nbatch=" << batch
    << "\ninputs=1\ninput.0.bytes=" << batch * kNetBytes
    << "\noutputs=1\noutput.0.bytes=" << batch * kOutPerItem
    << "\nmemory_bytes=" << static_cast<size_t>(p.num("models.resnet50.memory_bytes", 115343360))
    << "\n";
  // DDR traffic of one execution besides input and output (weights, activations):
  // ACL_SIM_CALIB_TRAFFIC=FIXED,PER_ITEM, tools/calibration/run.py's copy of the profile's
  // models.resnet50.traffic_bytes_fixed / _per_item (descriptor figures, not in the flat profile).
  if (const char* t = std::getenv("ACL_SIM_CALIB_TRAFFIC")) {
    double fixed = 0, per_item = 0;
    if (std::sscanf(t, "%lf,%lf", &fixed, &per_item) == 2)
      f << "traffic_bytes=" << static_cast<size_t>(fixed + batch * per_item) << "\n";
  }
  for (int b = 1; b <= 128; ++b) {
    std::string key = "models.resnet50.latency_ms." + std::to_string(b);
    if (p.has(key)) f << "latency_ms." << b << "=" << p.str(key) << "\n";
  }
  return path;
}

struct Model {
  uint32_t id = 0;
  void *in = nullptr, *out = nullptr;
  aclmdlDataset *ins = nullptr, *outs = nullptr;
  aclDataBuffer *bin = nullptr, *bout = nullptr;
  std::string path;
};

Model load_model(uint32_t batch, void* input = nullptr) {
  Model m;
  m.path = model_file(batch);
  OK(aclmdlLoadFromFile(m.path.c_str(), &m.id));
  m.in = input;
  if (m.in == nullptr) OK(aclrtMalloc(&m.in, batch * kNetBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  OK(aclrtMalloc(&m.out, batch * kOutPerItem, ACL_MEM_MALLOC_HUGE_FIRST));
  m.ins = aclmdlCreateDataset();
  m.outs = aclmdlCreateDataset();
  m.bin = aclCreateDataBuffer(m.in, batch * kNetBytes);
  m.bout = aclCreateDataBuffer(m.out, batch * kOutPerItem);
  OK(aclmdlAddDatasetBuffer(m.ins, m.bin));
  OK(aclmdlAddDatasetBuffer(m.outs, m.bout));
  return m;
}

void unload(Model& m, bool owns_input) {
  OK(aclmdlUnload(m.id));
  aclmdlDestroyDataset(m.ins);
  aclmdlDestroyDataset(m.outs);
  aclDestroyDataBuffer(m.bin);
  aclDestroyDataBuffer(m.bout);
  if (owns_input) OK(aclrtFree(m.in));
  OK(aclrtFree(m.out));
  std::remove(m.path.c_str());
}

struct Result {
  double model_s = 0;
  long frames = 0;
  double steady_qps = 0;  // lane probes: frames per model second once every lane runs
};

Result model_loop(bool async, long n, uint32_t batch) {
  aclrtStream s = nullptr;
  OK(aclrtCreateStream(&s));
  // model_sync: the study timed the whole process, so from aclInit (model time 0):
  // the device open and the model load count. model_async times the loop alone.
  double t0 = 0.0;
  Model m = load_model(batch);
  if (async) t0 = aclsimNowUs();
  for (long i = 0; i < n; ++i) {
    if (async)
      OK(aclmdlExecuteAsync(m.id, m.ins, m.outs, s));
    else
      OK(aclmdlExecute(m.id, m.ins, m.outs));
  }
  OK(aclrtSynchronizeStream(s));
  Result r{(aclsimNowUs() - t0) / 1e6, n * batch};
  unload(m, true);
  OK(aclrtDestroyStream(s));
  return r;
}

Result h2d(long copies, size_t bytes) {
  aclrtStream s = nullptr;
  OK(aclrtCreateStream(&s));
  void *host = nullptr, *dev = nullptr;
  OK(aclrtMallocHost(&host, bytes));
  OK(aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  std::memset(host, 7, bytes);
  // Timed by events (exact model time): with 73 MB copies the host's memcpy
  // may lag the model, which delays when the host sees the end, not the end.
  aclrtEvent start = nullptr, end = nullptr;
  OK(aclrtCreateEvent(&start));
  OK(aclrtCreateEvent(&end));
  OK(aclrtRecordEvent(start, s));
  for (long i = 0; i < copies; ++i)
    OK(aclrtMemcpyAsync(dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE, s));
  OK(aclrtRecordEvent(end, s));
  OK(aclrtSynchronizeStream(s));
  float ms = 0;
  OK(aclrtEventElapsedTime(&ms, start, end));
  OK(aclrtDestroyEvent(start));
  OK(aclrtDestroyEvent(end));
  Result r{ms / 1e3, copies};
  OK(aclrtFree(dev));
  OK(aclrtFreeHost(host));
  OK(aclrtDestroyStream(s));
  return r;
}

// The buffers of one decode lane: JPEG in DVPP memory, NV12 on 128x16 strides.
struct Lane {
  acldvppChannelDesc* ch = nullptr;
  void *host = nullptr, *jpeg = nullptr, *decoded = nullptr, *resized = nullptr;
  acldvppPicDesc *dec = nullptr, *in = nullptr, *out = nullptr;
  acldvppResizeConfig* rc = nullptr;
  uint32_t jpeg_bytes = 0;
};

Lane make_lane(const std::vector<uint8_t>& jpeg) {
  Lane l;
  l.ch = acldvppCreateChannelDesc();
  OK(acldvppCreateChannel(l.ch));
  l.jpeg_bytes = static_cast<uint32_t>(jpeg.size());
  OK(aclrtMallocHost(&l.host, jpeg.size()));
  std::memcpy(l.host, jpeg.data(), jpeg.size());
  OK(acldvppMalloc(&l.jpeg, jpeg.size()));
  OK(aclrtMemcpy(l.jpeg, jpeg.size(), jpeg.data(), jpeg.size(), ACL_MEMCPY_HOST_TO_DEVICE));
  uint32_t size = 0;
  OK(acldvppJpegPredictDecSize(jpeg.data(), l.jpeg_bytes, PIXEL_FORMAT_YUV_SEMIPLANAR_420, &size));
  OK(acldvppMalloc(&l.decoded, size));
  OK(acldvppMalloc(&l.resized, kNetBytes));
  auto pic = [](void* data, uint32_t bytes, uint32_t w, uint32_t h, uint32_t ws, uint32_t hs) {
    acldvppPicDesc* d = acldvppCreatePicDesc();
    acldvppSetPicDescData(d, data);
    acldvppSetPicDescSize(d, bytes);
    acldvppSetPicDescFormat(d, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
    acldvppSetPicDescWidth(d, w);
    acldvppSetPicDescHeight(d, h);
    acldvppSetPicDescWidthStride(d, ws);
    acldvppSetPicDescHeightStride(d, hs);
    return d;
  };
  l.dec = pic(l.decoded, size, kW, kH, kW, kH);
  l.in = pic(l.decoded, size, kW, kH, kW, kH);
  l.out = pic(l.resized, kNetBytes, kNet, kNet, kNet, kNet);
  l.rc = acldvppCreateResizeConfig();
  return l;
}

void free_lane(Lane& l) {
  acldvppDestroyPicDesc(l.dec);
  acldvppDestroyPicDesc(l.in);
  acldvppDestroyPicDesc(l.out);
  acldvppDestroyResizeConfig(l.rc);
  OK(acldvppFree(l.jpeg));
  OK(acldvppFree(l.decoded));
  OK(acldvppFree(l.resized));
  OK(aclrtFreeHost(l.host));
  OK(acldvppDestroyChannel(l.ch));
  OK(acldvppDestroyChannelDesc(l.ch));
}

Result jpegd_one_stream(long n) {
  Lane l = make_lane(study_jpeg());
  aclrtStream s = nullptr;
  OK(aclrtCreateStream(&s));
  double t0 = aclsimNowUs();
  for (long i = 0; i < n; ++i) OK(acldvppJpegDecodeAsync(l.ch, l.jpeg, l.jpeg_bytes, l.dec, s));
  OK(aclrtSynchronizeStream(s));
  Result r{(aclsimNowUs() - t0) / 1e6, n};
  free_lane(l);
  OK(aclrtDestroyStream(s));
  return r;
}

// pipeline_single_batch: per thread one stream carrying copy -> jpegd -> vpc ->
// infer (batch 1) -> fetch, 64 frames per aclrtSynchronizeStream.
void pipeline_lane(const std::vector<uint8_t>& jpeg, long frames) {
  OK(aclrtSetDevice(0));
  Lane l = make_lane(jpeg);
  Model m = load_model(1, l.resized);
  void* result = nullptr;
  OK(aclrtMallocHost(&result, kOutPerItem));
  aclrtStream s = nullptr;
  OK(aclrtCreateStream(&s));
  for (long i = 0; i < frames; ++i) {
    OK(aclrtMemcpyAsync(l.jpeg, l.jpeg_bytes, l.host, l.jpeg_bytes, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(acldvppJpegDecodeAsync(l.ch, l.jpeg, l.jpeg_bytes, l.dec, s));
    OK(acldvppVpcResizeAsync(l.ch, l.in, l.out, l.rc, s));
    OK(aclmdlExecuteAsync(m.id, m.ins, m.outs, s));
    OK(aclrtMemcpyAsync(result, kOutPerItem, m.out, kOutPerItem, ACL_MEMCPY_DEVICE_TO_HOST, s));
    if (i % 64 == 63 || i == frames - 1) OK(aclrtSynchronizeStream(s));
  }
  OK(aclrtDestroyStream(s));
  unload(m, false);
  OK(aclrtFreeHost(result));
  free_lane(l);
  OK(aclrtResetDevice(0));
}

// Steady-state rate of the lane probes below: each lane logs the model time at
// which each of its sync windows ended. Between the moment every lane has
// finished its first window (the pipeline is full) and the first lane's last
// (all lanes still submit), each lane's rate is its windows between its first
// and last end in that span over that time (exact for a lane that runs
// periodically, unlike a count of windows in a fixed span); the rates add up.
struct WindowLog {
  std::mutex mu;
  std::vector<std::vector<double>> ends;  // per lane
  void add(size_t lane, double t) {
    std::lock_guard<std::mutex> lock(mu);
    if (ends.size() <= lane) ends.resize(lane + 1);
    ends[lane].push_back(t);
  }
  // Frames per model second; 0 without enough windows.
  double rate(long frames_per_window) {
    double from = 0, to = 1e300, total = 0;
    for (const auto& e : ends) {
      from = std::max(from, e.front());
      to = std::min(to, e.back());
    }
    for (const auto& e : ends) {
      std::vector<double> in;
      for (double t : e)
        if (t >= from && t <= to) in.push_back(t);
      if (in.size() < 3) return 0;
      total += (in.size() - 1) * frames_per_window / ((in.back() - in.front()) / 1e6);
    }
    return total;
  }
};
WindowLog g_windows;
std::atomic<size_t> g_lane_ids{0};

// The decode front end alone (pipeline_single_batch.notes): per thread one
// stream carrying copy -> jpegd, 64 frames per aclrtSynchronizeStream.
void decode_lane(const std::vector<uint8_t>& jpeg, long frames) {
  OK(aclrtSetDevice(0));
  Lane l = make_lane(jpeg);
  aclrtStream s = nullptr;
  OK(aclrtCreateStream(&s));
  size_t id = g_lane_ids++;
  for (long i = 0; i < frames; ++i) {
    OK(aclrtMemcpyAsync(l.jpeg, l.jpeg_bytes, l.host, l.jpeg_bytes, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(acldvppJpegDecodeAsync(l.ch, l.jpeg, l.jpeg_bytes, l.dec, s));
    if (i % 64 == 63) {
      OK(aclrtSynchronizeStream(s));
      g_windows.add(id, aclsimNowUs());
    }
  }
  OK(aclrtSynchronizeStream(s));
  OK(aclrtDestroyStream(s));
  free_lane(l);
  OK(aclrtResetDevice(0));
}

// pipeline_batch16, the study's hand-written program: per thread one stream
// and a window of 64 frames (own buffers per frame), submitted step by step:
// 64 copies, 64 decodes, 64 resizes, 64 D2D copies packing 16 frames into each
// of 4 model inputs, 4 executions at batch 16, 4 result copies; then one
// aclrtSynchronizeStream per window.
constexpr int kWindow = 64, kBatch = 16;
void study_b16_lane(const std::vector<uint8_t>& jpeg, long windows) {
  OK(aclrtSetDevice(0));
  std::vector<Lane> lanes;
  for (int i = 0; i < kWindow; ++i) lanes.push_back(make_lane(jpeg));
  std::vector<Model> models;
  models.push_back(load_model(kBatch));
  for (int b = 1; b < kWindow / kBatch; ++b) {  // one instance, four input/output sets
    Model m = models[0];
    OK(aclrtMalloc(&m.in, kBatch * kNetBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&m.out, kBatch * kOutPerItem, ACL_MEM_MALLOC_HUGE_FIRST));
    m.ins = aclmdlCreateDataset();
    m.outs = aclmdlCreateDataset();
    m.bin = aclCreateDataBuffer(m.in, kBatch * kNetBytes);
    m.bout = aclCreateDataBuffer(m.out, kBatch * kOutPerItem);
    OK(aclmdlAddDatasetBuffer(m.ins, m.bin));
    OK(aclmdlAddDatasetBuffer(m.outs, m.bout));
    models.push_back(m);
  }
  void* result = nullptr;
  OK(aclrtMallocHost(&result, kBatch * kOutPerItem));
  aclrtStream s = nullptr;
  OK(aclrtCreateStream(&s));
  size_t id = g_lane_ids++;
  for (long w = 0; w < windows; ++w) {
    for (Lane& l : lanes)
      OK(aclrtMemcpyAsync(l.jpeg, l.jpeg_bytes, l.host, l.jpeg_bytes, ACL_MEMCPY_HOST_TO_DEVICE,
                          s));
    for (Lane& l : lanes) OK(acldvppJpegDecodeAsync(l.ch, l.jpeg, l.jpeg_bytes, l.dec, s));
    for (Lane& l : lanes) OK(acldvppVpcResizeAsync(l.ch, l.in, l.out, l.rc, s));
    for (int i = 0; i < kWindow; ++i) {
      char* dst = static_cast<char*>(models[i / kBatch].in) + (i % kBatch) * kNetBytes;
      OK(aclrtMemcpyAsync(dst, kNetBytes, lanes[i].resized, kNetBytes, ACL_MEMCPY_DEVICE_TO_DEVICE,
                          s));
    }
    for (Model& m : models) OK(aclmdlExecuteAsync(m.id, m.ins, m.outs, s));
    for (Model& m : models)
      OK(aclrtMemcpyAsync(result, kBatch * kOutPerItem, m.out, kBatch * kOutPerItem,
                          ACL_MEMCPY_DEVICE_TO_HOST, s));
    OK(aclrtSynchronizeStream(s));
    g_windows.add(id, aclsimNowUs());
  }
  OK(aclrtDestroyStream(s));
  for (size_t b = 1; b < models.size(); ++b) {
    aclmdlDestroyDataset(models[b].ins);
    aclmdlDestroyDataset(models[b].outs);
    aclDestroyDataBuffer(models[b].bin);
    aclDestroyDataBuffer(models[b].bout);
    OK(aclrtFree(models[b].in));
    OK(aclrtFree(models[b].out));
  }
  unload(models[0], true);
  OK(aclrtFreeHost(result));
  for (Lane& l : lanes) free_lane(l);
  OK(aclrtResetDevice(0));
}

// `threads` host threads running `lane` over `per_thread` units (frames or windows).
Result run_lanes(void (*lane)(const std::vector<uint8_t>&, long), int threads, long per_thread,
                 long frames_per_unit) {
  const std::vector<uint8_t>& jpeg = study_jpeg();
  double t0 = aclsimNowUs();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(lane, std::cref(jpeg), per_thread);
  for (auto& th : pool) th.join();
  return Result{(aclsimNowUs() - t0) / 1e6, threads * per_thread * frames_per_unit,
                g_windows.rate(64)};
}

Result pipeline(int threads, long frames_per_thread) {
  return run_lanes(pipeline_lane, threads, frames_per_thread, 1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: acl_sim_calib EXPERIMENT [ARG] [--frames N]\n");
    return 2;
  }
  std::string exp = argv[1];
  if (exp == "write_jpeg" && argc == 3) {  // the study JPEG, for the imaging cost bench
    const std::vector<uint8_t>& j = study_jpeg();
    std::ofstream(argv[2], std::ios::binary)
        .write(reinterpret_cast<const char*>(j.data()), static_cast<std::streamsize>(j.size()));
    return 0;
  }
  long arg = 0, frames = 0;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--frames") == 0 && i + 1 < argc)
      frames = std::atol(argv[++i]);
    else
      arg = std::atol(argv[i]);
  }
  OK(aclInit(nullptr));
  OK(aclrtSetDevice(0));
  if (exp != "model_sync" && exp != "model_async" && exp != "model_batch")
    study_jpeg();  // not timed
  auto wall0 = std::chrono::steady_clock::now();
  double cpu0 = process_cpu_s(), dev0 = aclsimCpuSeconds();
  Result r;
  if (exp == "model_sync")
    r = model_loop(false, frames ? frames : 801, 1);
  else if (exp == "model_async")
    r = model_loop(true, frames ? frames : 801, 1);
  else if (exp == "model_batch")
    r = model_loop(true, frames ? frames : 128, static_cast<uint32_t>(arg));
  else if (exp == "h2d_merged")
    r = h2d(frames ? frames : 800, static_cast<size_t>(58.6e9 / 800));
  else if (exp == "h2d_unmerged")
    r = h2d(frames ? frames : 800, kJpegTarget);
  else if (exp == "jpegd_async_one_stream")
    r = jpegd_one_stream(frames ? frames : 801);
  else if (exp == "pipeline")
    r = pipeline(static_cast<int>(arg), frames ? frames : 640);
  else if (exp == "vpc_channels" || exp == "jpegd_channels")
    r.steady_qps = dvpp_channels(exp.substr(0, exp.find('_')), static_cast<int>(arg), study_jpeg());
  else if (exp == "decode")
    r = run_lanes(decode_lane, static_cast<int>(arg), frames ? frames : 384, 1);
  else if (exp == "study_b16")  // --frames: windows of 64 frames per thread
    r = run_lanes(study_b16_lane, static_cast<int>(arg), frames ? frames : 6, kWindow);
  else {
    std::fprintf(stderr, "acl_sim_calib: unknown experiment '%s'\n", exp.c_str());
    return 2;
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  double cpu = process_cpu_s() - cpu0, dev = aclsimCpuSeconds() - dev0;
  std::printf(
      "{\"experiment\": \"%s\", \"arg\": %ld, \"model_s\": %.6f, \"frames\": %ld, "
      "\"wall_s\": %.3f, \"process_cpu_s\": %.4f, \"device_thread_cpu_s\": %.4f, "
      "\"jpeg_bytes\": %zu, \"steady_qps\": %.3f}\n",
      exp.c_str(), arg, r.model_s, r.frames, wall, cpu, dev,
      exp.rfind("model", 0) != 0 ? study_jpeg().size() : size_t{0}, r.steady_qps);
  OK(aclrtResetDevice(0));
  OK(aclFinalize());
  return 0;
}
