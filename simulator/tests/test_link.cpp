// Links (src/links/link.h): the route of a transfer from the profile, its model time
// alone, and the sharing of one link by transfers crossing it together. Times
// are model time (aclsimNowUs), compared as ratios measured in one run.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "check.h"
#include "core/profile.h"
#include "links/link.h"
#include "session.h"

using namespace testing_sim;

#define CHECK_NEAR(a, b, eps) CHECK(std::fabs((a) - (b)) <= (eps))

namespace {

// Slow links (1-2 GB/s) so that a transfer lasts milliseconds of model time.
const std::map<std::string, std::string> kLinks = {
    {"links.host.h2d_write_GBps", "4"},
    {"links.host.h2d_read_GBps", "4"},
    {"links.host.d2h_GBps", "2"},
    {"links.hccs.latency_us", "10"},
    {"links.hccs.cross_host_latency_us", "5"},
    {"links.hccs.write_GBps", "1"},
    {"links.hccs.read_GBps", "2"},
    {"links.hccs.direct_host_GBps", "1"},
    {"links.hccs.direct_host_cross_host_GBps", "0.5"},
    {"links.hccs.pool_overlap", "0.5"},
    {"links.rdma.latency_us", "20"},
    {"links.rdma.cross_host_latency_us", "5"},
    {"links.rdma.write_GBps", "1"},
    {"links.rdma.read_GBps", "1"},
    {"links.rdma.pool_GBps", "4"},
    {"links.rdma.pool_overlap", "0"},
};

sim::link::Route route_of(const sim::link::Transfer& t, std::string* error,
                          const std::map<std::string, std::string>& links = kLinks) {
  sim::Profile p;
  sim::link::Route r;
  if (!p.load(write_profile("link_route", links), error) || !sim::link::route(p, t, &r, error))
    r.hops.clear();
  return r;
}

aclsimLinkTransfer transfer(const char* link, void* local, void* remote, size_t bytes) {
  aclsimLinkTransfer t{};
  t.link = link;
  t.remoteDevice = 1;
  t.localPlace = ACL_SIM_LINK_DEVICE;
  t.remotePlace = ACL_SIM_LINK_DEVICE;
  t.op = ACL_SIM_LINK_WRITE;
  t.local = local;
  t.remote = remote;
  t.bytes = bytes;
  return t;
}

// Model microseconds from the start of one transfer per entry of `links`, each
// on its own stream, until the last completed; -1 if a call failed. A gate (a
// 4 ms transfer on another stream, whose end every stream waits for) starts
// them together whenever the host got round to submitting them; events around
// each transfer measure the device timeline, not when the host saw it.
double run_together(const std::vector<const char*>& links, size_t bytes) {
  size_t n = links.size();
  std::vector<void*> bufs;
  std::vector<aclrtStream> streams(n + 1);  // the last one: the gate's
  std::vector<aclrtEvent> gate(n), before(n), after(n);
  for (size_t i = 0; i < 2 * n + 2; ++i) {
    void* p = nullptr;
    if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return -1;
    bufs.push_back(p);
  }
  bool ok = true;
  for (auto& s : streams) ok &= aclrtCreateStream(&s) == ACL_SUCCESS;
  for (size_t i = 0; i < n; ++i)
    ok &= aclrtCreateEvent(&gate[i]) == ACL_SUCCESS &&
          aclrtCreateEvent(&before[i]) == ACL_SUCCESS && aclrtCreateEvent(&after[i]) == ACL_SUCCESS;
  aclrtStream gate_stream = streams[n];
  aclsimLinkTransfer g = transfer("rdma", bufs[2 * n], bufs[2 * n + 1], bytes);
  ok = ok && aclsimLinkTransferAsync(&g, gate_stream) == ACL_SUCCESS;
  for (size_t i = 0; i < n && ok; ++i) ok &= aclrtRecordEvent(gate[i], gate_stream) == ACL_SUCCESS;
  for (size_t i = 0; i < n && ok; ++i) {
    aclsimLinkTransfer t = transfer(links[i], bufs[2 * i], bufs[2 * i + 1], bytes);
    ok &= aclrtStreamWaitEvent(streams[i], gate[i]) == ACL_SUCCESS &&
          aclrtResetEvent(gate[i], streams[i]) == ACL_SUCCESS &&
          aclrtRecordEvent(before[i], streams[i]) == ACL_SUCCESS &&
          aclsimLinkTransferAsync(&t, streams[i]) == ACL_SUCCESS &&
          aclrtRecordEvent(after[i], streams[i]) == ACL_SUCCESS;
  }
  double took = 0;
  for (size_t i = 0; i < n && ok; ++i) {
    float ms = 0;
    ok &= aclrtSynchronizeStream(streams[i]) == ACL_SUCCESS &&
          aclrtEventElapsedTime(&ms, before[i], after[i]) == ACL_SUCCESS;
    took = std::max(took, ms * 1e3);
  }
  ok &= aclrtSynchronizeStream(gate_stream) == ACL_SUCCESS;
  for (size_t i = 0; i < n; ++i) {
    aclrtDestroyEvent(gate[i]);
    aclrtDestroyEvent(before[i]);
    aclrtDestroyEvent(after[i]);
  }
  for (auto s : streams) aclrtDestroyStream(s);
  for (void* p : bufs) aclrtFree(p);
  return ok ? took : -1;
}

}  // namespace

TEST(link, route_sums_latencies_and_overlaps_pool_hops) {
  std::string error;
  sim::link::Transfer t;
  t.link = "hccs";
  sim::link::Route d2d = route_of(t, &error);
  CHECK_EQ(d2d.hops.size(), 1u);
  CHECK_NEAR(d2d.block_us(1e6), 10 + 1000, 1e-6);  // 1 MB at 1 GB/s = 1000 us
  t.cross_host = true;
  t.op = sim::link::Op::kRead;
  CHECK_NEAR(route_of(t, &error).block_us(1e6), 15 + 500, 1e-6);
  // Host to host through the pool: h2d hop (4 GB/s), HCCS write (1), d2h hop (2);
  // half of the two faster hops hides behind the HCCS hop.
  t = sim::link::Transfer{};
  t.link = "hccs";
  t.local = t.remote = sim::link::Place::kHost;
  t.pool = true;
  sim::link::Route h2h = route_of(t, &error);
  CHECK_EQ(h2h.hops.size(), 3u);
  CHECK_NEAR(h2h.block_us(1e6), 10 + 1000 + 0.5 * (250 + 500), 1e-6);
  CHECK_NEAR(h2h.bottleneck_GBps(), 1.0, 1e-12);
  // Without the pool a host buffer is reached by the remote device itself.
  t.pool = false;
  t.remote = sim::link::Place::kDevice;
  CHECK_NEAR(route_of(t, &error).block_us(1e6), 10 + 1000 + 1000, 1e-6);
  // RDMA through the pool: a serial staging copy (overlap 0).
  t = sim::link::Transfer{};
  t.link = "rdma";
  t.local = sim::link::Place::kHost;
  t.pool = true;
  CHECK_NEAR(route_of(t, &error).block_us(1e6), 20 + 1000 + 250, 1e-6);
}

TEST(link, pooled_hccs_to_a_peer_device_takes_the_faster_route) {
  // From local host memory to a peer device the route without the pool exists
  // too: HIXL takes the pool only where it is faster.
  std::string error;
  sim::link::Transfer t;
  t.link = "hccs";
  t.local = sim::link::Place::kHost;
  t.pool = true;
  // direct_host 1 GB/s: the pool (h2d hop 4 GB/s, half hidden) is faster.
  sim::link::Route pooled = route_of(t, &error);
  CHECK_EQ(pooled.hops.size(), 2u);
  CHECK(pooled.hops[1].what == "host.h2d");
  CHECK_NEAR(pooled.block_us(1e6), 10 + 1000 + 0.5 * 250, 1e-6);
  // direct_host 16 GB/s: going without the pool is faster, and taken.
  std::map<std::string, std::string> fast = kLinks;
  fast["links.hccs.direct_host_GBps"] = "16";
  sim::link::Route direct = route_of(t, &error, fast);
  CHECK_EQ(direct.hops.size(), 2u);
  CHECK(direct.hops[1].what == "hccs.direct_host");
  CHECK_NEAR(direct.block_us(1e6), 10 + 1000 + 62.5, 1e-6);
  // A peer's host memory has no route without the pool: the pool stays.
  t.remote = sim::link::Place::kHost;
  CHECK_EQ(route_of(t, &error, fast).hops.size(), 3u);
}

TEST(link, unsupported_routes_and_missing_figures_are_errors) {
  std::string error;
  sim::link::Transfer t;
  t.link = "hccs";
  t.remote = sim::link::Place::kHost;  // a remote host over HCCS needs the pool
  CHECK(route_of(t, &error).hops.empty());
  CHECK(error.find("transit buffer pool") != std::string::npos);
  t.remote = sim::link::Place::kDevice;
  t.pool = true;  // the pool serves host memory only
  CHECK(route_of(t, &error).hops.empty());
  CHECK(error.find("serves host memory") != std::string::npos);
  t.link = "nvlink";
  CHECK(route_of(t, &error).hops.empty());
  CHECK(error.find("unknown link") != std::string::npos);
  sim::Profile p;
  CHECK(p.load(default_profile(), &error));
  t.link = "rdma";
  sim::link::Route r;
  if (!p.has("links.rdma.write_GBps")) {
    CHECK(!sim::link::route(p, t, &r, &error));
    CHECK(error.find("links.rdma.") != std::string::npos);
  }
}

TEST(link, transfer_moves_bytes_and_takes_its_model_time) {
  use_profile(write_profile("link_time", kLinks));
  CHECK_EQ(open_device(), ACL_SUCCESS);
  const size_t bytes = 4 << 20;
  std::vector<unsigned char> host(bytes), back(bytes);
  for (size_t i = 0; i < bytes; ++i) host[i] = static_cast<unsigned char>(i * 7 + 1);
  void* dev = nullptr;
  CHECK_EQ(aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  aclsimLinkTransfer t = transfer("hccs", host.data(), dev, bytes);
  t.localPlace = ACL_SIM_LINK_HOST;  // local pageable host memory, remote device
  t.pool = 1;
  // Model time between two events around the transfer on its stream.
  aclrtEvent before = nullptr, after = nullptr;
  CHECK_EQ(aclrtCreateEvent(&before), ACL_SUCCESS);
  CHECK_EQ(aclrtCreateEvent(&after), ACL_SUCCESS);
  // The stream held for 200 ms of model time first: the measured transfer starts when the
  // hold ends, however slowly a loaded (or sanitized) host submits it (the host is not timed).
  CHECK_EQ(aclsimHoldStreamAsync(nullptr, 200000.0), ACL_SUCCESS);
  CHECK_EQ(aclrtRecordEvent(before, nullptr), ACL_SUCCESS);
  CHECK_EQ(aclsimLinkTransferAsync(&t, nullptr), ACL_SUCCESS);
  CHECK_EQ(aclrtRecordEvent(after, nullptr), ACL_SUCCESS);
  CHECK_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  float ms = 0;
  CHECK_EQ(aclrtEventElapsedTime(&ms, before, after), ACL_SUCCESS);
  // 10 us + 4 MiB x (1/1 GB/s + 0.5 / 4 GB/s) = ~4729 us, and the scheduler's
  // dispatch of the second record (and a few us of the device thread's own
  // timing, seen now and then).
  double model = 10 + bytes * (1.0 / 1e3 + 0.5 / 4e3);
  CHECK(ms * 1e3 >= model);
  CHECK(ms * 1e3 < model * 1.01 + 20);
  aclrtDestroyEvent(before);
  aclrtDestroyEvent(after);
  t = transfer("hccs", back.data(), dev, bytes);
  t.localPlace = ACL_SIM_LINK_HOST;
  t.op = ACL_SIM_LINK_READ;
  t.pool = 1;
  CHECK_EQ(aclsimLinkTransferAsync(&t, nullptr), ACL_SUCCESS);
  CHECK_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  CHECK(std::memcmp(host.data(), back.data(), bytes) == 0);
  // A device-side buffer that is host memory is refused.
  t = transfer("hccs", host.data(), dev, bytes);
  CHECK_EQ(aclsimLinkTransferAsync(&t, nullptr), ACL_ERROR_INVALID_PARAM);
  aclrtFree(dev);
}

TEST(link, transfers_share_a_link_not_two) {
  use_profile(write_profile("link_share", kLinks));
  CHECK_EQ(open_device(), ACL_SUCCESS);
  const size_t bytes = 4 << 20;
  double alone = run_together({"hccs"}, bytes);
  double same_link = run_together({"hccs", "hccs"}, bytes);
  double two_links = run_together({"hccs", "rdma"}, bytes);
  CHECK(alone > 0 && same_link > 0 && two_links > 0);
  // Two transfers on one link take twice as long as one; on two links, as long
  // as the slower one alone (both links run at 1 GB/s here).
  CHECK(same_link > 1.8 * alone);
  CHECK(same_link < 2.3 * alone);
  CHECK(two_links < 1.3 * alone);
}
