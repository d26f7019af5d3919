// Link routes (link.h).
#include "links/link.h"

#include <algorithm>

namespace sim {
namespace link {

double Route::us_per_byte() const {
  double slowest = 0, sum = 0;
  for (const Hop& h : hops) {
    double per_byte = 1.0 / (h.bandwidth_GBps * 1e3);
    slowest = std::max(slowest, per_byte);
    sum += per_byte;
  }
  return slowest + (1.0 - overlap) * (sum - slowest);
}

double Route::block_us(double bytes) const {
  double latency = 0;
  for (const Hop& h : hops) latency += h.latency_us;
  return latency + bytes * us_per_byte();
}

double Route::bottleneck_GBps() const {
  double b = 0;
  for (const Hop& h : hops)
    if (b == 0 || h.bandwidth_GBps < b) b = h.bandwidth_GBps;
  return b;
}

namespace {

// links.<link>.<key>; false if absent or not > 0 (latencies may be 0).
bool figure(const Profile& p, const std::string& link, const std::string& key, bool zero_ok,
            double* out, std::string* error) {
  std::string full = "links." + link + "." + key;
  double v = p.num(full, -1.0);
  if (!p.has(full) || v < 0 || (v == 0 && !zero_ok)) {
    *error = "the device profile '" + p.path() + "' has no valid '" + full + "'";
    return false;
  }
  *out = v;
  return true;
}

// The route of `t` as its options name it (the pool taken whenever asked for).
bool build(const Profile& p, const Transfer& t, Route* out, std::string* error) {
  if (t.link != "hccs" && t.link != "rdma") {
    *error = "unknown link '" + t.link + "' (hccs or rdma)";
    return false;
  }
  Route r;
  r.link = t.link;
  const char* op = t.op == Op::kWrite ? "write" : "read";
  Hop wire{t.link, 0, 0};
  double cross = 0;
  if (!figure(p, t.link, "latency_us", true, &wire.latency_us, error) ||
      !figure(p, t.link, "cross_host_latency_us", true, &cross, error) ||
      !figure(p, t.link, std::string(op) + "_GBps", false, &wire.bandwidth_GBps, error))
    return false;
  if (t.cross_host) wire.latency_us += cross;
  r.hops.push_back(wire);
  // Where the bytes start and end: a write moves local to remote, a read back.
  Place src = t.op == Op::kWrite ? t.local : t.remote;
  Place dst = t.op == Op::kWrite ? t.remote : t.local;
  bool host_side = src == Place::kHost || dst == Place::kHost;
  if (t.pool && !host_side) {
    *error = "the transit buffer pool serves host memory: a device-to-device transfer has no pool";
    return false;
  }
  if (t.pool && !figure(p, t.link, "pool_overlap", true, &r.overlap, error)) return false;
  if (t.link == "hccs" && host_side) {
    if (t.pool) {
      if (src == Place::kHost) {
        Hop h{"host.h2d", 0, 0};
        if (!figure(p, "host", std::string("h2d_") + op + "_GBps", false, &h.bandwidth_GBps, error))
          return false;
        r.hops.push_back(h);
      }
      if (dst == Place::kHost) {
        Hop h{"host.d2h", 0, 0};
        if (!figure(p, "host", "d2h_GBps", false, &h.bandwidth_GBps, error)) return false;
        r.hops.push_back(h);
      }
    } else if (t.remote == Place::kHost) {
      // HIXL: HCCS cannot reach a remote host's memory without the transit pool.
      *error = "HCCS cannot reach the remote side's host memory without the transit buffer pool";
      return false;
    } else {
      Hop h{"hccs.direct_host", 0, 0};
      if (!figure(p, "hccs", t.cross_host ? "direct_host_cross_host_GBps" : "direct_host_GBps",
                  false, &h.bandwidth_GBps, error))
        return false;
      r.hops.push_back(h);
    }
  }
  if (t.link == "rdma" && t.pool) {
    Hop h{"rdma.pool", 0, 0};
    if (!figure(p, "rdma", "pool_GBps", false, &h.bandwidth_GBps, error)) return false;
    r.hops.push_back(h);
  }
  *out = r;
  return true;
}

}  // namespace

bool route(const Profile& p, const Transfer& t, Route* out, std::string* error) {
  if (!build(p, t, out, error)) return false;
  // HIXL uses its pool only where it is faster: HCCS between local host memory
  // and a peer device can also go without it; the faster route is taken.
  if (t.link == "hccs" && t.pool && t.local == Place::kHost && t.remote == Place::kDevice) {
    Transfer direct = t;
    direct.pool = false;
    Route d;
    std::string ignored;
    if (build(p, direct, &d, &ignored) && d.us_per_byte() < out->us_per_byte()) *out = d;
  }
  return true;
}

}  // namespace link
}  // namespace sim
