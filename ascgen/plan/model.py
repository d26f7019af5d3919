"""The Plan: every decision resolved from a Spec and a Profile, before any C++ exists.

It is the input of the code generator (`lower(plan)` needs nothing else) and of
`ascgen plan`: sizes, slot counts, batch levels, batch assembly, event edges, memory
kinds, service times and the roofline, so that templates only print.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, computed_field

from ascgen.deploy.model import DeploymentPlan
from ascgen.dsl.dsl_base import StageBase, Streams
from ascgen.dsl.profile import Profile
from ascgen.plan.geometry import Geometry, ceil_div

MemoryKind = Literal["dvpp", "device", "host_pinned"]
# What a pool is to the stage that owns it: its host staging buffer, its device copy, its
# output, the whole batch it assembles, or a model input filled once at start-up.
Role = Literal["host", "dev", "out", "batch", "in"]


@dataclass(frozen=True)
class PoolRef:
    """A pool named by its owner and its role (never by a name suffix)."""

    stage: str
    role: Role

    @property
    def member(self) -> str:
        """The C++ member that holds the pool."""
        return f"{self.stage}_{self.role}"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class SlotRule(_Frozen):
    """Slots per thread for a window of frames in flight (buffers.depth, or sync_every).

    The generated program applies the same rule to its run-time --depth (ascgen::SlotRule)."""

    frames_per_slot: int  # 1 for frame pools, the batch for batch pools
    min_slots: int = 1  # per_stage batch rings keep two batches, so one fills while one runs
    fixed: int = 0  # a per-stage depth (buffers.per_stage), 0 = none

    def slots(self, window: int) -> int:
        return self.fixed or max(self.min_slots, ceil_div(window, self.frames_per_slot))


class PoolPlan(_Frozen):
    """A ring of equal slots, one ring per thread."""

    ref: PoolRef
    memory: MemoryKind
    per: Literal["frame", "batch"]
    slot_bytes: int  # requested per slot
    alloc_bytes: int  # reserved per slot by the allocator
    rule: SlotRule
    slots: int  # per thread, at the plan's window
    threads: int
    total_bytes: int  # alloc_bytes * slots * threads
    filled_at_setup: bool = False  # a model input written once at start-up

    @computed_field  # type: ignore[prop-decorator]
    @property
    def name(self) -> str:
        return self.ref.member

    @computed_field  # type: ignore[prop-decorator]
    @property
    def stage(self) -> str:
        return self.ref.stage


class StagePlan(_Frozen):
    index: int
    name: str
    kind: str
    stage: SerializeAsAny[StageBase]  # what the user wrote
    line: int  # where the stage is written in the spec
    engine: str  # h2d | d2h | d2d | jpegd | vpc | aicore | host
    input: Geometry | None
    output: Geometry | None
    service_us: float  # one task on one engine unit
    frames_per_task: int  # 1, or the batch for batch-level stages
    capacity_qps: float  # frames/s this stage sustains on its engine at this concurrency
    ddr_bytes_per_task: float  # bytes one task reads and writes in device memory
    batch_level: bool  # works on whole batches (the model, what follows it, what uploads for it)


Flow = Literal["jpeg", "tensor", "image", "boxes", "labels", "video"]


class GraphEdge(_Frozen):
    """One input of a stage: the stage it reads (None: the pipeline's source), on which port
    (`from`, or a kind's own input such as a crop's `image` and `rois`), and what flows."""

    src: str | None
    dst: str
    port: str
    flow: Flow
    written: bool  # named in the spec (`from: detect`), else the stage before it by default


class GraphPlan(_Frozen):
    """The spec as a graph: nodes are its stages (in spec order), edges what each one reads."""

    nodes: list[str]
    edges: list[GraphEdge]

    def inputs_of(self, stage: str) -> list[GraphEdge]:
        return [e for e in self.edges if e.dst == stage]


class Step(_Frozen):
    """One device task per frame (or per batch) in submission order: a stage's own task, or
    the on-device copy that puts a frame into its batch."""

    stage: str
    action: Literal["stage", "assemble"]
    src: PoolRef | None  # None: the host data of the frame
    dst: PoolRef
    batch_level: bool


class EventEdge(_Frozen):
    """A ring of events with exactly one waiter: Record after the recorder's task, Wait then
    Reset on the waiter's stream (or a host sync then Reset on the recorder's stream), so a
    record is never overwritten before its wait (ACL_FACTS 1.4, Events)."""

    name: str  # C++ member
    recorder: int  # index of the step after which it is recorded
    waiter: int  # index of the step before which it is waited on; -1: the submitting host thread
    purpose: Literal["data", "reuse"]  # the waiter reads what the recorder wrote / overwrites what it read
    pool: PoolRef  # the ring of slots it guards: as many events as that pool has slots
    index: Literal["f", "b"]  # the frame or batch number that picks the event
    at_batch_end: bool  # recorded after the last frame of a batch (a frame step feeding a batch step)
    at_batch_start: bool  # waited before the first frame of a batch (a frame step refilling a batch slot)
    why: str


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
    latency_table: dict[int, float]  # by batch, for the simulator's model descriptor
    traffic_bytes: int  # DDR bytes of one execution besides input and output (0: unknown)
    input_bytes: int
    output_bytes: int
    memory_bytes: int
    instances: int
    gears: list[int] = []  # dynamic batch gears (ascending, the last is batch); [] static
    traffic_bytes_per_item: int = 0  # of traffic_bytes: what one item adds (a gear moves fewer)
    hw_gears: list[tuple[int, int]] = []  # dynamic (height, width) gears, ascending; [] none
    gear_ms: dict[int, float] = {}  # an execution's time at each dynamic batch gear
    hw_gear_ms: list[float] = []  # an execution's time at each (height, width) gear
    hw_scaled_output: bool = False  # the output follows the (height, width) gear (its elements' share)
    extra_input_bytes: list[int] = []  # the model's inputs after the data input, in its order
    extra_output_bytes: list[int] = []  # its outputs after the first, in its order


def gear_for(gears: list[int], items: int) -> int:
    """The smallest gear that holds ``items`` (the last gear is the model's batch)."""
    return next((g for g in gears if g >= items), gears[-1])


def hw_share(gears: list[tuple[int, int]], gear: tuple[int, int]) -> float:
    """A gear's time and per-item traffic as a share of the largest gear's: its elements'."""
    most = max(h * w for h, w in gears)
    return gear[0] * gear[1] / most


def default_weight_bytes(memory_bytes: int) -> int:
    """A model's weights where its descriptor gives none: half the instance's memory, on a
    32-byte multiple (simulator/src/model/model_file.cpp)."""
    return memory_bytes // 2 // 32 * 32


class BatchingPlan(_Frozen):
    mode: Literal["none", "in_place", "copy"]
    why: str
    frame_bytes: int
    frame_stage: str = ""  # the stage whose frames make the batch


class SourcePlan(_Frozen):
    kind: str  # jpeg_files | tensor
    path: str
    max_bytes: int
    input_bytes: int  # one input as the first stage reads it (tensor sources: generated)
    format: str = "jpeg"  # requests: jpeg files, or raw tensors of their own width (*.u8)


# Demand within this share above a roofline still holds: the profile's figures are rounded fits (the
# 310's 16.34 us per 1080p tile gives 479.996 frames/s for the documented 480, 16 x 30)
HOLD_TOLERANCE = 1e-3


def holds(demand_fps: float, roofline_fps: float) -> bool:
    return demand_fps <= roofline_fps * (1 + HOLD_TOLERANCE)


class VideoPlan(_Frozen):
    """A video source (ascgen/plan/video.py): its streams, the decoder API and capacity, and the answer to
    "do N streams of WxH@fps hold with this pipeline"."""

    api: Literal["v1", "v2"]  # aclvdec* (the 310), or hi_mpi_vdec_* (where the device has it)
    codec: Literal["h264", "h265"]
    streams: int
    fps: float
    width: int
    height: int
    loop: bool
    pace: Literal["realtime", "asap"]
    late: Literal["drop", "queue"]
    channel_bytes: int  # DVPP memory one channel's decoder holds
    vdec_service_us: float  # one frame on one VDEC core
    vdec_units: int
    vdec_fps: float  # frames/s the decoder holds in all (every core busy)
    demand_fps: float  # streams x fps
    pipeline_fps: float  # the plan's roofline at these streams
    holds: bool  # demand_fps <= pipeline_fps and the plan fits the device
    capacity_streams: int = 0  # the most streams of this spec that hold the fps (0: not worked out)
    capacity_bound: str = ""  # what stops one more stream: the roofline's bottleneck, or a device limit


class ServingPlan(_Frozen):
    """A service (source kind requests): the batcher's configuration and how a batch runs."""

    max_batch: int  # requests per batch at most (1: no batching)
    preferred: list[int]
    max_queue_delay_us: int
    priorities: int
    queue_max_size: int  # 0: unbounded
    queue_timeout_us: int  # 0: none
    queue_action: Literal["reject", "delay"]
    partial: Literal["pad", "gears"]  # a batch of fewer requests: padded to the model's batch, or
    # run at the smallest of the model's dynamic batch gears that holds it
    executed_batch: int  # the model's compiled batch (the largest gear)
    gears: list[int] = []  # the model's dynamic batch gears ([]: padded)
    hw_gears: list[tuple[int, int]] = []  # the model's (height, width) gears: requests of their own width
    hw_gear_ms: list[float] = []  # an execution's time at each of hw_gears (the compiled batch)
    slots_per_thread: int  # batches in flight per host thread (the batcher's executor slots)
    slots: int  # all threads
    default_clients: int  # the closed loop's clients when the program is given no load flag


class FanoutPlan(_Frozen):
    """A graph's per-object part (ascgen/plan/fanout.py): how many objects a frame holds, and what
    they cost per frame on the engines the frame's stages share with them."""

    objects_per_frame: list[int]  # one frame's count per input (one entry: the spec's expect)
    objects_from: str  # where the counts come from, for the plan's reader
    crop_stage: str
    model_stage: str  # the model of objects ("" when the crops go elsewhere)
    model_batch: int  # objects one execution takes at most
    executions_per_frame: float  # of the model of objects (and batch crop calls), averaged over the counts
    engine_us_per_frame: dict[str, float]  # busy time of each engine per frame, frame and object stages
    ddr_bytes_per_frame: float  # device memory traffic per frame, objects included
    max_queue_delay_us: int = 0  # the model of objects' queue delay (the spec's)
    batches_joined: int = 1  # detector batches whose objects share executions at the roofline
    queue_wait_us: float = 0.0  # the longest an object waits in the queue then: what it adds to the latency
    why: str  # how objects are batched (across frames), for the plan's reader


class Plan(_Frozen):
    name: str
    spec_path: str
    profile: str
    device: Profile = Field(exclude=True)  # the profile itself, so nothing reloads it
    device_id: int
    affinity: str
    source: SourcePlan
    threads: int
    streams: Streams
    submit: str  # by_frame | by_step
    sync_every: int
    depth: int
    window: int  # frames in flight per thread that size the pools: depth, or sync_every
    batch: int
    batch_slots: SlotRule  # the ring of batches in flight per thread
    stages: list[StagePlan]
    graph: GraphPlan  # what each stage reads and what flows there
    fanout: FanoutPlan | None = None  # a graph's per-object part (a crop of each detection)
    pools: list[PoolPlan]
    steps: list[Step]
    events: list[EventEdge]
    memory: MemoryPlan
    model: ModelPlan | None
    batching: BatchingPlan
    # a graph: the stages that work on a frame's objects (after the crop), and the model of objects
    object_stages: list[str] = []
    objects_model: ModelPlan | None = None
    executions_per_batch: int = 0  # executions of the model of objects one batch of frames may need, at most
    streams_per_thread: int
    shared_stages: list[str]  # stages one copy of which (stream, resources) serves every thread
    shared_streams: int
    dvpp_channels_per_thread: int
    events_per_thread: int
    device_tasks_per_frame: float
    api_calls_per_frame: float
    bounds: list[Bound]
    roofline_qps: float  # the smallest bound: what the device can really do (memory shared)
    uncontended_qps: float  # the smallest bound of the engines alone, as if memory were free
    ddr_bytes_per_frame: float
    bottleneck: str
    deployment: DeploymentPlan  # the devices it runs on and where scaling over them stops
    serving: ServingPlan | None = None  # source kind requests only
    video: VideoPlan | None = None  # source kind video only
    # stages whose task the host awaits before it submits the frame's next step (a V2 VPC task,
    # hi_mpi_vpc_get_process_result): on no stream, linked by no event (StageKind.host_awaited)
    host_awaited: list[str] = []

    @property
    def deployed_qps(self) -> float:
        """What a run of the whole spec can reach: over several devices the deployment's
        aggregate, else the one device's roofline. Measured totals are held against this."""
        return self.deployment.aggregate_qps if len(self.deployment.device_ids) > 1 else self.roofline_qps

    def items_per_slot(self, stage: str) -> int:
        """What a batch slot of ``stage`` holds: the objects of one execution of the model of objects
        (a stage after the crop), else the frames of a batch."""
        if stage in self.object_stages and self.objects_model is not None:
            return self.objects_model.batch
        return self.batch

    def model_of(self, stage: str) -> ModelPlan | None:
        """The model plan of model stage ``stage``: the model of objects, or the frames'."""
        return self.objects_model if stage in self.object_stages else self.model

    def pool(self, ref: PoolRef) -> PoolPlan:
        return next(p for p in self.pools if p.ref == ref)

    def pools_of(self, stage: str) -> list[PoolPlan]:
        return [p for p in self.pools if p.ref.stage == stage]
