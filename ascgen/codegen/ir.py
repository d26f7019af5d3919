"""The Program IR: every decision the generated program embodies, ready to print.

Templates loop over these objects and print their fields; they compute nothing. Index
expressions are C++ (``f`` is the worker's frame number, ``b`` its batch number, ``i`` the
frame's place in its batch); pools and event rings take them modulo their slot count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ascgen.stages.base import Constant


@dataclass(frozen=True)
class PoolIR:
    member: str  # C++ member name, e.g. decode_out
    stage: str
    spec: str  # the constant that describes it, e.g. decode::kOutPool
    constant: str  # its name inside the stage's namespace, e.g. kOutPool
    memory: str  # C++ enumerator: kDvpp | kDevice | kHostPinned
    slot_bytes: int
    alloc_bytes: int
    rule: str  # C++ initialiser of its SlotRule
    why: str  # one-line comment


@dataclass(frozen=True)
class EventIR:
    member: str  # e.g. decode_to_resize
    stage: str  # named in its errors
    pool: str  # the pool whose slots it counts (one event per slot)
    pool_spec: str
    why: str


@dataclass(frozen=True)
class RingRowIR:
    """A row of the worker's W::kEventRings (ascgen::RingOf): what the start-up check counts and
    setup() creates; a "nullptr" member is a ring the object part creates itself."""

    spec: str  # the PoolSpec constant whose slots it counts (one event a slot)
    stage: str  # C++ of the stage named in its errors
    name: str
    member: str  # C++: &Worker::<member>, or nullptr
    note: str = ""  # a comment line before it


@dataclass(frozen=True)
class StreamIR:
    member: str
    owner: str  # the stage named in its errors
    shared: bool  # one stream for every thread (a member of Shared), else one per Worker
    channel: str  # the DVPP channel of its work ("" if it runs none)
    channel_modes: str  # acldvppSetChannelDescMode bitmask ("0" where the profile has no modes)


@dataclass(frozen=True)
class WaitIR:
    event: str
    index: str  # C++ index expression
    guard: str  # C++ condition under which the wait is needed ("" = always)
    call: str  # EventRing::wait (a stream waits), or host_wait (the submitting thread waits)
    stream: str  # the waiting stream, or the recording stream for a host wait
    why: str


@dataclass(frozen=True)
class RecordIR:
    event: str
    index: str
    guard: str  # "" = always


@dataclass(frozen=True)
class OpIR:
    """One device task of one stage, as submitted for one frame or one batch."""

    stage: str
    function: str  # the Worker's member function that submits it
    template: str  # the kind whose macro prints it (or "assemble")
    note: str  # what it does, after the stage's name in its comment ("" for the stage's own task)
    line: int  # spec line
    stream: str
    channel: str  # the DVPP channel of its stream ("" if none)
    per_batch: bool  # runs once per batch (after the batch's last frame)
    index: str  # "f" or "b": the item it works on
    src: str  # pool member it reads ("" for host data)
    src_index: str
    dst: str  # pool member it writes
    dst_index: str
    prev_stage: str  # the stage whose descriptors it reads (VPC reads the decoder's)
    item: str  # which frame of a destination slot it writes ("i" in a batch slot, else "0")
    flags: dict[str, bool]  # its stage kind's template switches
    owner: str  # where its stage's resources live: "" (the Worker) or "shared->" (one copy for every thread)
    lock: str  # the mutex held while it submits, where threads share its stream ("" = none)
    waits: list[WaitIR] = field(default_factory=list)
    records: list[RecordIR] = field(default_factory=list)
    # a graph's breakdown (templates/runtime/ascgen_breakdown.h): the timing mark before its step
    # (the first step) and the index of its stage's end mark after it (its stage's last step; -1: none)
    mark_start: bool = False
    mark_end: int = -1


@dataclass(frozen=True)
class StageIR:
    name: str
    kind: str
    line: int
    constants: list[Constant]
    pools: list[PoolIR]
    per_batch: bool  # works on whole batches (counted in batches)
    stream: str  # "" for host stages
    channel: str  # "" if it runs no DVPP work
    src: str  # the pool its task reads ("" for host data or host stages)
    dst: str  # the pool its task writes ("" for host stages)
    flags: dict[str, bool]  # its kind's template switches (e.g. has_crop)
    owner: str  # "" (the Worker's) or "shared->" (one copy for every thread)
    per_object: bool = False  # works on a frame's objects: run by the object part (ObjectsIR)


@dataclass(frozen=True)
class ObjectsIR:
    """A graph's object part (templates/runtime/ascgen_objects.h): its configuration and buffers."""

    config: list[tuple[str, str]]  # ascgen::objects::Config fields: (C++ value, field name)
    pools: str  # the pools it uses, as the C++ initialiser of ascgen::objects::Pools
    image_pool: str  # the decoded pictures' pool, whose slots the crops hold
    image: str  # C++ of frame f's decoded picture (its slot)
    image_picture: str  # C++ of its layout (ascgen::Picture) for input `in`
    keep_args: str  # the detections stage's arguments (item, and the model's other outputs)
    boxes: str  # the detections stage
    stream: str = ""  # the worker stream it submits on (per_thread); "" for its own stream and thread
    aicore: str = "{}"  # C++ of its ascgen::objects::AiCore: the stream, lock and instance its executions take
    rings: list[RingRowIR] = field(default_factory=list)  # the event rings it creates itself, to be counted
    shared_model: bool = False  # the model of objects is one instance in SharedResources (objects_model)


@dataclass(frozen=True)
class ServingIR:
    """A service's batcher configuration (source kind requests) for main()."""

    config: list[tuple[str, str]]  # BatcherConfig fields: (field, C++ value)
    default_clients: int
    note: str  # how a partial batch runs, for the comment
    gears: str  # the model's dynamic batch gears as a C++ list ("{}": padded to the batch)
    hw_gears: str = ""  # the model stage whose kHwGears a batch runs at ("": no height/width gears)


@dataclass(frozen=True)
class VideoIR:
    """A video source (source kind video) for main(): its feeders' configuration."""

    config: list[tuple[str, str]]  # video::Config fields: (field, C++ value)
    note: str  # what the streams are, for the comment
    api: str  # v1 (aclvdec*) | v2 (hi_mpi_vdec_*)


@dataclass(frozen=True)
class Program:
    name: str
    spec_path: str  # as given to the generator (for comments)
    header: list[str]  # "generated by, do not edit, regenerate with"
    ascgen_version: str
    regenerate: str
    profile: str
    layout: str  # per_stage | per_thread (for comments)
    batch: int
    layout_driver: str  # the C++ policy that drives it, e.g. ascgen::PerStageLayout
    info: list[tuple[str, str]]  # ProgramInfo fields: (C++ value, field name)
    defaults: list[tuple[str, str]]  # Options defaults: (field, C++ value)
    stages: list[StageIR]  # in spec order
    pools: list[PoolIR]
    events: list[EventIR]
    event_rings: list[RingRowIR]  # W::kEventRings: the events' rings, then the object part's
    streams: list[StreamIR]
    ops: list[OpIR]
    shared_note: str  # what the Shared struct holds, for its comment
    completion_stream: str
    output_pool: str  # host pool read at completion ("" if nothing returns to the host)
    output_item_bytes: str  # C++ constant of one frame's share of it
    status_stage: str  # the stage whose result code each frame reports ("" = none)
    inspect_stage: str  # the stage that checks each input at start-up ("" = none)
    postprocess_stage: str  # the host stage run on each frame's result ("" = none)
    postprocess_args: (
        str  # C++ of its arguments for item i of batch b: the item, then the model's other outputs it reads
    )
    describes: bool  # it says what it found in a frame (<stage>_describe), for --verify's report
    output_offsets: str  # the stage whose kOutputOffsets place the model's outputs in a host slot ("" = one output)
    summary: list[str]  # comment lines at the top of main.cpp
    plan_rows: list[str]  # the plan summary, Markdown table rows, for the README
    batching: str
    batching_why: str
    roofline_qps: float
    bottleneck: str
    default_threads: int
    runtime_abi: int
    paths: dict[str, str]  # for CMake: simulator, runtime (its headers), spec_dir, input, model, sim_model, profile
    files: dict[str, str]  # extra files, e.g. the simulator's profile and model descriptor
    serving: ServingIR | None = None  # source kind requests: the program is a server
    includes: tuple[str, ...] = ()  # the runtime headers main.cpp includes (stages/<kind>.h: its kinds')
    video: VideoIR | None = None  # source kind video: streams through VDEC
    objects: ObjectsIR | None = None  # a graph: its object part
    timed_stages: list[str] = field(default_factory=list)  # a graph: the frame part's stages, timed
