// ascgen_numa.h: the host's NUMA layout for a device (spec host.numa: device | none | <node>).
// A device's threads run on the CPUs of its NUMA node (the node its PCIe link attaches to) and
// the pinned host memory it DMAs from is first touched there. On a real host the layout comes
// from sysfs; on the simulator from the profile's host topology, baked into the program. And a
// warning at start-up when the kernel migrates pages between nodes (kernel.numa_balancing).
// $ASCGEN_HOST_ROOT, when set, is a directory that stands for the host's / (its sys/ and proc/:
// a fake host's layout for a test); the simulator then reads it too, instead of the profile's.
// Emitted verbatim by ascgen.
#ifndef ASCGEN_NUMA_H_
#define ASCGEN_NUMA_H_

#include <dirent.h>
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ascgen_json.h"
#include "ascgen_options.h"

namespace ascgen {

// The highest CPU and NUMA node numbers a layout may name: what a cpu_set_t holds (CPU_SETSIZE,
// 1024 CPUs), and the kernel's largest node count (MAX_NUMNODES, 1 << 10). A layout naming more
// is refused before anything is allocated for it.
constexpr int kMaxCpu = CPU_SETSIZE - 1;
constexpr int kMaxNumaNode = 1023;

// "0-3,8,10-11" (the kernel's cpulist form) -> {0, 1, 2, 3, 8, 10, 11}; {} when malformed or
// when it names a CPU above kMaxCpu (so at most 1024 entries).
std::vector<int> parse_cpulist(const std::string& text);

// The first line of a small text file (sysfs, procfs) within its first 4096 bytes (one read,
// as sysfs serves a file); "" when it cannot be read or is not a regular file.
std::string read_line(const std::string& path);

// The value for `key` in "k=v;k=v" (the form the plan bakes the simulated host into), or "".
std::string baked(const std::string& table, const std::string& key);

// What stands for the host's /: "" (the real one), or $ASCGEN_HOST_ROOT.
inline std::string host_root() {
  const char* root = std::getenv("ASCGEN_HOST_ROOT");
  return root != nullptr ? root : "";
}

// Whether the layout comes from sysfs: always on a real host; on the simulator when
// $ASCGEN_HOST_ROOT names a fake one (else the profile's host, baked into opt.numa_topology).
inline bool layout_from_sysfs() {
#if ASCGEN_BACKEND_SIM
  return !host_root().empty();
#else
  return true;
#endif
}

// A node number as a layout gives it: 0..kMaxNumaNode, -1 (the kernel's "no node") or "" are
// unknown (-1); anything else too, with a warning naming the file and what it holds (never
// read as node 0).
int parse_numa_node(const std::string& text, const std::string& source);

// The NUMA node device `device`'s link attaches to, -1 if unknown. sysfs: the Huawei (vendor
// 0x19e5) processing accelerators (class 0x12) in PCI address order, their numa_node.
int numa_node_of_device(const Options& opt, int32_t device);

// The CPUs of NUMA node `node`: from sysfs, or the simulator's baked topology.
// A cpulist that cannot be read as one (malformed, or naming a CPU above kMaxCpu) is named in
// a warning and taken as no CPUs.
std::vector<int> numa_node_cpus(const Options& opt, int node);

// Where one device's threads and pinned memory go.
struct NumaPlacement {
  int node = -1;            // -1: no NUMA binding
  std::vector<int> cpus;    // the node's CPUs (of the topology)
  std::vector<int> pinned;  // what the threads are pinned to: those of them this machine has,
                            // within --pin's CPUs
};

// host.numa (opt.numa): "none", "device" (the device's node) or a node number. `pin`: the CPUs
// --pin allows (big/little and CPU lists keep working per device, inside the node).
NumaPlacement numa_placement(const Options& opt, int32_t device, const std::vector<int>& pin);

std::string cpulist_text(const std::vector<int>& cpus);

// Adds "numa" to a report: the node, its CPUs and those the threads run on.
void numa_json(Json& j, const NumaPlacement& p);

// kernel.numa_balancing migrates pages between nodes under load: published 20x latency spikes
// on an inference service until threads and memory were bound to the device's node.
void warn_numa_balancing(const char* program);

}  // namespace ascgen

#endif  // ASCGEN_NUMA_H_
