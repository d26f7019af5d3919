// Calibration probes: each repeats one experiment of the published Ascend 310
// study (/work/shared/calibration/ascend310_seed.yaml) on the simulator and
// prints one JSON line. simulator/bench/calibrate.py runs them all and writes
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

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
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
#include "profile.h"

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
  double t0 = aclsimNowUs();
  for (long i = 0; i < copies; ++i)
    OK(aclrtMemcpyAsync(dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE, s));
  OK(aclrtSynchronizeStream(s));
  Result r{(aclsimNowUs() - t0) / 1e6, copies};
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

Result pipeline(int threads, long frames_per_thread) {
  const std::vector<uint8_t>& jpeg = study_jpeg();
  double t0 = aclsimNowUs();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(pipeline_lane, std::cref(jpeg), frames_per_thread);
  for (auto& th : pool) th.join();
  return Result{(aclsimNowUs() - t0) / 1e6, threads * frames_per_thread};
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
  if (exp == "jpegd_async_one_stream" || exp == "pipeline") study_jpeg();  // not timed
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
  else {
    std::fprintf(stderr, "acl_sim_calib: unknown experiment '%s'\n", exp.c_str());
    return 2;
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  double cpu = process_cpu_s() - cpu0, dev = aclsimCpuSeconds() - dev0;
  std::printf(
      "{\"experiment\": \"%s\", \"arg\": %ld, \"model_s\": %.6f, \"frames\": %ld, "
      "\"wall_s\": %.3f, \"process_cpu_s\": %.4f, \"device_thread_cpu_s\": %.4f, "
      "\"jpeg_bytes\": %zu}\n",
      exp.c_str(), arg, r.model_s, r.frames, wall, cpu, dev,
      exp == "jpegd_async_one_stream" || exp == "pipeline" ? study_jpeg().size() : size_t{0});
  OK(aclrtResetDevice(0));
  OK(aclFinalize());
  return 0;
}
