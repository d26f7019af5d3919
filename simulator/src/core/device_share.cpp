// The bandwidths a device's running tasks share (docs/shared_bandwidth.md):
// the device's DDR, a link between devices (link.h), and the host link of the
// card the device sits on (host_link.h). Part of Device (device.h).
#include <algorithm>

#include "core/device.h"
#include "links/host_link.h"

namespace sim {

// Processor sharing of the device's DDR (docs/shared_bandwidth.md): every
// running task asks for its traffic at its engine's pace (bw_demand bytes per
// us); when the demands add up to more than the bandwidth, the memory
// controller serves every requester in proportion to what it asks, so all of
// them progress at pace bandwidth / demand < 1. Each change of the running set
// advances every task's remaining engine time at the old pace, then re-times
// its completion (an absolute model time) at the new one.
// A link (link.h) is shared the same way by the transfers crossing it.
// A copy that also crosses a host link (host_link.h) progresses at the slower
// of the two paces.
void Device::reshare(Share& share, double now, const std::shared_ptr<Task>& added) {
  double demand = 0;
  for (const std::shared_ptr<Task>& r : share.running) {
    advance(*r, now);
    demand += r->bw_demand;
  }
  share.pace = demand > share.bytes_per_us ? share.bytes_per_us / demand : 1.0;
  for (const std::shared_ptr<Task>& r : share.running) retime(r, now, r == added);
}

void Device::advance(Task& t, double now) {
  if (now <= t.bw_at) return;  // another device's notice about an earlier moment
  t.bw_left_us = std::max(0.0, t.bw_left_us - (now - t.bw_at) * t.bw_pace);
  t.bw_at = now;
}

double Device::pace_of(const Task& t) const {
  double pace = 1.0;
  if (t.bw_share != nullptr) pace = std::min(pace, t.bw_share->pace);
  if (t.host_link >= 0)
    pace = std::min(pace, host_link_pace_[t.host_link % host_link::kDirections]);
  return pace;
}

void Device::retime(const std::shared_ptr<Task>& t, double now, bool force) {
  double pace = pace_of(*t);
  if (!force && pace == t->bw_pace) return;  // its pending completion still holds
  t->bw_pace = pace;
  push(std::max(now, t->bw_at) + t->bw_left_us / pace, kComplete, t, ++t->bw_version);
}

// Host links (host_link.h): the link's demand is the copy's bytes over its engine
// time at full pace.
void Device::host_link_join(const std::shared_ptr<Task>& t, double now) {
  double bytes = 0;
  for (const ByteRange& r : t->spec.writes) bytes += static_cast<double>(r.size);
  std::vector<Device*> others;
  host_link::join(t->host_link, host_link_bytes_per_us_, this, t.get(), bytes / t->bw_left_us,
                  &others);
  host_link_running_.push_back(t);
  host_link_retime(now);
  for (Device* d : others) notices_.emplace_back(d, now);
}

void Device::host_link_leave(const std::shared_ptr<Task>& t, double now) {
  std::vector<Device*> others;
  host_link::leave(t->host_link, t.get(), &others);
  host_link_running_.erase(std::find(host_link_running_.begin(), host_link_running_.end(), t));
  t->host_link = -1;
  host_link_retime(now);
  for (Device* d : others) notices_.emplace_back(d, now);
}

void Device::host_link_retime(double now) {
  for (int d = 0; d < host_link::kDirections; ++d)
    host_link_pace_[d] = host_link::pace(host_link::index_of(id_, devices_per_link_, d));
  for (const std::shared_ptr<Task>& r : host_link_running_) advance(*r, now);
  for (const std::shared_ptr<Task>& r : host_link_running_) retime(r, now, false);
}

void Device::host_link_changed(double now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!host_link_running_.empty()) host_link_retime(now);
}

// Another device's state is guarded by its own mutex: tell it without holding ours.
void Device::tell_other_devices(std::unique_lock<std::mutex>& lk) {
  std::vector<std::pair<Device*, double>> notices;
  notices.swap(notices_);
  lk.unlock();
  for (const auto& n : notices) n.first->host_link_changed(n.second);
  lk.lock();
}

}  // namespace sim
