// Host links shared by the devices of one card (host_link.h).
#include "links/host_link.h"

#include <algorithm>
#include <mutex>

#include "core/clock.h"
#include "core/device.h"
#include "links/machine.h"

namespace sim {
namespace host_link {
namespace {

struct Entry {
  Device* device;
  const Task* task;
  double demand;  // bytes per model us at full pace
};

struct Link {
  std::mutex mu;
  double bytes_per_us = 0;
  double pace = 1;
  std::vector<Entry> running;

  // Called with mu held: the pace after a change, and the other devices on the link.
  void reshare(const Device* changed, std::vector<Device*>* others) {
    double demand = 0;
    for (const Entry& e : running) demand += e.demand;
    pace = bytes_per_us > 0 && demand > bytes_per_us ? bytes_per_us / demand : 1.0;
    for (const Entry& e : running)
      if (e.device != changed &&
          std::find(others->begin(), others->end(), e.device) == others->end())
        others->push_back(e.device);
  }
};

// One card per kMaxDevices at most (devices_per_link >= 1).
Link g_links[kMaxDevices * kDirections];

Link* at(int link) {
  return link >= 0 && link < kMaxDevices * kDirections ? &g_links[link] : nullptr;
}

uint64_t key_of(const Task* task) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(task));
}

}  // namespace

int index_of(int32_t device, int devices_per_link, int direction) {
  return (device / std::max(devices_per_link, 1)) * kDirections + direction;
}

void join(int link, double bytes_per_us, Device* device, const Task* task, double demand,
          std::vector<Device*>* others) {
  Link* l = at(link);
  if (l == nullptr) return;
  std::lock_guard<std::mutex> lock(l->mu);
  l->bytes_per_us = bytes_per_us;
  l->running.push_back(Entry{device, task, demand});
  l->reshare(device, others);
  // Other processes of the machine hear of it through their watchers (machine.h).
  if (machine::shared()) l->pace = machine::join(link, bytes_per_us, key_of(task), demand);
}

void leave(int link, const Task* task, std::vector<Device*>* others) {
  Link* l = at(link);
  if (l == nullptr) return;
  std::lock_guard<std::mutex> lock(l->mu);
  auto it = std::find_if(l->running.begin(), l->running.end(),
                         [&](const Entry& e) { return e.task == task; });
  if (it == l->running.end()) return;
  Device* device = it->device;
  l->running.erase(it);
  l->reshare(device, others);
  if (machine::shared()) l->pace = machine::leave(link, key_of(task));
}

double pace(int link) {
  Link* l = at(link);
  if (l == nullptr) return 1.0;
  std::lock_guard<std::mutex> lock(l->mu);
  return machine::shared() ? machine::pace(link) : l->pace;
}

void changed_elsewhere() {
  std::vector<Device*> devices;
  for (Link& l : g_links) {
    std::lock_guard<std::mutex> lock(l.mu);
    for (const Entry& e : l.running)
      if (std::find(devices.begin(), devices.end(), e.device) == devices.end())
        devices.push_back(e.device);
  }
  const double now = model_clock().now_us();
  for (Device* d : devices) d->host_link_changed(now);
}

void forget(const Device* device) {
  for (Link& l : g_links) {
    std::lock_guard<std::mutex> lock(l.mu);
    for (const Entry& e : l.running)
      if (e.device == device && machine::shared())
        machine::leave(static_cast<int>(&l - g_links), key_of(e.task));
    l.running.erase(std::remove_if(l.running.begin(), l.running.end(),
                                   [&](const Entry& e) { return e.device == device; }),
                    l.running.end());
    std::vector<Device*> ignored;
    l.reshare(device, &ignored);
  }
}

}  // namespace host_link
}  // namespace sim
