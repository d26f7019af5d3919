"""Deployment over several devices: which devices a spec runs on, its checks against the
profile's topology, and where scaling stops (the per-device roofline against the host links
the devices share).

A card's chips share its host link (the four Ascend 310 of an Atlas 300I sit behind one PCIe
switch): every byte a frame moves between host and device crosses it, so N chips behind one
link reach min(N x one chip's roofline, link bandwidth / bytes per frame).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascgen.deploy.model import DeploymentPlan, LinkPlan
from ascgen.dsl import spec as dsl
from ascgen.dsl.profile import Profile
from ascgen.stages.registry import kind_of

if TYPE_CHECKING:
    from ascgen.plan.model import StagePlan


def device_ids(spec: dsl.Spec, prof: Profile) -> list[int]:
    """The devices the spec runs on: `ids` (or all of the topology), else its one `id`."""
    ids = spec.device.ids
    if ids is None:
        return [spec.device.id]
    if ids == "all":
        return list(range(prof.topology.devices))
    return list(ids)


def host_link_bytes(stages: list[StagePlan], prof: Profile) -> float:
    """Bytes per frame that cross the host link the busier way (PCIe is full duplex: copies to the
    device and copies back share the link's bandwidth each way, not with each other), from each
    copy's service time, the inverse of the copy engines' latency + bytes / bandwidth."""
    per_way: dict[str, float] = {}
    for s in stages:
        if kind_of(s.stage).host_link:
            eng = getattr(prof.engines, s.engine)
            bytes_ = max(0.0, s.service_us - eng.latency_us) * eng.bandwidth_GBps * 1e3 / s.frames_per_task
            per_way[s.engine] = per_way.get(s.engine, 0.0) + bytes_
    return max(per_way.values(), default=0.0)


def numa_topology(prof: Profile, ids: list[int]) -> str:
    """The simulated host's layout as the program reads it (ascgen_numa.h): each device's node,
    each node's CPUs."""
    top = prof.topology
    devices = [f"device{d}={top.numa_node_of(d)}" for d in ids]
    nodes = [f"node{n}={cpus}" for n, cpus in enumerate(top.numa_cpus)]
    return ";".join(devices + nodes)


def plan_deployment(spec: dsl.Spec, prof: Profile, stages: list[StagePlan], per_device_qps: float) -> DeploymentPlan:
    ids = device_ids(spec, prof)
    top = prof.topology
    per_frame = host_link_bytes(stages, prof)
    links = []
    for link, devs in top.links(ids).items():
        cap = top.host_link_GBps * 1e9 / per_frame if per_frame > 0 else float("inf")
        links.append(
            LinkPlan(
                link=link, devices=devs, bandwidth_GBps=top.host_link_GBps,
                demand_GBps=len(devs) * per_device_qps * per_frame / 1e9, qps=cap,
            )
        )  # fmt: skip
    aggregate = sum(min(len(lk.devices) * per_device_qps, lk.qps) for lk in links)
    bound = [lk for lk in links if lk.qps < len(lk.devices) * per_device_qps]
    return DeploymentPlan(
        device_ids=ids, deploy=spec.device.deploy, processes_per_device=spec.device.processes_per_device,
        product=top.product, per_device_qps=per_device_qps, host_link_bytes_per_frame=per_frame, links=links,
        aggregate_qps=aggregate, numa=str(spec.host.numa),
        numa_topology=numa_topology(prof, ids) if len(ids) > 1 or spec.host.numa != "none" else "",
        bottleneck=f"host link {bound[0].link} (devices {bound[0].devices})" if bound else "devices",
    )  # fmt: skip
