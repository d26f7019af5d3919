// The host link: the PCIe link between the host and the card its devices sit
// on (topology.devices_per_link chips behind one switch, the card's uplink at
// topology.host_link_GBps each way; simulator/README.md). Every H2D and D2H copy
// of those devices crosses it, so copies of devices on one card share it by
// processor sharing as engines share the DDR (docs/shared_bandwidth.md): when
// the copies in flight one way ask for more than the link carries, all of them
// slow down by the same factor, whichever device runs them.
//
// A link's state lives here, under its own mutex, because each device has its
// own thread and timeline: a copy starting or ending on one device changes the
// pace of the other devices' copies. The device whose copy changed the link
// re-times its own copies at once and tells the others (Device::run), which
// re-time theirs from the link's pace. Lock order: a device's mutex, then a
// link's, then the machine's (machine.h); never the other way round. Processes
// that share one simulated machine (ACL_SIM_MACHINE) share its links too.
#ifndef ACL_SIM_SRC_HOST_LINK_H_
#define ACL_SIM_SRC_HOST_LINK_H_

#include <cstdint>
#include <vector>

namespace sim {

class Device;
struct Task;

namespace host_link {

// Links per card: one each way (H2D, D2H), full duplex as PCIe.
constexpr int kDirections = 2;

// The link a device's copy crosses: card (device / devices_per_link) and direction.
int index_of(int32_t device, int devices_per_link, int direction);

// `task` (of `device`, asking for `demand` bytes per model us at full pace)
// starts crossing link `link` of capacity `bytes_per_us`; `others` receives the
// other devices with copies on that link (whose pace changed with it).
void join(int link, double bytes_per_us, Device* device, const Task* task, double demand,
          std::vector<Device*>* others);
// `task` stops crossing `link`; `others` as for join().
void leave(int link, const Task* task, std::vector<Device*>* others);
// Progress per model us of every copy on `link` (<= 1; 1 when not oversubscribed).
double pace(int link);
// Forgets every copy of `device` (a device starting again after an abandoned run).
void forget(const Device* device);
// Another process of the simulated machine changed a link (machine.h): this
// process's devices with copies on links re-time them at the links' pace now.
void changed_elsewhere();

}  // namespace host_link
}  // namespace sim

#endif  // ACL_SIM_SRC_HOST_LINK_H_
