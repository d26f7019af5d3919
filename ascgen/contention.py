"""The contended roofline: the device's memory bandwidth shared by the engines of a plan.

The simulator shares the device's DDR bandwidth among the tasks running at the same moment
(simulator/docs/shared_bandwidth.md): a task asks for its DDR bytes at its engine's pace, and
when the running tasks together ask for more than the bandwidth, all of them slow down by the
same factor. In steady state (every engine busy a constant fraction of the time) that is a
fluid bound: at X frames/s the engines together move X x (DDR bytes per frame), which cannot
exceed the bandwidth, so

    uncontended = min over stages of  concurrency x frames_per_task / service_time
    bytes_per_frame = sum over stages of  ddr_bytes_per_task / frames_per_task
    contended = min(uncontended, bandwidth / bytes_per_frame)

and every engine's service time stretches by uncontended / contended (>= 1). Pure functions:
the planner feeds them its per-stage service times and the bytes below.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StageLoad:
    """One stage as the bound sees it."""

    name: str
    service_us: float  # one task on one unit of its engine, alone
    frames_per_task: int  # 1, or the batch for batch-level stages
    concurrency: int  # units it can use at once (min(units, streams feeding it))
    ddr_bytes_per_task: float  # bytes the task reads and writes in device DDR


@dataclass(frozen=True)
class Roofline:
    qps: float  # contended: what the device can really sustain
    uncontended_qps: float  # the engines alone, as if DDR were free
    bottleneck: str  # the limiting stage's name, or "ddr bandwidth"
    ddr_bytes_per_frame: float
    ddr_GBps: float  # DDR traffic at `qps`
    stretch: float  # every engine's service time grows by this factor (>= 1)


DDR_BOTTLENECK = "ddr bandwidth"


def stage_capacity_qps(s: StageLoad) -> float:
    return s.concurrency * s.frames_per_task * 1e6 / s.service_us


def contended_roofline(stages: list[StageLoad], bandwidth_GBps: float) -> Roofline:
    """The bound above; `stages` must not be empty, times and bandwidth > 0."""
    if not stages:
        raise ValueError("no stages")
    if bandwidth_GBps <= 0 or any(s.service_us <= 0 or s.frames_per_task <= 0 for s in stages):
        raise ValueError("service times, frames per task and bandwidth must be > 0")
    limit = min(stages, key=stage_capacity_qps)
    uncontended = stage_capacity_qps(limit)
    per_frame = sum(s.ddr_bytes_per_task / s.frames_per_task for s in stages)
    ddr_qps = bandwidth_GBps * 1e9 / per_frame if per_frame > 0 else float("inf")
    qps = min(uncontended, ddr_qps)
    return Roofline(
        qps=qps,
        uncontended_qps=uncontended,
        bottleneck=limit.name if uncontended <= ddr_qps else DDR_BOTTLENECK,
        ddr_bytes_per_frame=per_frame,
        ddr_GBps=qps * per_frame / 1e9,
        stretch=uncontended / qps,
    )


# DDR bytes per task, by stage kind, as the simulator counts them.


def copy_bytes(kind: str, nbytes: int) -> float:
    """h2d writes DDR, d2h reads it (the host side is PCIe); d2d reads and writes it."""
    return 2.0 * nbytes if kind == "d2d" else float(nbytes)


def jpegd_bytes(bitstream_bytes: int, decoded_bytes: int) -> float:
    return float(bitstream_bytes + decoded_bytes)


def vpc_bytes(input_picture_bytes: int, output_picture_bytes: int) -> float:
    return float(input_picture_bytes + output_picture_bytes)


def model_bytes(input_bytes: int, output_bytes: int, batch: int, fixed: int, per_item: int) -> float:
    """Inputs + outputs + the reference model's traffic (profile models.<m>.traffic_bytes_*)."""
    return float(input_bytes + output_bytes + fixed + batch * per_item)
