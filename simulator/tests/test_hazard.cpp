// Hazard detector (ACL_SIM_HAZARD=1): each classic ordering mistake is caught
// once, and its correct variant is not flagged.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "check.h"
#include "core/task.h"
#include "session.h"

using namespace testing_sim;

namespace {

constexpr size_t kBytes = 64 * 1024;

// Turns the detector on for one test; forgets its hazards at the end so that
// neither aclFinalize nor the exit status reflect the ones provoked on purpose.
struct HazardOn {
  explicit HazardOn(double scale = 0.05) {
    setenv("ACL_SIM_HAZARD", "1", 1);
    rc = open_device(scale);
  }
  ~HazardOn() {
    aclsimTakeHazardCount();
    unsetenv("ACL_SIM_HAZARD");
  }
  aclError rc;
};

void* dev(size_t n = kBytes) {
  void* p = nullptr;
  return aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS ? p : nullptr;
}

void* pinned(size_t n = kBytes) {
  void* p = nullptr;
  return aclrtMallocHost(&p, n) == ACL_SUCCESS ? p : nullptr;
}

aclrtStream stream(const char* name) {
  aclrtStream s = nullptr;
  if (aclrtCreateStream(&s) != ACL_SUCCESS) return nullptr;
  aclsimSetStreamName(s, name);
  return s;
}

aclrtEvent event() {
  aclrtEvent e = nullptr;
  return aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC) == ACL_SUCCESS ? e : nullptr;
}

aclError h2d(void* d, const void* h, aclrtStream s) {
  return aclrtMemcpyAsync(d, kBytes, h, kBytes, ACL_MEMCPY_HOST_TO_DEVICE, s);
}
aclError d2d(void* dst, const void* src, aclrtStream s) {
  return aclrtMemcpyAsync(dst, kBytes, src, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, s);
}
aclError d2h(void* h, const void* d, aclrtStream s) {
  return aclrtMemcpyAsync(h, kBytes, d, kBytes, ACL_MEMCPY_DEVICE_TO_HOST, s);
}

// Producer stream uploads, consumer stream copies out; `how` orders them:
// 0 nothing, 1 event recorded on the producer, 2 event recorded on the consumer
// (wrong stream), 3 host synchronisation of the producer.
uint64_t producer_consumer(int how, int frames) {
  aclrtStream p = stream("upload"), c = stream("infer");
  void *host = pinned(), *in = dev(), *out = dev();
  aclrtEvent ready = event();
  for (int i = 0; i < frames; ++i) {
    if (h2d(in, host, p) != ACL_SUCCESS) return 1000;
    if (how == 1) aclrtRecordEvent(ready, p);
    if (how == 2) aclrtRecordEvent(ready, c);
    if (how == 1 || how == 2) aclrtStreamWaitEvent(c, ready);
    if (how == 1 || how == 2) aclrtResetEvent(ready, c);  // classic events: reset by the waiter
    if (how == 3) aclrtSynchronizeStream(p);
    if (d2d(out, in, c) != ACL_SUCCESS) return 1000;
    aclrtSynchronizeStream(c);  // the consumer's reader ends before the next upload
  }
  aclrtSynchronizeDevice();
  return aclsimTakeHazardCount();
}

// A ring of `slots` device slots with `depth` frames in flight: the producer
// waits for the consumer's "done" of frame i - depth before uploading frame i
// into slot i % slots. slots < depth reuses a slot its last reader still reads.
uint64_t slot_ring(int slots, int depth, int frames) {
  aclrtStream p = stream("upload"), c = stream("infer");
  void *host = pinned(), *out = dev();
  auto* ring = static_cast<char*>(dev(slots * kBytes));  // one block: one report
  std::vector<void*> slot(slots);
  for (int k = 0; k < slots; ++k) slot[k] = ring + k * kBytes;
  std::vector<aclrtEvent> ready(slots), done(depth);
  for (auto& e : ready) e = event();
  for (auto& e : done) e = event();
  for (int i = 0; i < frames; ++i) {
    int k = i % slots;
    if (i >= depth) aclrtStreamWaitEvent(p, done[i % depth]);
    if (i >= depth) aclrtResetEvent(done[i % depth], p);
    h2d(slot[k], host, p);
    aclrtRecordEvent(ready[k], p);
    aclrtStreamWaitEvent(c, ready[k]);
    aclrtResetEvent(ready[k], c);
    d2d(out, slot[k], c);
    aclrtRecordEvent(done[i % depth], c);
  }
  aclrtSynchronizeDevice();
  return aclsimTakeHazardCount();
}

// Holds `s` for `us` of model time (internal task API), so that the host's
// racy access below really happens before the device's (and, through the
// API call after it, is ordered for ThreadSanitizer).
aclError hold(aclrtStream s, double us) {
  sim::TaskSpec spec;
  spec.engine = sim::Engine::kVpc;
  spec.service_us = us;
  spec.name = "hold";
  return sim::submit("test_hold", s, std::move(spec));
}

}  // namespace

TEST(hazard, missing_wait_between_streams) {
  HazardOn on;
  CHECK_OK(on.rc);
  CHECK_EQ(producer_consumer(0, 10), 1u);  // ten times the same pair: one report
}

TEST(hazard, event_wait_orders_streams) {
  HazardOn on;
  CHECK_OK(on.rc);
  CHECK_EQ(producer_consumer(1, 10), 0u);
}

TEST(hazard, event_recorded_on_wrong_stream) {
  HazardOn on;
  CHECK_OK(on.rc);
  CHECK_EQ(producer_consumer(2, 10), 1u);
}

TEST(hazard, host_sync_orders_streams) {
  HazardOn on;
  CHECK_OK(on.rc);
  CHECK_EQ(producer_consumer(3, 10), 0u);
}

TEST(hazard, slot_ring_one_too_small) {
  HazardOn on;
  CHECK_OK(on.rc);
  CHECK_EQ(slot_ring(3, 4, 16), 1u);
}

TEST(hazard, slot_ring_big_enough) {
  HazardOn on;
  CHECK_OK(on.rc);
  CHECK_EQ(slot_ring(4, 4, 16), 0u);
  CHECK_EQ(slot_ring(5, 4, 16), 0u);
}

TEST(hazard, host_writes_pinned_source_before_sync) {
  HazardOn on;
  CHECK_OK(on.rc);
  aclrtStream s = stream("upload");
  void *host = pinned(), *in = dev();
  std::memset(host, 1, kBytes);
  CHECK_OK(hold(s, 2e6));
  CHECK_OK(h2d(in, host, s));
  std::memset(host, 2, kBytes);  // the next frame into the slot, too early
  aclrtStreamStatus st;
  CHECK_OK(aclrtStreamQuery(s, &st));
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK_EQ(aclsimTakeHazardCount(), 1u);
  // Correct: synchronise, then refill.
  CHECK_OK(h2d(in, host, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  std::memset(host, 3, kBytes);
  CHECK_OK(h2d(in, host, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK_EQ(aclsimTakeHazardCount(), 0u);
}

TEST(hazard, host_reads_output_before_sync) {
  HazardOn on;
  CHECK_OK(on.rc);
  aclrtStream s = stream("fetch");
  void *out = dev(), *host = pinned(), *copy = pinned();
  CHECK_OK(hold(s, 2e6));
  CHECK_OK(d2h(host, out, s));
  // The host reads the output slot (through a host-side copy) before the
  // device-to-host copy is synchronised.
  CHECK_OK(aclrtMemcpy(copy, kBytes, host, kBytes, ACL_MEMCPY_HOST_TO_HOST));
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK_EQ(aclsimTakeHazardCount(), 1u);
  CHECK_OK(d2h(host, out, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK_OK(aclrtMemcpy(copy, kBytes, host, kBytes, ACL_MEMCPY_HOST_TO_HOST));
  CHECK_EQ(aclsimTakeHazardCount(), 0u);
}

// Page guards: plain CPU loads and stores into the destination of an
// in-flight device-to-host copy. `out` holds kPages pages and starts on a page.
namespace {

constexpr size_t kPages = 4;

struct Fetch {
  aclrtStream s = nullptr;
  void* dev = nullptr;
  volatile unsigned char* out = nullptr;
  size_t bytes = 0;
  aclError start() {  // a long task, then the copy: still in flight after this
    s = stream("fetch");
    bytes = kPages * static_cast<size_t>(sysconf(_SC_PAGESIZE));
    dev = ::dev(bytes);
    void* h = pinned(bytes);
    out = static_cast<volatile unsigned char*>(h);
    if (s == nullptr || dev == nullptr || h == nullptr) return ACL_ERROR_FAILURE;
    if (reinterpret_cast<uintptr_t>(h) % sysconf(_SC_PAGESIZE) != 0) return ACL_ERROR_FAILURE;
    std::memset(h, 0, bytes);
    if (aclError rc = aclrtMemsetAsync(dev, bytes, 7, bytes, s)) return rc;
    if (aclError rc = aclrtSynchronizeStream(s)) return rc;
    if (aclError rc = hold(s, 2e6)) return rc;
    return aclrtMemcpyAsync(h, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST, s);
  }
};

}  // namespace

TEST(hazard, host_loads_output_before_sync) {
  HazardOn on;
  CHECK_OK(on.rc);
  Fetch f;
  CHECK_OK(f.start());
  unsigned char seen = f.out[f.bytes / 2];  // a plain load, copy in flight
  CHECK_EQ(aclsimTakeHazardCount(), 1u);
  CHECK(seen != 7);           // stale: the copy has not landed (the program keeps running)
  seen = f.out[f.bytes - 1];  // once per copy, stream and block
  (void)seen;
  CHECK_EQ(aclsimTakeHazardCount(), 0u);
  CHECK_OK(aclrtSynchronizeStream(f.s));
  CHECK_EQ(f.out[0], 7);
  CHECK_EQ(f.out[f.bytes - 1], 7);
  CHECK_EQ(aclsimTakeHazardCount(), 0u);
}

TEST(hazard, host_loads_output_after_sync) {
  HazardOn on;
  CHECK_OK(on.rc);
  Fetch f;
  CHECK_OK(f.start());
  CHECK_OK(aclrtSynchronizeStream(f.s));
  CHECK_EQ(f.out[f.bytes / 2], 7);
  f.out[0] = 1;
  CHECK_EQ(aclsimTakeHazardCount(), 0u);
}

TEST(hazard, host_loads_output_after_event_or_callback) {
  HazardOn on;
  CHECK_OK(on.rc);
  Fetch f;
  CHECK_OK(f.start());
  aclrtEvent done = event();
  CHECK_OK(aclrtRecordEvent(done, f.s));
  CHECK_OK(aclrtSynchronizeEvent(done));
  CHECK_EQ(f.out[f.bytes / 2], 7);
  CHECK_EQ(aclsimTakeHazardCount(), 0u);
  // A callback after the copy reads its output on the report thread.
  // The report loop starts after its subscription and stops before the
  // unsubscription (rule report.thread_subscribed).
  struct Loop {
    std::atomic<bool> go{false}, stop{false};
  } loop;
  pthread_t tid;
  auto serve = [](void* arg) -> void* {
    auto* l = static_cast<Loop*>(arg);
    while (!l->go) std::this_thread::yield();
    while (!l->stop) aclrtProcessReport(20);
    return nullptr;
  };
  CHECK_EQ(pthread_create(&tid, nullptr, serve, &loop), 0);
  CHECK_OK(aclrtSubscribeReport(static_cast<uint64_t>(tid), f.s));
  loop.go = true;
  CHECK_OK(hold(f.s, 1e6));
  CHECK_OK(aclrtMemcpyAsync(const_cast<unsigned char*>(f.out), f.bytes, f.dev, f.bytes,
                            ACL_MEMCPY_DEVICE_TO_HOST, f.s));
  struct Seen {
    volatile unsigned char* out;
    size_t bytes;
    int value = -1;
  } seen{f.out, f.bytes};
  auto use = [](void* ud) {
    auto* c = static_cast<Seen*>(ud);
    c->value = c->out[c->bytes - 1];
  };
  CHECK_OK(aclrtLaunchCallback(use, &seen, ACL_CALLBACK_BLOCK, f.s));
  CHECK_OK(aclrtSynchronizeStream(f.s));
  loop.stop = true;
  pthread_join(tid, nullptr);
  CHECK_OK(aclrtUnSubscribeReport(static_cast<uint64_t>(tid), f.s));
  CHECK_EQ(seen.value, 7);
  CHECK_EQ(aclsimTakeHazardCount(), 0u);
}

TEST(hazard, host_stores_into_output_before_sync) {
  HazardOn on;
  CHECK_OK(on.rc);
  Fetch f;
  CHECK_OK(f.start());
  f.out[kPages / 2 * sysconf(_SC_PAGESIZE)] = 1;  // the host reuses the buffer too early
  CHECK_EQ(aclsimTakeHazardCount(), 1u);
  CHECK_OK(aclrtSynchronizeStream(f.s));
  CHECK_EQ(f.out[kPages / 2 * sysconf(_SC_PAGESIZE)], 7);  // the copy landed over it
  CHECK_EQ(aclsimTakeHazardCount(), 0u);
}

TEST(hazard, host_loads_in_other_thread_and_partial_pages) {
  HazardOn on;
  CHECK_OK(on.rc);
  Fetch f;
  CHECK_OK(f.start());
  // Another thread reads the output early: caught there too.
  int seen = -1;
  std::thread reader([&] { seen = f.out[1]; });
  reader.join();
  CHECK(seen != 7);
  CHECK_EQ(aclsimTakeHazardCount(), 1u);
  CHECK_OK(aclrtSynchronizeStream(f.s));
  // A copy into a slot that does not fill its pages leaves them unguarded.
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  CHECK_OK(hold(f.s, 1e6));
  CHECK_OK(aclrtMemcpyAsync(const_cast<unsigned char*>(f.out) + 64, page, f.dev, page,
                            ACL_MEMCPY_DEVICE_TO_HOST, f.s));
  seen = f.out[64];  // missed: the page is shared with bytes [0, 64)
  (void)seen;
  CHECK_OK(aclrtSynchronizeStream(f.s));
  CHECK_EQ(aclsimTakeHazardCount(), 0u);
}

constexpr int kSurvived = 100;

TEST(hazard, page_guard_counts_at_finalize) {
  setenv("ACL_SIM_HAZARD", "1", 1);
  CHECK_OK(open_device(0.05));
  unsetenv("ACL_SIM_HAZARD");
  Fetch f;
  CHECK_OK(f.start());
  CHECK_EQ(f.out[0], 0);  // caught, not yet reported
  CHECK_OK(aclrtSynchronizeStream(f.s));
  CHECK_OK(aclrtDestroyStream(f.s));
  CHECK_OK(aclrtResetDevice(0));
  CHECK_EQ(aclFinalize(), ACL_ERROR_INTERNAL_ERROR);
  CHECK_EQ(aclsimTakeHazardCount(), 1u);  // consumed: the process exits 0
}

// Ordered copies that overlap on guarded pages (two in flight into one
// buffer, a guarded buffer read back by a later copy, a second stream) never
// fault the simulator itself and report nothing.
TEST(hazard, page_guards_never_fault_the_simulator) {
  HazardOn on;
  CHECK_OK(on.rc);
  Fetch f;
  CHECK_OK(f.start());
  aclrtStream other = stream("other");
  void *back = dev(f.bytes), *back2 = dev(f.bytes);
  void* host2 = pinned(f.bytes);
  unsigned char* out = const_cast<unsigned char*>(f.out);
  aclrtEvent copied = event();
  for (int i = 0; i < 20; ++i) {
    CHECK_OK(aclrtMemcpyAsync(out, f.bytes, f.dev, f.bytes, ACL_MEMCPY_DEVICE_TO_HOST, f.s));
    CHECK_OK(aclrtMemcpyAsync(back, f.bytes, out, f.bytes, ACL_MEMCPY_HOST_TO_DEVICE, f.s));
    CHECK_OK(aclrtMemcpyAsync(out, f.bytes, back, f.bytes, ACL_MEMCPY_DEVICE_TO_HOST, f.s));
    CHECK_OK(aclrtRecordEvent(copied, f.s));
    CHECK_OK(aclrtStreamWaitEvent(other, copied));
    CHECK_OK(aclrtResetEvent(copied, other));
    CHECK_OK(aclrtMemcpyAsync(back2, f.bytes, out, f.bytes, ACL_MEMCPY_DEFAULT, other));
    CHECK_OK(aclrtMemcpyAsync(out, f.bytes, back, f.bytes, ACL_MEMCPY_DEVICE_TO_HOST, other));
    CHECK_OK(aclrtRecordEvent(copied, other));
    CHECK_OK(aclrtStreamWaitEvent(f.s, copied));
    CHECK_OK(aclrtResetEvent(copied, f.s));
  }
  CHECK_OK(aclrtSynchronizeDevice());
  CHECK_EQ(aclsimTakeHazardCount(), 0u);
  CHECK_OK(aclrtMemcpy(host2, f.bytes, out, f.bytes, ACL_MEMCPY_HOST_TO_HOST));
  CHECK_EQ(static_cast<unsigned char*>(host2)[f.bytes - 1], 7);
  // A buffer a copy writes is freed after the copy (before it: rule
  // free.in_use, the block stays reserved; memory.free_under_a_queued_task).
  CHECK_OK(hold(f.s, 1e5));
  CHECK_OK(aclrtMemcpyAsync(host2, f.bytes, f.dev, f.bytes, ACL_MEMCPY_DEVICE_TO_HOST, f.s));
  CHECK_OK(aclrtSynchronizeStream(f.s));
  CHECK_OK(aclrtFreeHost(host2));
  CHECK_EQ(aclsimTakeHazardCount(), 0u);
}

// A real crash is not swallowed by the guards' SIGSEGV handler: a child
// process with a guard armed reads an unrelated inaccessible page, or NULL.
int crash_in_child(bool null_read) {
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = ::open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, 2);  // the sanitizers' reports
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* p =
        null_read ? nullptr : mmap(nullptr, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    volatile const unsigned char* bad = static_cast<const unsigned char*>(p);
    _exit(bad[0] == 0 ? kSurvived : kSurvived + 1);  // wrong
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

bool died_of_segv(int status) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  // The sanitizer's own handler reports the SEGV and exits (1, or 66 for TSan).
  if (WIFEXITED(status))
    return WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != kSurvived &&
           WEXITSTATUS(status) != kSurvived + 1;
#endif
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

TEST(hazard, real_crash_still_crashes) {
  HazardOn on;
  CHECK_OK(on.rc);
  Fetch f;
  CHECK_OK(f.start());
  int status = crash_in_child(false);
  CHECK(died_of_segv(status));
  status = crash_in_child(true);
  CHECK(died_of_segv(status));
  CHECK_OK(aclrtSynchronizeStream(f.s));
  CHECK_EQ(aclsimTakeHazardCount(), 0u);
}

TEST(hazard, sync_copy_races_async_writer) {
  HazardOn on;
  CHECK_OK(on.rc);
  aclrtStream s = stream("fetch");
  void *out = dev(), *host = pinned();
  CHECK_OK(aclrtMemsetAsync(out, kBytes, 7, kBytes, s));
  CHECK_OK(aclrtMemcpy(host, kBytes, out, kBytes, ACL_MEMCPY_DEVICE_TO_HOST));  // no sync first
  CHECK_EQ(aclsimTakeHazardCount(), 1u);
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK_OK(aclrtMemsetAsync(out, kBytes, 7, kBytes, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK_OK(aclrtMemcpy(host, kBytes, out, kBytes, ACL_MEMCPY_DEVICE_TO_HOST));
  CHECK_EQ(aclsimTakeHazardCount(), 0u);
}

TEST(hazard, query_and_callback_order_like_sync) {
  HazardOn on;
  CHECK_OK(on.rc);
  aclrtStream p = stream("upload"), c = stream("infer");
  void *host = pinned(), *in = dev(), *out = dev();
  aclrtEvent e = event();
  CHECK_OK(h2d(in, host, p));
  CHECK_OK(aclrtRecordEvent(e, p));
  aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  while (st != ACL_EVENT_RECORDED_STATUS_COMPLETE) CHECK_OK(aclrtQueryEventStatus(e, &st));
  CHECK_OK(d2d(out, in, c));  // the host saw the upload complete: ordered
  CHECK_OK(aclrtSynchronizeDevice());
  CHECK_EQ(aclsimTakeHazardCount(), 0u);
}

TEST(hazard, disjoint_slots_of_one_block_do_not_race) {
  HazardOn on;
  CHECK_OK(on.rc);
  aclrtStream a = stream("a"), b = stream("b");
  void *host = pinned(), *big = dev(2 * kBytes);
  CHECK_OK(h2d(big, host, a));
  CHECK_OK(h2d(static_cast<char*>(big) + kBytes, host, b));
  CHECK_OK(aclrtSynchronizeDevice());
  CHECK_EQ(aclsimTakeHazardCount(), 0u);
}

TEST(hazard, finalize_reports_unconsumed_hazards) {
  setenv("ACL_SIM_HAZARD", "1", 1);
  CHECK_OK(open_device(0.05));
  unsetenv("ACL_SIM_HAZARD");
  aclrtStream p = stream("upload"), c = stream("infer");
  void *host = pinned(), *in = dev(), *out = dev();
  CHECK_OK(h2d(in, host, p));
  CHECK_OK(d2d(out, in, c));
  CHECK_OK(aclrtSynchronizeDevice());
  CHECK_EQ(aclsimHazardCount(), 1u);
  CHECK_OK(aclrtDestroyStream(p));
  CHECK_OK(aclrtDestroyStream(c));
  CHECK_OK(aclrtResetDevice(0));
  CHECK_EQ(aclFinalize(), ACL_ERROR_INTERNAL_ERROR);
  CHECK_EQ(aclsimTakeHazardCount(), 1u);  // consumed: the process exits 0
}

TEST(hazard, off_by_default) {
  CHECK_OK(open_device(0.05));
  aclrtStream p = stream("upload"), c = stream("infer");
  void *host = pinned(), *in = dev(), *out = dev();
  CHECK_OK(h2d(in, host, p));
  CHECK_OK(d2d(out, in, c));
  CHECK_OK(aclrtSynchronizeDevice());
  CHECK_EQ(aclsimHazardCount(), 0u);
}
