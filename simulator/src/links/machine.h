// One simulated machine shared by several processes (ACL_SIM_MACHINE=<name>).
//
// On a real host, every process that drives a device of a card crosses that
// card's PCIe uplink (host_link.h): four processes, one per chip of an Atlas
// 300I, share one link as four threads of one process do. Each process
// simulates its own devices, so the links' state lives in a POSIX shared
// memory segment named after ACL_SIM_MACHINE, which every process of one
// simulated machine sets to the same name (the generated program's
// `deploy: processes` parent does so before it starts its children). Without
// the variable nothing is shared across processes, as before.
//
// The segment holds, per link, the copies crossing it (process, copy, demand)
// and the pace they progress at, under a process-shared robust mutex; a
// process that dies leaves entries that the next change drops (its pid is
// gone) and a mutex that the next locker makes consistent. Each change bumps
// a generation counter; a watcher thread per process waits on it (a futex)
// and tells the process's devices to re-time their copies at the new pace.
// The last process to leave removes the segment; so does whoever named the
// machine once its processes ended (aclsimMachineRemove), should one have died.
#ifndef ACL_SIM_SRC_MACHINE_H_
#define ACL_SIM_SRC_MACHINE_H_

#include <cstdint>
#include <functional>
#include <string>

namespace sim {
namespace machine {

// At aclInit: maps the segment of ACL_SIM_MACHINE and starts the watcher,
// which calls `changed` after another process changed a link. False, with
// `error` set, when the variable is set but the segment cannot be used; true
// (and nothing shared) when it is unset.
bool attach(std::function<void()> changed, std::string* error);
// At aclFinalize: stops the watcher, forgets this process's copies, leaves.
void detach();
// Whether links are shared with other processes.
bool shared();

// This process's copy `key` starts crossing `link` (of capacity `bytes_per_us`)
// asking `demand` bytes per model us: the link's new pace.
double join(int link, double bytes_per_us, uint64_t key, double demand);
// Copy `key` stops crossing `link`: the link's new pace.
double leave(int link, uint64_t key);
// The pace of `link` now.
double pace(int link);
// Removes machine `name`'s segment (aclsimMachineRemove); false for a bad name.
bool remove(const std::string& name);

}  // namespace machine
}  // namespace sim

#endif  // ACL_SIM_SRC_MACHINE_H_
