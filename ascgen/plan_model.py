"""The Plan: everything resolved from a Spec and a Profile, before any C++ exists.

It is the input of the code generator and of `ascgen plan`; it makes every sizing and
throughput decision so that templates only print.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from ascgen.geometry import Geometry
from ascgen.spec import Streams

MemoryKind = Literal["dvpp", "device", "host_pinned"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class PoolPlan(_Frozen):
    """A ring of equal slots, one ring per thread."""

    name: str  # e.g. "decode_out"
    stage: str  # the stage that writes it
    memory: MemoryKind
    per: Literal["frame", "batch"]
    slot_bytes: int  # requested per slot
    alloc_bytes: int  # reserved per slot by the allocator
    slots: int  # per thread
    threads: int
    total_bytes: int  # alloc_bytes * slots * threads


class StagePlan(_Frozen):
    name: str
    kind: str
    line: int  # where the stage is written in the spec
    engine: str  # h2d | d2h | d2d | jpegd | vpc | aicore | host
    input: Geometry | None
    output: Geometry | None
    service_us: float  # one task on one engine unit
    frames_per_task: int  # 1, or the batch for batch-level stages
    capacity_qps: float  # frames/s this stage sustains on its engine at this concurrency


class Bound(_Frozen):
    """One limit on throughput; the roofline is the smallest."""

    name: str
    qps: float
    why: str


class MemoryPlan(_Frozen):
    device_bytes: int  # device DDR used: device pools + DVPP pools + model instances
    device_budget_bytes: int
    dvpp_bytes: int
    dvpp_budget_bytes: int
    host_pinned_bytes: int
    model_bytes: int


class ModelPlan(_Frozen):
    stage: str
    path: str
    batch: int
    latency_ms: float
    input_bytes: int
    output_bytes: int
    memory_bytes: int
    instances: int


class BatchingPlan(_Frozen):
    mode: Literal["none", "zero_copy", "copy"]
    why: str
    frame_bytes: int
    slot_offset_alignment: int


class Plan(_Frozen):
    name: str
    spec_path: str
    profile: str
    threads: int
    streams: Streams
    sync_every: int
    depth: int
    batch: int
    stages: list[StagePlan]
    pools: list[PoolPlan]
    memory: MemoryPlan
    model: ModelPlan | None
    batching: BatchingPlan
    streams_per_thread: int
    events_per_thread: int
    device_tasks_per_frame: float
    api_calls_per_frame: float
    bounds: list[Bound]
    roofline_qps: float
    bottleneck: str
