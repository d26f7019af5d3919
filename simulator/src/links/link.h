// Links between devices and hosts (docs/transfers.md): the model of one block
// transfer over HCCS (NPU to NPU inside a super node) or RDMA over RoCE, with
// or without a transit buffer pool, from the profile's links.* figures.
//
// A transfer is a route of hops, each a latency and a bandwidth:
//   - the link itself: links.<link>.latency_us (+ cross_host_latency_us when
//     the other side is on another host) and write_GBps or read_GBps (the side
//     that starts the transfer pushes: write, or pulls: read);
//   - HCCS reaching host memory through the pool: one host-link hop per host
//     side, a copy between host memory and a device pool block over the host's
//     PCIe (links.host.h2d_<op>_GBps, links.host.d2h_GBps);
//   - HCCS reaching host memory without the pool (only when the remote side is a
//     device, which then reads or writes host memory itself): one hop at
//     links.hccs.direct_host_GBps (direct_host_cross_host_GBps across hosts);
//   - RDMA through the pool: one staging copy into or out of the registered
//     pool (links.rdma.pool_GBps).
// The pool pipelines its blocks: a fraction links.<link>.pool_overlap of every
// hop but the slowest hides behind the slowest one, so one block takes
//   sum(latencies) + bytes x (1/B_slowest + (1 - overlap) x sum(1/B_others)).
// HIXL uses its pool only where it is faster (its docs say so of
// device-to-device blocks under 256 KiB): HCCS between local host memory and a
// peer device, which can also go without the pool, takes the faster route.
// Transfers crossing the same link at the same moment share its bottleneck
// bandwidth by processor sharing (Device, Share), as engines share the DDR.
// A transfer engine posts them to the link's queues: the device's task
// scheduler does not dispatch them (its per-transfer cost is in latency_us).
#ifndef ACL_SIM_SRC_LINK_H_
#define ACL_SIM_SRC_LINK_H_

#include <string>
#include <vector>

#include "core/profile.h"

namespace sim {
namespace link {

enum class Place { kHost, kDevice };
enum class Op { kWrite, kRead };

struct Hop {
  std::string what;  // "hccs", "host.h2d", "rdma.pool", ... (docs and errors)
  double latency_us = 0;
  double bandwidth_GBps = 0;
};

struct Route {
  std::string link;
  std::vector<Hop> hops;
  double overlap = 0;
  // Model time of one block of `bytes` alone on the route.
  double block_us(double bytes) const;
  // Its part proportional to the bytes.
  double us_per_byte() const;
  // The slowest hop's bandwidth: what concurrent transfers share.
  double bottleneck_GBps() const;
};

struct Transfer {
  std::string link;  // "hccs" or "rdma"
  Place local = Place::kDevice;
  Place remote = Place::kDevice;
  Op op = Op::kWrite;
  bool pool = false;
  bool cross_host = false;
};

// The route of `t` from the profile; false with `error` set when the profile
// has no such link or the link cannot make that transfer.
bool route(const Profile& p, const Transfer& t, Route* out, std::string* error);

}  // namespace link
}  // namespace sim

#endif  // ACL_SIM_SRC_LINK_H_
