// Streams, events, callbacks and the trace.
#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "check.h"
#include "core/task.h"
#include "session.h"

using namespace testing_sim;

namespace {

// A task that occupies a VPC unit for `us` of model time (internal task API).
aclError busy(aclrtStream s, double us, std::function<void()> work = nullptr) {
  sim::TaskSpec spec;
  spec.engine = sim::Engine::kVpc;
  spec.service_us = us;
  spec.work = std::move(work);
  spec.name = "busy";
  return sim::submit("test_busy", s, std::move(spec));
}

}  // namespace

TEST(stream, query_sync_destroy) {
  CHECK_OK(open_device(0.1));
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
  CHECK_OK(aclrtStreamQuery(s, &st));
  CHECK_EQ(st, ACL_STREAM_STATUS_COMPLETE);
  CHECK_OK(busy(s, 1e6));  // 100 ms of wall time
  CHECK_OK(aclrtStreamQuery(s, &st));
  CHECK_EQ(st, ACL_STREAM_STATUS_NOT_READY);
  CHECK_RULE(aclrtDestroyStream(s), ACL_ERROR_RT_STREAM_NOT_COMPLETE, "stream.destroy_pending");
  CHECK_RULE(aclrtSynchronizeStreamWithTimeout(s, 5), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
             "stream.sync_timeout");
  CHECK_EQ(aclrtSynchronizeStreamWithTimeout(s, 0), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, 10000));
  CHECK_OK(aclrtStreamQuery(s, &st));
  CHECK_EQ(st, ACL_STREAM_STATUS_COMPLETE);
  CHECK_OK(aclrtDestroyStream(s));
  CHECK_RULE(aclrtDestroyStream(s), ACL_ERROR_RT_INVALID_HANDLE, "stream.valid_handle");
  CHECK_EQ(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM);
}

TEST(device, synchronize_with_timeout) {
  CHECK_OK(open_device(0.1));
  aclrtStream a = nullptr, b = nullptr;
  CHECK_OK(aclrtCreateStream(&a));
  CHECK_OK(aclrtCreateStream(&b));
  CHECK_OK(aclrtSynchronizeDeviceWithTimeout(5));  // nothing queued
  CHECK_OK(busy(a, 1e3));
  CHECK_OK(busy(b, 1e6));  // 100 ms of wall time on the other stream
  CHECK_RULE(aclrtSynchronizeDeviceWithTimeout(5), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
             "device.sync_timeout");
  CHECK_EQ(aclrtSynchronizeDeviceWithTimeout(0), ACL_ERROR_INVALID_PARAM);
  CHECK_EQ(aclrtSynchronizeDeviceWithTimeout(-2), ACL_ERROR_INVALID_PARAM);
  CHECK_OK(aclrtSynchronizeDeviceWithTimeout(10000));
  aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
  CHECK_OK(aclrtStreamQuery(b, &st));
  CHECK_EQ(st, ACL_STREAM_STATUS_COMPLETE);
  CHECK_OK(busy(a, 1e3));
  CHECK_OK(aclrtSynchronizeDeviceWithTimeout(-1));  // as aclrtSynchronizeDevice
  CHECK_OK(aclrtDestroyStream(a));
  CHECK_OK(aclrtDestroyStream(b));
}

TEST(stream, tasks_run_in_submission_order) {
  CHECK_OK(open_device(0.05));
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  std::vector<int> order;
  for (int i = 0; i < 20; ++i)
    CHECK_OK(busy(s, (i % 3) * 700.0, [&order, i] { order.push_back(i); }));
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK_EQ(order.size(), 20u);
  for (int i = 0; i < 20; ++i) CHECK_EQ(order[i], i);
  CHECK_OK(aclrtDestroyStream(s));
}

TEST(event, cross_stream_wait_orders_bytes) {
  CHECK_OK(open_device(0.1));
  aclrtStream producer = nullptr, consumer = nullptr;
  CHECK_OK(aclrtCreateStream(&producer));
  CHECK_OK(aclrtCreateStream(&consumer));
  aclrtEvent ev = nullptr;
  CHECK_OK(aclrtCreateEventWithFlag(&ev, ACL_EVENT_SYNC));
  const size_t n = 1 << 16;
  void *h_in = nullptr, *h_out = nullptr, *d = nullptr;
  CHECK_OK(aclrtMallocHost(&h_in, n));
  CHECK_OK(aclrtMallocHost(&h_out, n));
  CHECK_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
  std::memset(h_in, 0x77, n);
  std::memset(h_out, 0, n);
  CHECK_OK(busy(producer, 20000));  // the producer is slow
  CHECK_OK(aclrtMemcpyAsync(d, n, h_in, n, ACL_MEMCPY_HOST_TO_DEVICE, producer));
  CHECK_OK(aclrtRecordEvent(ev, producer));
  aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_COMPLETE;
  CHECK_OK(aclrtQueryEventStatus(ev, &rs));
  CHECK_EQ(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY);
  CHECK_OK(aclrtStreamWaitEvent(consumer, ev));
  CHECK_OK(aclrtResetEvent(ev, consumer));
  CHECK_OK(aclrtMemcpyAsync(h_out, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST, consumer));
  CHECK_OK(aclrtSynchronizeStream(consumer));
  CHECK_EQ(static_cast<unsigned char*>(h_out)[n - 1], 0x77);
  CHECK_OK(aclrtSynchronizeEvent(ev));
  CHECK_OK(aclrtQueryEventStatus(ev, &rs));
  CHECK_EQ(rs, ACL_EVENT_RECORDED_STATUS_COMPLETE);
  CHECK_OK(aclrtDestroyEvent(ev));
  CHECK_OK(aclrtSynchronizeStream(producer));
  CHECK_OK(aclrtDestroyStream(producer));
  CHECK_OK(aclrtDestroyStream(consumer));
  CHECK_OK(aclrtFree(d));
  CHECK_OK(aclrtFreeHost(h_in));
  CHECK_OK(aclrtFreeHost(h_out));
}

TEST(event, ex_events_need_the_profile) {
  CHECK_OK(open_device(0.1));  // the build's profile: ascend310, no Ex events
  aclrtEvent ex = nullptr;
  CHECK_DEVICE_RULE(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC),
                    ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "event.ex_unsupported");
}

// aclrtCreateEventWithFlag [HA canncommercial/601 aclcppdevg_03_0046]: an event whose flag has
// ACL_EVENT_SYNC (and aclrtCreateEvent's) counts against the device's limit; ACL_EVENT_TIME_LINE
// alone creates "an unlimited number". A program's timing marks never fail its start-up.
TEST(event, only_events_that_synchronise_are_limited) {
  use_profile(write_profile("four_events", {{"limits.max_events", "4"}}));
  CHECK_OK(open_device(0.1));
  std::vector<aclrtEvent> events(4, nullptr);
  CHECK_OK(aclrtCreateEvent(&events[0]));
  for (size_t i = 1; i < events.size(); ++i)
    CHECK_OK(aclrtCreateEventWithFlag(&events[i], ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE));
  aclrtEvent more = nullptr;
  CHECK_RULE(aclrtCreateEventWithFlag(&more, ACL_EVENT_SYNC), ACL_ERROR_RT_NO_EVENT_RESOURCE,
             "event.limit");
  CHECK_RULE(aclrtCreateEvent(&more), ACL_ERROR_RT_NO_EVENT_RESOURCE, "event.limit");
  for (int i = 0; i < 8; ++i) {  // timing only: beyond the limit
    CHECK_OK(aclrtCreateEventWithFlag(&more, ACL_EVENT_TIME_LINE));
    events.push_back(more);
  }
  CHECK_OK(aclrtDestroyEvent(events[0]));  // a synchronising one freed: room for one again
  CHECK_OK(aclrtCreateEventWithFlag(&events[0], ACL_EVENT_SYNC));
  for (aclrtEvent e : events) CHECK_OK(aclrtDestroyEvent(e));
}

TEST(event, rules_and_status_encodings) {
  use_profile(write_profile("ex_events", {{"features.ex_events", "1"}}));
  CHECK_OK(open_device(0.1));
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  aclrtEvent plain = nullptr, timeline = nullptr, ex = nullptr;
  CHECK_OK(aclrtCreateEvent(&plain));
  CHECK_OK(aclrtCreateEventWithFlag(&timeline, ACL_EVENT_TIME_LINE));
  CHECK_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
  // Never recorded: the wait is a no-op with a warning (ACL_FACTS 7.2).
  CHECK_RULE(aclrtStreamWaitEvent(s, plain), ACL_SUCCESS, "event.wait_unrecorded");
  CHECK_RULE(aclrtStreamWaitEvent(s, timeline), ACL_ERROR_RT_PARAM_INVALID,
             "event.wait_needs_sync");
  CHECK_RULE(aclrtResetEvent(timeline, s), ACL_ERROR_RT_PARAM_INVALID, "event.reset_needs_sync");
  CHECK_RULE(aclrtResetEvent(ex, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "event.reset_ex");
  CHECK_OK(aclrtRecordEvent(plain, s));
  CHECK_RULE(aclrtResetEvent(plain, s), ACL_SUCCESS, "event.reset_plain");  // warns (7.1)
  CHECK_OK(busy(s, 1e6));
  CHECK_OK(aclrtRecordEvent(plain, s));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  aclrtEventStatus old = ACL_EVENT_STATUS_RESERVED;
  CHECK_OK(aclrtQueryEvent(plain, &old));
  CHECK_EQ(old, ACL_EVENT_STATUS_NOT_READY);
  CHECK_EQ(aclrtQueryEvent(ex, &old), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
#pragma GCC diagnostic pop
  CHECK_RULE(aclrtSynchronizeEventWithTimeout(plain, 2), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
             "event.sync_timeout");
  CHECK_OK(aclrtSynchronizeEventWithTimeout(plain, 20000));
  aclrtEventWaitStatus ws = ACL_EVENT_WAIT_STATUS_RESERVED;
  CHECK_OK(aclrtQueryEventWaitStatus(plain, &ws));
  CHECK_EQ(ws, ACL_EVENT_WAIT_STATUS_COMPLETE);
  CHECK_RULE(aclrtQueryEventWaitStatus(ex, &ws), ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             "event.query_ex");
  CHECK_OK(aclrtSynchronizeStream(s));
  for (aclrtEvent e : {plain, timeline, ex}) CHECK_OK(aclrtDestroyEvent(e));
  CHECK_RULE(aclrtRecordEvent(plain, s), ACL_ERROR_RT_INVALID_HANDLE, "event.valid_handle");
  CHECK_OK(aclrtDestroyStream(s));
}

TEST(event, elapsed_time_is_model_time) {
  CHECK_OK(open_device(1.0));
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  aclrtEvent a = nullptr, b = nullptr;
  CHECK_OK(aclrtCreateEventWithFlag(&a, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE));
  CHECK_OK(aclrtCreateEventWithFlag(&b, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE));
  CHECK_OK(busy(s, 20000));  // gate: everything below is queued before it ends
  CHECK_OK(aclrtRecordEvent(a, s));
  for (int i = 0; i < 4; ++i) CHECK_OK(busy(s, 1000));
  CHECK_OK(aclrtRecordEvent(b, s));
  float ms = 0;
  CHECK_EQ(aclrtEventElapsedTime(&ms, a, b), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK_OK(aclrtEventElapsedTime(&ms, a, b));
  // 4 x (5 us dispatch + 1000 us) + 5 us for the second record, exactly.
  double expect = (4 * 1005.0 + 5.0) / 1000.0;
  CHECK(ms > expect - 1e-4 && ms < expect + 1e-4);
  // a flag without ACL_EVENT_TIME_LINE keeps no timestamp, even recorded and complete
  aclrtEvent sync_only = nullptr;
  CHECK_OK(aclrtCreateEventWithFlag(&sync_only, ACL_EVENT_SYNC));
  CHECK_OK(aclrtRecordEvent(sync_only, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  CHECK_RULE(aclrtEventElapsedTime(&ms, a, sync_only), ACL_ERROR_INVALID_PARAM,
             "event.elapsed_timing");
  CHECK_RULE(aclrtEventElapsedTime(&ms, sync_only, b), ACL_ERROR_INVALID_PARAM,
             "event.elapsed_timing");
  CHECK_OK(aclrtDestroyEvent(sync_only));
  CHECK_OK(aclrtDestroyEvent(a));
  CHECK_OK(aclrtDestroyEvent(b));
  CHECK_OK(aclrtDestroyStream(s));
}

namespace {

// The report loop starts once subscribed (go) and stops (stop, joined) before
// the unsubscription: ProcessReport on an unsubscribed thread is a device rule.
struct Reports {
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::vector<int> seen;
  size_t count() {
    std::lock_guard<std::mutex> lock(mu);
    return seen.size();
  }
};

void* serve(void* arg) {
  auto* r = static_cast<Reports*>(arg);
  while (!r->go) std::this_thread::yield();
  while (!r->stop) {
    aclError rc = aclrtProcessReport(50);  // 507012: no work yet
    if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_REPORT_TIMEOUT) break;
  }
  return nullptr;
}

}  // namespace

TEST(callback, block_and_no_block_in_stream_order) {
  CHECK_OK(open_device(0.1));
  aclrtStream s = nullptr;
  CHECK_OK(aclrtCreateStream(&s));
  auto cb = [](void*) {};
  CHECK_RULE(aclrtLaunchCallback(cb, nullptr, ACL_CALLBACK_BLOCK, s), ACL_ERROR_RT_STREAM_NO_CB_REG,
             "callback.subscribed");
  // Unsubscribed: 107012 at once, whatever the timeout (a device rule).
  CHECK_DEVICE_RULE(aclrtProcessReport(-1), ACL_ERROR_RT_THREAD_SUBSCRIBE,
                    "report.thread_subscribed");
  CHECK_DEVICE_RULE(aclrtProcessReport(60000), ACL_ERROR_RT_THREAD_SUBSCRIBE,
                    "report.thread_subscribed");
  CHECK_EQ(aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM);
  Reports reports;
  pthread_t tid;
  CHECK_EQ(pthread_create(&tid, nullptr, serve, &reports), 0);
  CHECK_OK(aclrtSubscribeReport(static_cast<uint64_t>(tid), s));
  reports.go = true;
  CHECK_EQ(aclrtSubscribeReport(static_cast<uint64_t>(tid), s), ACL_ERROR_REPEAT_SUBSCRIBE);
  struct Ctx {
    Reports* r;
    int id;
  } c1{&reports, 1}, c2{&reports, 2};
  auto record = [](void* ud) {
    auto* c = static_cast<Ctx*>(ud);
    std::lock_guard<std::mutex> lock(c->r->mu);
    c->r->seen.push_back(c->id);
  };
  int after = 0;
  CHECK_OK(busy(s, 5000));
  CHECK_OK(aclrtLaunchCallback(record, &c1, ACL_CALLBACK_BLOCK, s));
  // A blocking callback holds the stream: this task sees its effect.
  CHECK_OK(busy(s, 10, [&] { after = static_cast<int>(reports.count()); }));
  CHECK_OK(aclrtLaunchCallback(record, &c2, ACL_CALLBACK_NO_BLOCK, s));
  CHECK_OK(aclrtSynchronizeStream(s));
  // NO_BLOCK completes on the device once queued; give the host a moment.
  for (int i = 0; i < 200 && reports.count() < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK_EQ(after, 1);
  CHECK_EQ(reports.count(), 2u);
  CHECK_EQ(reports.seen[0], 1);
  CHECK_EQ(reports.seen[1], 2);
  reports.stop = true;
  pthread_join(tid, nullptr);
  CHECK_OK(aclrtUnSubscribeReport(static_cast<uint64_t>(tid), s));
  CHECK_OK(aclrtDestroyStream(s));
}

// aclrtSubscribeReport Restrictions: one thread ID serves the streams of one device only.
TEST(callback, one_report_thread_per_device) {
  CHECK_OK(open_device(0.1));
  const uint64_t thread = 0x5eed, other_thread = 0x5eee;  // ids only: nothing processes
  aclrtStream s0 = nullptr, s1 = nullptr;
  CHECK_OK(aclrtCreateStream(&s0));
  CHECK_OK(aclrtSubscribeReport(thread, s0));
  CHECK_OK(aclrtSetDevice(1));
  CHECK_OK(aclrtCreateStream(&s1));
  CHECK_RULE(aclrtSubscribeReport(thread, s1), ACL_ERROR_RT_PARAM_INVALID,
             "report.thread_one_device");
  CHECK_OK(aclrtSubscribeReport(other_thread, s1));
  CHECK_OK(aclrtUnSubscribeReport(other_thread, s1));
  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtUnSubscribeReport(thread, s0));  // it serves no device now
  CHECK_OK(aclrtSetDevice(1));
  CHECK_OK(aclrtSubscribeReport(thread, s1));
  CHECK_OK(aclrtUnSubscribeReport(thread, s1));
  CHECK_OK(aclrtDestroyStream(s1));
  CHECK_OK(aclrtResetDevice(1));
  CHECK_OK(aclrtResetDevice(1));
  CHECK_OK(aclrtSetDevice(0));
  CHECK_OK(aclrtDestroyStream(s0));
  CHECK_OK(aclrtResetDevice(0));
}

TEST(trace, writes_trace_file) {
  setenv("ACL_SIM_TRACE", ACL_SIM_TEST_TRACE, 1);
  std::remove(ACL_SIM_TEST_TRACE);
  CHECK_OK(open_device(0.05));
  aclrtStream a = nullptr, b = nullptr;
  CHECK_OK(aclrtCreateStream(&a));
  CHECK_OK(aclrtCreateStream(&b));
  CHECK_OK(aclsimSetStreamName(a, "decode_stream of worker 0"));
  CHECK_OK(aclsimSetStreamName(b, "a \"quoted\" name"));
  aclrtEvent e = nullptr;
  CHECK_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
  void *h = nullptr, *d = nullptr;
  CHECK_OK(aclrtMallocHost(&h, 4096));
  CHECK_OK(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_OK(aclrtMemcpyAsync(d, 4096, h, 4096, ACL_MEMCPY_HOST_TO_DEVICE, a));
  CHECK_OK(aclrtRecordEvent(e, a));
  CHECK_OK(aclrtStreamWaitEvent(b, e));
  CHECK_OK(aclrtResetEvent(e, b));
  CHECK_OK(aclrtMemcpyAsync(h, 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_HOST, b));
  CHECK_OK(aclrtSynchronizeDevice());
  CHECK_OK(aclrtDestroyEvent(e));
  CHECK_OK(aclrtDestroyStream(a));
  CHECK_OK(aclrtDestroyStream(b));
  CHECK_OK(aclrtFree(d));
  CHECK_OK(aclrtFreeHost(h));
  CHECK_OK(aclrtResetDevice(0));
  CHECK_OK(aclFinalize());
  unsetenv("ACL_SIM_TRACE");
  FILE* f = std::fopen(ACL_SIM_TEST_TRACE, "r");
  CHECK(f != nullptr);
  std::string text;
  char buf[4096];
  for (size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, got);
  std::fclose(f);
  CHECK(text.find("traceEvents") != std::string::npos);
  // Stream tracks carry the names given with aclsimSetStreamName (escaped), with the id.
  CHECK(text.find("\"args\":{\"name\":\"decode_stream of worker 0 (stream ") != std::string::npos);
  CHECK(text.find("\"args\":{\"name\":\"a \\\"quoted\\\" name (stream ") != std::string::npos);
  CHECK(text.find("\"args\":{\"name\":\"stream ") != std::string::npos);  // the default stream
}

// The generated per_stage pattern from several host threads at once: upload on
// one stream, record, wait + reset on a second stream, download; a ring of
// slots reused only after the download of its previous frame completed.
TEST(stress, threads_chain_streams_with_events) {
  CHECK_OK(open_device(0.05));
  aclrtContext ctx = nullptr;
  CHECK_OK(aclrtGetCurrentContext(&ctx));
  constexpr int kThreads = 3, kFrames = 40, kDepth = 2;
  constexpr size_t kBytes = 4096;
  std::atomic<int> bad{0};
  auto worker = [&](int w) {
    aclrtSetCurrentContext(ctx);
    aclrtStream up = nullptr, down = nullptr;
    aclrtCreateStream(&up);
    aclrtCreateStream(&down);
    void *h_in[kDepth], *h_out[kDepth], *d[kDepth];
    aclrtEvent uploaded[kDepth], fetched[kDepth];
    for (int k = 0; k < kDepth; ++k) {
      aclrtMallocHost(&h_in[k], kBytes);
      aclrtMallocHost(&h_out[k], kBytes);
      aclrtMalloc(&d[k], kBytes, ACL_MEM_MALLOC_HUGE_FIRST);
      aclrtCreateEventWithFlag(&uploaded[k], ACL_EVENT_SYNC);
      aclrtCreateEventWithFlag(&fetched[k], ACL_EVENT_SYNC);
    }
    for (int f = 0; f < kFrames; ++f) {
      int k = f % kDepth;
      if (f >= kDepth) {  // slot reuse: the previous frame in it must be checked first
        aclrtSynchronizeEvent(fetched[k]);
        aclrtResetEvent(fetched[k], down);  // classic events: reset before the next record
        if (static_cast<unsigned char*>(h_out[k])[kBytes - 1] != ((f - kDepth) * 7 + w) % 256)
          ++bad;
      }
      std::memset(h_in[k], (f * 7 + w) % 256, kBytes);
      aclrtMemcpyAsync(d[k], kBytes, h_in[k], kBytes, ACL_MEMCPY_HOST_TO_DEVICE, up);
      aclrtRecordEvent(uploaded[k], up);
      aclrtStreamWaitEvent(down, uploaded[k]);
      aclrtResetEvent(uploaded[k], down);
      aclrtMemcpyAsync(h_out[k], kBytes, d[k], kBytes, ACL_MEMCPY_DEVICE_TO_HOST, down);
      aclrtRecordEvent(fetched[k], down);
    }
    aclrtSynchronizeStream(up);
    aclrtSynchronizeStream(down);
    for (int f = kFrames - kDepth; f < kFrames; ++f)
      if (static_cast<unsigned char*>(h_out[f % kDepth])[0] != (f * 7 + w) % 256) ++bad;
    for (int k = 0; k < kDepth; ++k) {
      aclrtDestroyEvent(uploaded[k]);
      aclrtDestroyEvent(fetched[k]);
      aclrtFree(d[k]);
      aclrtFreeHost(h_in[k]);
      aclrtFreeHost(h_out[k]);
    }
    aclrtDestroyStream(up);
    aclrtDestroyStream(down);
  };
  std::vector<std::thread> threads;
  for (int w = 0; w < kThreads; ++w) threads.emplace_back(worker, w);
  for (auto& t : threads) t.join();
  CHECK_EQ(bad.load(), 0);
  aclsimMemStats ms{};
  CHECK_OK(aclsimGetMemStats(&ms));
  CHECK_EQ(ms.deviceAllocs + ms.hostAllocs, 0u);
  aclsimObjectStats os{};
  CHECK_OK(aclsimGetObjectStats(&os));
  CHECK_EQ(os.streams + os.events, 0u);
  CHECK_EQ(os.tasksSubmitted, os.tasksCompleted);
}
