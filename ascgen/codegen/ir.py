"""The Program IR: every decision the generated program embodies, ready to print.

Templates loop over these objects and print their fields; they compute nothing. Index
expressions are C++ (``f`` is the thread's frame number, ``b`` its batch number, ``i`` the
frame's place in its batch); pools and event rings take them modulo their slot count.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PoolIR:
    name: str  # C++ member name, e.g. decode_out
    stage: str
    memory: str  # C++ enumerator: kDvpp | kDevice | kHostPinned
    per: str  # frame | batch
    slot_bytes: int
    slots: str  # C++ expression of the slot count per thread
    why: str  # one-line comment


@dataclass(frozen=True)
class EventRingIR:
    name: str  # e.g. decode_done
    stage: str
    slots: str  # as the pool it guards
    why: str


@dataclass(frozen=True)
class Wait:
    event: str  # event ring
    index: str  # C++ index expression
    guard: str  # C++ condition under which the wait is needed ("" = always)
    why: str


@dataclass(frozen=True)
class Op:
    """One device task of one stage, as submitted for one frame or one batch."""

    stage: str
    kind: str  # h2d | jpeg_decode | vpc_resize | vpc_crop | model | d2h
    line: int  # spec line
    stream: str  # C++ member holding the stream
    when: str  # frame | batch_end
    src: str  # source pool ("" for host data)
    src_index: str
    dst: str  # destination pool
    dst_index: str
    dst_offset: str  # C++ byte offset into the destination slot ("0" or "i * kFrameBytes")
    dst_item: str  # which of the slot's frames ("i" in a batch slot, else "0")
    waits: list[Wait] = field(default_factory=list)
    record: Wait | None = None
    host_wait: str = ""  # C++ statement run on the host before the op ("" = none)
    src_desc: str = ""  # DVPP picture descriptors of the source (VPC reads the decoder's)


@dataclass(frozen=True)
class Constant:
    type: str  # C++ type
    name: str  # kCamelCase
    value: str  # C++ literal


@dataclass(frozen=True)
class StageIR:
    name: str
    kind: str
    line: int
    stream: str  # "" for host stages
    constants: list[Constant]
    per_batch: bool  # works on whole batches (counted in batches)


@dataclass(frozen=True)
class Program:
    name: str
    spec_path: str  # as given to the generator (for comments)
    ascgen_version: str
    regenerate: str  # the command that regenerates the files
    profile: str
    device_id: int
    layout: str  # per_stage | per_thread
    sync_every: int
    batch: int
    default_threads: int
    default_depth: int
    affinity: str
    source_kind: str  # jpeg_files | tensor
    source_path: str  # relative to the spec's folder
    max_input_bytes: int
    input_bytes: int  # size of one generated tensor input (tensor sources)
    all_stages: list[StageIR]  # in spec order
    pools: list[PoolIR]
    events: list[EventRingIR]
    ops: list[Op]
    streams: list[str]
    stream_owner: dict[str, str]  # stream -> the stage named in its errors
    completion_stream: str  # where the batch-completion callback goes (per_stage)
    output_pool: str  # host pool read at completion ("" if nothing returns to the host)
    output_stage: str
    uses_dvpp: bool
    dvpp_owner: str  # stage named in DVPP channel errors
    decode: StageIR | None
    decode_max: str
    resize: StageIR | None
    resize_out_pool: str
    resize_item_offset: str  # C++ byte offset of item `item` in a resize output slot
    resize_items: str  # frames per resize output slot: "kBatch" (zero copy) or "1"
    resize_crop: bool
    frame_bytes: int  # one resized frame inside a batch (0 if none)
    model: StageIR | None
    model_input_pool: str
    model_output_pool: str
    model_fills_input: bool  # the model reads tensors written once at set-up
    model_file: str  # file name of the model (.om, or the simulator's descriptor)
    topk: StageIR | None
    batching: str
    batching_why: str
    roofline_qps: float
    bottleneck: str
    plan_rows: list[str]  # the plan summary, Markdown table rows, for the README
    sim_abi: int
    support_abi: int
