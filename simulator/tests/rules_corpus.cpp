// The rule corpus (rules_corpus.h): one program per rule, `bad` breaks it, the
// twin does the same work the documented way. Each returns main's status; the
// simulator's exit hook turns a broken rule into status 87 (a hazard: 86).
#define ENABLE_DVPP_INTERFACE
#include "rules_corpus.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "acl_sim/acl_sim.h"

namespace corpus {
namespace {

constexpr size_t kBig = 64u << 20;  // an upload that keeps a stream busy for ~20 ms (model)

// The device with three named streams.
struct Session {
  aclrtStream a = nullptr, b = nullptr, c = nullptr;
  bool open() {
    if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return false;
    if (aclrtCreateStream(&a) || aclrtCreateStream(&b) || aclrtCreateStream(&c)) return false;
    aclsimSetStreamName(a, "producer");
    aclsimSetStreamName(b, "consumer");
    aclsimSetStreamName(c, "other");
    return true;
  }
  int close() {
    aclrtSynchronizeDevice();
    for (aclrtStream s : {a, b, c}) aclrtDestroyStream(s);
    aclrtResetDevice(0);
    return aclFinalize() == ACL_SUCCESS ? 0 : 1;
  }
};

// A pinned source and a device destination of `bytes`.
struct Upload {
  void* host = nullptr;
  void* dev = nullptr;
  size_t bytes = 0;
  bool alloc(size_t n) {
    bytes = n;
    if (aclrtMallocHost(&host, n) || aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST)) return false;
    std::memset(host, 1, n);
    return true;
  }
  aclError on(aclrtStream s) {
    return aclrtMemcpyAsync(dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE, s);
  }
  void free() {
    if (dev) aclrtFree(dev);
    if (host) aclrtFreeHost(host);
  }
};

aclrtEvent sync_event() {
  aclrtEvent e = nullptr;
  return aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC) == ACL_SUCCESS ? e : nullptr;
}

// Sets `key` in a copy of $ACL_SIM_PROFILE and points the variable at it (before aclInit).
void use_feature(const char* key, const char* value) {
  const char* path = std::getenv("ACL_SIM_PROFILE");
  std::ifstream in(path != nullptr ? path : "");
  std::stringstream out;
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(std::string(key) + "=", 0) != 0) out << line << "\n";
  out << key << "=" << value << "\n";
  std::string copy = corpus::temp_file("profile.flat");
  std::ofstream(copy) << out.str();
  setenv("ACL_SIM_PROFILE", copy.c_str(), 1);
}

// ---- events -------------------------------------------------------------------

// Each frame: upload on a, record, b waits. The twin resets on the waiting stream.
int event_record_not_reset(bool bad) {
  Session s;
  Upload u;
  if (!s.open() || !u.alloc(1 << 20)) return 2;
  aclrtEvent ev = sync_event();
  for (int i = 0; i < 4; ++i) {
    u.on(s.a);
    aclrtRecordEvent(ev, s.a);
    aclrtStreamWaitEvent(s.b, ev);
    if (!bad) aclrtResetEvent(ev, s.b);
  }
  aclrtSynchronizeDevice();
  aclrtDestroyEvent(ev);
  u.free();
  return s.close();
}

// Two consumers of one record. The twin gives each waiter its own event.
int event_one_waiter(bool bad) {
  Session s;
  Upload u;
  if (!s.open() || !u.alloc(1 << 20)) return 2;
  aclrtEvent e1 = sync_event(), e2 = sync_event();
  u.on(s.a);
  aclrtRecordEvent(e1, s.a);
  if (!bad) aclrtRecordEvent(e2, s.a);
  aclrtStreamWaitEvent(s.b, e1);
  if (!bad) aclrtResetEvent(e1, s.b);
  aclrtStreamWaitEvent(s.c, bad ? e1 : e2);  // bad: a second waiter on e1's record
  aclrtResetEvent(bad ? e1 : e2, s.c);
  aclrtSynchronizeDevice();
  aclrtDestroyEvent(e1);
  aclrtDestroyEvent(e2);
  u.free();
  return s.close();
}

// A wait after the reset, with no record in between. The twin records again.
int event_wait_stale(bool bad) {
  Session s;
  Upload u;
  if (!s.open() || !u.alloc(1 << 20)) return 2;
  aclrtEvent ev = sync_event();
  u.on(s.a);
  aclrtRecordEvent(ev, s.a);
  aclrtStreamWaitEvent(s.b, ev);
  aclrtResetEvent(ev, s.b);
  if (!bad) aclrtRecordEvent(ev, s.a);
  aclrtStreamWaitEvent(s.c, ev);
  if (!bad) aclrtResetEvent(ev, s.c);
  aclrtSynchronizeDevice();
  aclrtDestroyEvent(ev);
  u.free();
  return s.close();
}

// The reset issued on the recording stream instead of the waiting one.
int event_reset_other_stream(bool bad) {
  Session s;
  Upload u;
  if (!s.open() || !u.alloc(1 << 20)) return 2;
  aclrtEvent ev = sync_event();
  u.on(s.a);
  aclrtRecordEvent(ev, s.a);
  aclrtStreamWaitEvent(s.b, ev);
  aclrtResetEvent(ev, bad ? s.a : s.b);
  aclrtSynchronizeDevice();
  aclrtDestroyEvent(ev);
  u.free();
  return s.close();
}

// Ex events on the 310 (none there); the twin runs where the profile has them
// and re-records one without a reset, which Ex events allow.
int event_ex(bool bad) {
  if (!bad) use_feature("features.ex_events", "1");
  Session s;
  Upload u;
  if (!s.open() || !u.alloc(1 << 20)) return 2;
  aclrtEvent ev = nullptr;
  if (aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC) == ACL_SUCCESS) {
    for (int i = 0; i < 4; ++i) {
      u.on(s.a);
      aclrtRecordEvent(ev, s.a);
      aclrtStreamWaitEvent(s.b, ev);  // sees the latest record
    }
    aclrtSynchronizeDevice();
    aclrtDestroyEvent(ev);
  }
  u.free();
  return s.close();
}

// ---- callbacks ----------------------------------------------------------------

struct Reporter {
  std::atomic<bool> go{false}, stop{false};
  std::atomic<int> ran{0};
  std::atomic<int> polls{0};  // aclrtProcessReport calls made
  pthread_t tid{};
  static void* loop(void* p) {
    auto* r = static_cast<Reporter*>(p);
    while (!r->go) std::this_thread::yield();
    while (!r->stop) {
      aclrtProcessReport(10);  // 507012 "no work yet" until stopped
      ++r->polls;
    }
    return nullptr;
  }
  static void callback(void* p) { ++static_cast<Reporter*>(p)->ran; }
};

// The report loop starts before its subscription. The twin subscribes first,
// and stops the loop before unsubscribing.
int report_unsubscribed(bool bad) {
  Session s;
  if (!s.open()) return 2;
  Reporter r;
  pthread_create(&r.tid, nullptr, Reporter::loop, &r);
  if (bad) {  // the loop has called aclrtProcessReport before the subscription, however loaded
    r.go = true;
    while (r.polls.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  aclrtSubscribeReport(static_cast<uint64_t>(r.tid), s.a);
  r.go = true;
  aclrtLaunchCallback(Reporter::callback, &r, ACL_CALLBACK_NO_BLOCK, s.a);
  aclrtSynchronizeStream(s.a);
  while (r.ran.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  r.stop = true;
  pthread_join(r.tid, nullptr);
  aclrtUnSubscribeReport(static_cast<uint64_t>(r.tid), s.a);
  return s.close();
}

// Unsubscribing while a callback is still queued behind an upload. The twin
// drains the stream and the callback first.
int report_unsubscribe_pending(bool bad) {
  Session s;
  Upload u;
  if (!s.open() || !u.alloc(kBig)) return 2;
  Reporter r;
  pthread_create(&r.tid, nullptr, Reporter::loop, &r);
  aclrtSubscribeReport(static_cast<uint64_t>(r.tid), s.a);
  r.go = true;
  u.on(s.a);
  aclrtLaunchCallback(Reporter::callback, &r, ACL_CALLBACK_NO_BLOCK, s.a);
  if (!bad) {
    aclrtSynchronizeStream(s.a);
    while (r.ran.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    r.stop = true;
    pthread_join(r.tid, nullptr);
  }
  aclrtUnSubscribeReport(static_cast<uint64_t>(r.tid), s.a);
  aclrtSynchronizeStream(s.a);
  if (bad) {
    r.stop = true;
    pthread_join(r.tid, nullptr);
  }
  u.free();
  return s.close();
}

// ---- DVPP ---------------------------------------------------------------------

acldvppChannelDesc* channel() {
  acldvppChannelDesc* c = acldvppCreateChannelDesc();
  if (c != nullptr && acldvppCreateChannel(c) != ACL_SUCCESS) return nullptr;
  return c;
}

void drop(acldvppChannelDesc* c) {
  acldvppDestroyChannel(c);
  acldvppDestroyChannelDesc(c);
}

// Resizes on stream a, then on stream b, through one channel while the first
// is still queued. The twin gives each stream its own channel.
int channel_two_streams(bool bad) {
  Session s;
  Upload u;
  if (!s.open() || !u.alloc(kBig)) return 2;
  void *in = nullptr, *out1 = nullptr, *out2 = nullptr;
  acldvppMalloc(&in, 448 * 448 * 3 / 2);
  acldvppMalloc(&out1, 224 * 224 * 3 / 2);
  acldvppMalloc(&out2, 224 * 224 * 3 / 2);
  aclrtMemset(in, 448 * 448 * 3 / 2, 128, 448 * 448 * 3 / 2);
  acldvppPicDesc *pin = nv12(in, 448, 448), *p1 = nv12(out1, 224, 224), *p2 = nv12(out2, 224, 224);
  acldvppResizeConfig* cfg = acldvppCreateResizeConfig();
  acldvppChannelDesc* ch_a = channel();
  acldvppChannelDesc* ch_b = bad ? ch_a : channel();
  u.on(s.a);  // the first resize stays queued behind it
  aclError r1 = acldvppVpcResizeAsync(ch_a, pin, p1, cfg, s.a);
  aclError r2 = acldvppVpcResizeAsync(ch_b, pin, p2, cfg, s.b);
  aclrtSynchronizeDevice();
  if (!bad) drop(ch_b);
  drop(ch_a);
  for (acldvppPicDesc* p : {pin, p1, p2}) acldvppDestroyPicDesc(p);
  acldvppDestroyResizeConfig(cfg);
  for (void* p : {in, out1, out2}) acldvppFree(p);
  u.free();
  int rc = s.close();
  return r1 == ACL_SUCCESS && r2 == ACL_SUCCESS ? rc : 3;
}

// A corrupt JPEG: the decode fails on the stream. The twin reads the result
// code after the stream synchronised and counts the frame as failed.
int decode_retcode(bool bad) {
  Session s;
  if (!s.open()) return 2;
  unsigned char jpeg[4096] = {0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10};  // truncated, then zeros
  void *in = nullptr, *out = nullptr;
  const uint32_t out_bytes = 1024 * 1024 * 3 / 2;
  acldvppMalloc(&in, sizeof jpeg + 8);  // JPEGD zeroes the 8 bytes after the data
  acldvppMalloc(&out, out_bytes);
  aclrtMemcpy(in, sizeof jpeg, jpeg, sizeof jpeg, ACL_MEMCPY_HOST_TO_DEVICE);
  acldvppPicDesc* pic = acldvppCreatePicDesc();
  acldvppSetPicDescData(pic, out);
  acldvppSetPicDescSize(pic, out_bytes);
  acldvppSetPicDescFormat(pic, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
  acldvppChannelDesc* ch = channel();
  aclError submitted = acldvppJpegDecodeAsync(ch, in, sizeof jpeg, pic, s.a);
  aclrtSynchronizeStream(s.a);
  int status = submitted == ACL_SUCCESS ? 0 : 3;
  if (!bad) {
    uint32_t code = acldvppGetPicDescRetCode(pic);
    std::printf("frame 0: decode failed with result code %u\n", code);
    if (code == 0) status = 4;  // the corrupt input must not decode
  }
  acldvppDestroyPicDesc(pic);
  drop(ch);
  acldvppFree(in);
  acldvppFree(out);
  int rc = s.close();
  return status != 0 ? status : rc;
}

// VPC outputs carved from one DVPP block at a stride of the frame's bytes. The
// twin leaves ALIGN_UP(len, 32) + 32 rounded up to 128 between starts.
int sub_buffer(bool bad) {
  Session s;
  if (!s.open()) return 2;
  const uint32_t frame = 224 * 224 * 3 / 2;  // 75264
  const uint32_t stride = bad ? frame : ((frame + 31) / 32 * 32 + 32 + 127) / 128 * 128;
  void *in = nullptr, *block = nullptr;
  acldvppMalloc(&in, 448 * 448 * 3 / 2);
  acldvppMalloc(&block, 2 * stride);
  aclrtMemset(in, 448 * 448 * 3 / 2, 128, 448 * 448 * 3 / 2);
  acldvppPicDesc* pin = nv12(in, 448, 448);
  acldvppPicDesc* p0 = nv12(block, 224, 224);
  acldvppPicDesc* p1 = nv12(static_cast<char*>(block) + stride, 224, 224);
  acldvppResizeConfig* cfg = acldvppCreateResizeConfig();
  acldvppChannelDesc* ch = channel();
  acldvppVpcResizeAsync(ch, pin, p0, cfg, s.a);
  acldvppVpcResizeAsync(ch, pin, p1, cfg, s.a);
  aclrtSynchronizeStream(s.a);
  drop(ch);
  for (acldvppPicDesc* p : {pin, p0, p1}) acldvppDestroyPicDesc(p);
  acldvppDestroyResizeConfig(cfg);
  acldvppFree(in);
  acldvppFree(block);
  return s.close();
}

// A 32x32 grey baseline JPEG (written for this corpus with Pillow).
const unsigned char kTinyJpeg[] = {
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01,
    0x00, 0x01, 0x00, 0x00, 0xff, 0xdb, 0x00, 0x43, 0x00, 0x10, 0x0b, 0x0c, 0x0e, 0x0c, 0x0a, 0x10,
    0x0e, 0x0d, 0x0e, 0x12, 0x11, 0x10, 0x13, 0x18, 0x28, 0x1a, 0x18, 0x16, 0x16, 0x18, 0x31, 0x23,
    0x25, 0x1d, 0x28, 0x3a, 0x33, 0x3d, 0x3c, 0x39, 0x33, 0x38, 0x37, 0x40, 0x48, 0x5c, 0x4e, 0x40,
    0x44, 0x57, 0x45, 0x37, 0x38, 0x50, 0x6d, 0x51, 0x57, 0x5f, 0x62, 0x67, 0x68, 0x67, 0x3e, 0x4d,
    0x71, 0x79, 0x70, 0x64, 0x78, 0x5c, 0x65, 0x67, 0x63, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x20,
    0x00, 0x20, 0x01, 0x01, 0x11, 0x00, 0xff, 0xc4, 0x00, 0x1f, 0x00, 0x00, 0x01, 0x05, 0x01, 0x01,
    0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04,
    0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0xff, 0xc4, 0x00, 0xb5, 0x10, 0x00, 0x02, 0x01, 0x03,
    0x03, 0x02, 0x04, 0x03, 0x05, 0x05, 0x04, 0x04, 0x00, 0x00, 0x01, 0x7d, 0x01, 0x02, 0x03, 0x00,
    0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32,
    0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72,
    0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35,
    0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55,
    0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75,
    0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94,
    0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2,
    0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9,
    0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6,
    0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xff, 0xda,
    0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00, 0x28, 0xa2, 0x8a, 0x28, 0xa2, 0x8a, 0x28, 0xa2,
    0x8a, 0x28, 0xa2, 0x8a, 0xff, 0xd9,
};

// The JPEG helpers read host memory: handing them the uploaded (DVPP) copy is
// a host load through a device pointer. The twin parses the host copy.
int host_device_pointer(bool bad) {
  Session s;
  if (!s.open()) return 2;
  void* dev = nullptr;
  acldvppMalloc(&dev, sizeof kTinyJpeg);
  aclrtMemcpy(dev, sizeof kTinyJpeg, kTinyJpeg, sizeof kTinyJpeg, ACL_MEMCPY_HOST_TO_DEVICE);
  uint32_t w = 0, h = 0;
  int32_t comps = 0;
  const void* where = bad ? dev : static_cast<const void*>(kTinyJpeg);
  aclError rc = acldvppJpegGetImageInfo(where, sizeof kTinyJpeg, &w, &h, &comps);
  acldvppFree(dev);
  int status = s.close();
  if (!bad && (rc != ACL_SUCCESS || w != 32 || h != 32)) return 3;
  return status;
}

// ---- memory -------------------------------------------------------------------

// Frees both ends of an upload still in flight. The twin synchronises first.
int free_in_use(bool bad) {
  Session s;
  Upload u;
  if (!s.open() || !u.alloc(kBig)) return 2;
  u.on(s.a);
  if (!bad) aclrtSynchronizeStream(s.a);
  aclError rh = aclrtFreeHost(u.host);
  aclError rd = aclrtFree(u.dev);
  aclrtSynchronizeStream(s.a);  // the blocks go back once the copy finished
  int rc = s.close();
  return rh == ACL_SUCCESS && rd == ACL_SUCCESS ? rc : 3;
}

// Two devices in one process: a memset on device 1 of device 0's memory (bad), of device 1's
// own (twin).
int memory_other_device(bool bad) {
  void *p0 = nullptr, *p1 = nullptr;
  aclrtStream s = nullptr;
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
      aclrtMalloc(&p0, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
    return 2;
  if (aclrtSetDevice(1) != ACL_SUCCESS ||
      aclrtMalloc(&p1, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
      aclrtCreateStream(&s) != ACL_SUCCESS)
    return 2;
  const aclError rc = aclrtMemsetAsync(bad ? p0 : p1, 4096, 0, 4096, s);
  aclrtSynchronizeStream(s);
  aclrtDestroyStream(s);
  aclrtFree(p1);
  aclrtResetDevice(1);
  aclrtSetDevice(0);
  aclrtFree(p0);
  aclrtResetDevice(0);
  aclrtResetDevice(0);
  return rc == ACL_SUCCESS && aclFinalize() == ACL_SUCCESS ? 0 : 3;
}

// ACL_SIM_FAIL names no API (bad) or an API (twin): aclInit refuses a bad rule.
int faults_spec(bool) {
  Session s;
  if (!s.open()) {
    std::fprintf(stderr, "aclInit refused to start\n");
    return 1;
  }
  void* p = nullptr;
  aclError first = aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST);  // injected: 207001
  if (first == ACL_SUCCESS) return 3;
  if (aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 4;
  aclrtFree(p);
  return s.close();
}

// The memset after an allocation fails (injected); the error path resets the
// device without freeing. The twin frees on its error path.
int leak_at_reset(bool bad) {
  Session s;
  if (!s.open()) return 2;
  void* p = nullptr;
  if (aclrtMalloc(&p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 3;
  if (aclrtMemset(p, 1 << 20, 0, 1 << 20) != ACL_SUCCESS) {
    if (!bad) aclrtFree(p);
    return s.close() == 0 ? 0 : 1;
  }
  return 4;  // the memset was meant to fail
}

// Two streams touch one buffer, unordered (ACL_SIM_HAZARD=1). The twin orders
// them with an event, reset by its waiter.
int hazard_unordered(bool bad) {
  Session s;
  Upload u;
  if (!s.open() || !u.alloc(1 << 20)) return 2;
  void* out = nullptr;
  aclrtMalloc(&out, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtEvent ev = sync_event();
  u.on(s.a);
  if (!bad) {
    aclrtRecordEvent(ev, s.a);
    aclrtStreamWaitEvent(s.b, ev);
    aclrtResetEvent(ev, s.b);
  }
  aclrtMemcpyAsync(out, 1 << 20, u.dev, 1 << 20, ACL_MEMCPY_DEVICE_TO_DEVICE, s.b);
  aclrtSynchronizeDevice();
  aclrtDestroyEvent(ev);
  aclrtFree(out);
  u.free();
  return s.close();
}

}  // namespace

acldvppPicDesc* nv12(void* data, uint32_t w, uint32_t h) {
  acldvppPicDesc* p = acldvppCreatePicDesc();
  acldvppSetPicDescData(p, data);
  acldvppSetPicDescFormat(p, PIXEL_FORMAT_YUV_SEMIPLANAR_420);
  acldvppSetPicDescWidth(p, w);
  acldvppSetPicDescHeight(p, h);
  acldvppSetPicDescWidthStride(p, w);
  acldvppSetPicDescHeightStride(p, h);
  acldvppSetPicDescSize(p, w * h * 3 / 2);
  return p;
}

std::vector<unsigned char> tiny_jpeg() {
  return std::vector<unsigned char>(kTinyJpeg, kTinyJpeg + sizeof kTinyJpeg);
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all =
      with_prof_cases(with_crop_cases(with_vdec_cases(with_review_cases(with_audit_cases({
          {"event_record_not_reset", "RULE event.record_not_reset ", 87, "", "",
           event_record_not_reset},
          {"event_one_waiter", "RULE event.one_waiter ", 87, "", "", event_one_waiter},
          {"event_wait_stale", "RULE event.wait_stale ", 87, "", "", event_wait_stale},
          {"event_reset_other_stream", "RULE event.reset_other_stream ", 87, "", "",
           event_reset_other_stream},
          {"event_ex", "RULE event.ex_unsupported ", 87, "", "", event_ex},
          {"report_unsubscribed", "RULE report.thread_subscribed ", 87, "", "",
           report_unsubscribed},
          {"report_unsubscribe_pending", "RULE report.unsubscribe_pending ", 87, "", "",
           report_unsubscribe_pending},
          {"channel_two_streams", "RULE dvpp.channel_one_stream ", 87, "", "", channel_two_streams},
          {"decode_retcode", "RULE jpegd.retcode_unread ", 87, "", "", decode_retcode},
          {"sub_buffer", "RULE dvpp.sub_buffer ", 87, "", "", sub_buffer},
          {"free_in_use", "RULE free.in_use ", 87, "", "", free_in_use},
          {"memory_other_device", "RULE memory.other_device ", 87, "", "", memory_other_device},
          {"host_device_pointer", "RULE host.device_pointer ", 87, "", "", host_device_pointer},
          {"faults_unknown_api", "RULE faults.spec ", 87, "ACL_SIM_FAIL=nosuchApi:1",
           "ACL_SIM_FAIL=aclrtMalloc:1:207001", faults_spec},
          {"faults_bad_number", "RULE faults.spec ", 87, "ACL_SIM_FAIL=aclrtMalloc:-1",
           "ACL_SIM_FAIL=aclrtMalloc:1", faults_spec},
          {"leak_at_reset", "LEAK 1 device allocations", 1,
           "ACL_SIM_LEAK_CHECK=1;ACL_SIM_FAIL=aclrtMemset:1",
           "ACL_SIM_LEAK_CHECK=1;ACL_SIM_FAIL=aclrtMemset:1", leak_at_reset},
          {"hazard_unordered", "HAZARD", 86, "ACL_SIM_HAZARD=1", "ACL_SIM_HAZARD=1",
           hazard_unordered},
      })))));
  return all;
}

}  // namespace corpus
