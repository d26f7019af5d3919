"""Checks of a spec's deployment: device ids against the profile's topology, the host's NUMA
node, and deployments this version can run."""

from __future__ import annotations

from ascgen.dsl import spec as dsl
from ascgen.dsl.diagnostics import Diagnostic
from ascgen.dsl.profile import Profile
from ascgen.dsl.yaml_loader import SourceMap


def check_deployment(spec: dsl.Spec, prof: Profile, smap: SourceMap) -> list[Diagnostic]:
    """Device ids against the profile's topology, and deployments this version can run."""
    d = spec.device
    top = prof.topology
    out: list[Diagnostic] = []
    where = f"{prof.name}'s topology ({top.product}) has devices 0..{top.devices - 1}"
    # what the file says, not the model's fields_set: a configured spec (ascgen.dsl.configure)
    # carries every field as if given, and `id: 0` beside `ids` is refused like any other id
    if d.ids is not None and ("device", "id") in smap.keys:
        out.append(smap.error(("device", "id"), "give either 'id' (one device) or 'ids' (several), not both"))
    if d.ids is None and d.id >= top.devices:
        out.append(smap.error(("device", "id"), f"device {d.id} does not exist: {where}"))
    if isinstance(d.ids, list):
        seen: set[int] = set()
        for i, dev in enumerate(d.ids):
            if dev >= top.devices:
                out.append(smap.error(("device", "ids", i), f"device {dev} does not exist: {where}"))
            elif dev in seen:
                out.append(smap.error(("device", "ids", i), f"device {dev} is listed twice"))
            seen.add(dev)
    numa = spec.host.numa
    if isinstance(numa, int) and numa >= len(top.numa_cpus):
        out.append(
            smap.error(
                ("host", "numa"),
                f"NUMA node {numa} does not exist: {prof.name}'s host has nodes 0..{len(top.numa_cpus) - 1}; "
                "use device (each device's own node), none or one of them",
            )
        )
    if d.processes_per_device > 1:
        out.append(
            smap.error(
                ("device", "processes_per_device"),
                f"{d.processes_per_device} processes on one device would share its engines and memory, but the "
                "simulator gives each process a device of its own (the figure would be too high): not "
                "supported yet; use processes_per_device: 1, or more threads",
            )
        )
    return out
