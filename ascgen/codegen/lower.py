"""Plan -> Program IR. The Plan holds every decision; this module names them for C++: streams
and channels (through the layout), pools and their constants, event waits and records, and
the hooks the generic driver calls."""

from __future__ import annotations

import os
from dataclasses import replace
from functools import cached_property
from pathlib import Path

from ascgen import __version__
from ascgen.codegen import objects
from ascgen.codegen.ir import (
    EventIR,
    OpIR,
    PoolIR,
    Program,
    RecordIR,
    RingRowIR,
    ServingIR,
    StageIR,
    StreamIR,
    VideoIR,
    WaitIR,
)
from ascgen.codegen.layouts import LAYOUTS, Layout
from ascgen.codegen.model_descriptor import descriptor_text, detector_lines
from ascgen.common.resources import simulator_dir, templates_dir
from ascgen.dsl import profile as profiles
from ascgen.dsl.diagnostics import Diagnostic, Position, SpecError
from ascgen.plan.model import EventEdge, Plan, PoolPlan, Step
from ascgen.stages.registry import kind_of

RUNTIME_ABI_VERSION = 10  # templates/runtime/ascgen_driver.h: ASCGEN_RUNTIME_ABI
RUNTIME_FOLDER = "runtime"  # where a program's CMakeLists finds the runtime headers: its own, or its sibling
# The runtime headers (templates/runtime/) main.cpp includes: a frame program names a layout
# policy and run_main, a server serve_main; the headers they include come with them (render).
FRAME_INCLUDES = ("ascgen_frames.h", "ascgen_layouts.h")
VIDEO_INCLUDES = ("ascgen_video.h",)
VIDEO_MAX_FILE_BYTES = 1 << 30  # a video source's file is read whole at start-up
SERVER_INCLUDES = ("ascgen_serving.h",)
OBJECTS_INCLUDES = ("ascgen_objects.h",)  # a graph's object part
_MEMORY = {"dvpp": "kDvpp", "device": "kDevice", "host_pinned": "kHostPinned"}
_PLACE = {
    "dvpp": "DVPP memory (acldvppMalloc)",
    "device": "device memory (aclrtMalloc)",
    "host_pinned": "pinned host memory (aclrtMallocHost)",
}
_MEM_ATTR = {"ddr": "ACL_DDR_MEM", "hbm": "ACL_HBM_MEM"}


def _pool_ir(p: PoolPlan, media_v2: bool) -> PoolIR:
    constant = "k" + p.ref.role.capitalize() + "Pool"
    r = p.rule
    place = "DVPP memory (hi_mpi_dvpp_malloc)" if media_v2 and p.memory == "dvpp" else _PLACE[p.memory]
    return PoolIR(
        member=p.ref.member, stage=p.ref.stage, spec=f"{p.ref.stage}::{constant}", constant=constant,
        memory=_MEMORY[p.memory], slot_bytes=p.slot_bytes, alloc_bytes=p.alloc_bytes,
        rule=f"{{{r.frames_per_slot}, {r.min_slots}, {r.fixed}}}",
        why=f"{p.slot_bytes:,} bytes per {p.per} in {place}",
    )  # fmt: skip


class _Lowering:
    def __init__(self, plan: Plan, layout: Layout) -> None:
        self.plan, self.layout = plan, layout
        self.pools = {p.ref: p for p in plan.pools}
        self.stages = {s.name: s for s in plan.stages}
        # a graph's object part is submitted by the host (ascgen/codegen/objects.py): no step of it
        # is chained to the frame's, and no event reaches into it
        self.objects = set(plan.object_stages)
        self.events = [e for e in plan.events if not objects.object_event(plan, e)]
        self.flags = {s.name: kind_of(s.stage).template_flags(s, plan) for s in plan.stages}
        # a served batch holds as many requests as the batcher put in it, not the model's batch
        self.batch_end = "i == batch_last" if plan.serving else "i == program::kBatch - 1"

    def fed(self, stage: str) -> bool:
        return kind_of(self.stages[stage].stage).fed_by_source

    def awaited(self, stage: str) -> bool:
        """Its task is awaited by the host (V2 VPC): no stream, no DVPP V1 channel."""
        return stage in self.plan.host_awaited

    def owner(self, stage: str) -> str:
        return "shared->" if stage in self.plan.shared_stages else ""

    def stream(self, step: Step) -> str:
        return self.owner(step.stage) + self.layout.stream_of(step.stage)

    def waits(self, k: int, step: Step) -> list[WaitIR]:
        out = objects.hold_wait(self.plan, step.dst, self.stream(step)) if step.action == "stage" else []
        for e in self.events:
            if e.waiter == k:
                out.append(self._wait(e, "wait", self.stream(step)))
            elif e.waiter < 0 and e.recorder == k:
                out.append(self._wait(e, "host_wait", self.stream(step)))
        return out

    def _wait(self, e: EventEdge, call: str, stream: str) -> WaitIR:
        if e.purpose == "data":
            return WaitIR(e.name, e.index, "", call, stream, e.why)
        slots = f"{e.pool.member}.slots()"
        guard = f"{e.index} >= {slots}"
        if e.at_batch_start:
            guard = f"i == 0 && {guard}"
        return WaitIR(e.name, f"{e.index} - {slots}", guard, call, stream, e.why)

    def records(self, k: int) -> list[RecordIR]:
        return [
            RecordIR(e.name, e.index, self.batch_end if e.at_batch_end else "") for e in self.events if e.recorder == k
        ]

    def ops(self) -> list[OpIR]:
        out: list[OpIR] = []
        previous_stage = ""
        for k, step in enumerate(self.plan.steps):
            if step.stage in self.objects:
                continue
            if self.fed(step.stage):  # sent by the source's driver; the next step reads its pool
                previous_stage = step.stage
                continue
            idx = "b" if step.batch_level else "f"
            src = self.pools.get(step.src) if step.src else None
            dst = self.pools[step.dst]
            template = "assemble" if step.action == "assemble" else self.stages[step.stage].kind
            out.append(
                OpIR(
                    stage=step.stage, function=f"{step.stage}_{'assemble' if step.action == 'assemble' else 'step'}",
                    template=template, line=self.stages[step.stage].line,
                    stream="" if self.awaited(step.stage) else self.stream(step),
                    note=": its frame into the model's batch" if step.action == "assemble" else "",
                    channel="" if self.awaited(step.stage) else self.channel_of_stage(step.stage),
                    per_batch=step.batch_level,
                    index=idx,
                    src=src.ref.member if src else "", src_index="b" if src and src.per == "batch" else "f",
                    dst=dst.ref.member, dst_index="b" if dst.per == "batch" else "f",
                    prev_stage=previous_stage, item="i" if dst.per == "batch" and not step.batch_level else "0",
                    flags=self.flags[step.stage], owner=self.owner(step.stage),
                    lock=f"shared->{step.stage}_mu" if self.owner(step.stage) else "",
                    waits=self.waits(k, step), records=self.records(k),
                )
            )  # fmt: skip
            if step.action == "stage":
                previous_stage = step.stage
        return out

    @cached_property
    def streams(self) -> list[StreamIR]:
        out: dict[str, StreamIR] = {}
        modes: dict[str, list[str]] = {}
        for step in self.plan.steps:
            if self.fed(step.stage) or step.stage in self.objects or self.awaited(step.stage):
                continue  # its work goes to the channel's own streams, the object part's, or none (awaited)
            name = self.stream(step)
            kind = kind_of(self.stages[step.stage].stage)
            if name not in out:
                out[name] = StreamIR(
                    self.layout.stream_of(step.stage), step.stage, bool(self.owner(step.stage)), "", ""
                )
                modes[name] = []
            if kind.dvpp and kind.dvpp_mode not in modes[name]:
                modes[name].append(kind.dvpp_mode)
        with_modes = self.plan.device.features.channel_modes
        return [
            StreamIR(
                s.member,
                s.owner,
                s.shared,
                self.layout.channel_of(s.owner) if modes[name] else "",
                " | ".join(modes[name]) if with_modes and modes[name] else "0",
            )
            for name, s in out.items()
        ]

    def channel_of_stage(self, stage: str) -> str:
        step = next(s for s in self.plan.steps if s.stage == stage)
        stream = self.layout.stream_of(step.stage)
        return next(s.channel for s in self.streams if s.member == stream)

    def stage_ir(self, pools: dict[str, PoolIR]) -> list[StageIR]:
        plan = self.plan
        out = []
        for sp in plan.stages:
            kind = kind_of(sp.stage)
            own = [pools[p.ref.member] for p in plan.pools_of(sp.name)]
            step = next((s for s in plan.steps if s.stage == sp.name and s.action == "stage"), None)
            consts = kind.constants(sp, plan)
            frame_part = kind.device and not kind.fed_by_source and sp.name not in self.objects
            on_stream = frame_part and not self.awaited(sp.name)  # a task the host awaits has none
            out.append(
                StageIR(
                    name=sp.name, kind=sp.kind, line=sp.line, constants=consts, pools=own, per_batch=sp.batch_level,
                    stream=self.owner(sp.name) + self.layout.stream_of(sp.name) if on_stream else "",
                    channel=self.channel_of_stage(sp.name) if kind.dvpp and on_stream else "",
                    src=step.src.member if step and step.src else "", dst=step.dst.member if step else "",
                    flags=self.flags[sp.name], owner=self.owner(sp.name), per_object=sp.name in self.objects,
                )
            )  # fmt: skip
        return out


def _output_item_bytes(stages: list[StageIR], output_stage: str) -> str:
    """C++ for one frame's share of batch b's output: the output stage's constant, or, when the
    model's output follows its height/width gear, what the model stage read for b's gear."""
    if not output_stage:
        return ""
    scaled = next((s for s in stages if s.flags.get("hw_scaled_output")), None)
    if scaled is None:
        return f"{output_stage}::kItemBytes"
    return f"{scaled.name}_item_bytes[static_cast<size_t>(b % {scaled.dst}.slots())]"


def _postprocess_args(plan: Plan, output_stage: str) -> tuple[str, str, str]:
    """(the host stage run on each frame's result, its arguments for item i of batch b, the output
    stage whose constants place the model's other outputs when it reads them): the item, then each
    further model output the stage reads (StageKind.host_outputs), which come back with the first,
    as output_item(b, k, i)."""
    host = next((s for s in plan.stages if kind_of(s.stage).host_postprocess), None)
    if host is None:
        return "", "", ""
    returned = output_stage and plan.model and plan.model.extra_output_bytes
    reads = kind_of(host.stage).host_outputs(host, plan) if returned else 1
    args = ["item", *(f"output_item(b, {k}, i)" for k in range(1, reads))]
    return host.name, ", ".join(args), output_stage if reads > 1 else ""


def _relative(target: Path, start: Path) -> str:
    return Path(os.path.relpath(target.resolve(), start.resolve())).as_posix()


def _from_spec_dir(path: str) -> str:
    """A path the spec gives, as CMake names it: a relative one from the spec's folder."""
    return Path(path).as_posix() if Path(path).is_absolute() else f"${{ASCGEN_SPEC_DIR}}/{path}"


def _info(plan: Plan) -> list[tuple[str, str]]:
    d = plan.device
    r = plan.batch_slots
    model_bytes = plan.model.memory_bytes if plan.model else 0
    source = "ascgen::SourceKind::kTensor" if plan.source.kind == "tensor" else "ascgen::SourceKind::kJpegFiles"
    if plan.source.format == "raw":
        source = "ascgen::SourceKind::kRawFiles"
    if plan.video is not None:
        source = "ascgen::SourceKind::kVideoFiles"
    return [
        ("program::kName", "name"),
        (f'"{plan.profile}"', "profile"),
        (f'"{plan.streams}"', "streams"),
        (str(plan.device_id), "device_id"),
        (_MEM_ATTR[d.features.memory_kind], "memory_attr"),
        ("program::kBatch", "batch"),
        (str(plan.sync_every), "sync_every"),
        (source, "source"),
        (str(VIDEO_MAX_FILE_BYTES if plan.video else plan.source.max_bytes), "max_input_bytes"),
        (str(plan.source.input_bytes), "tensor_bytes"),
        (f"{{{r.frames_per_slot}, {r.min_slots}, {r.fixed}}}", "batch_slots"),
        (str(plan.streams_per_thread), "streams_per_worker"),
        (str(model_bytes), "model_bytes_per_worker"),
        (
            f"{{{d.limits.max_events}, {d.limits.max_streams}, {plan.memory.device_budget_bytes}, "
            f"{plan.memory.dvpp_budget_bytes}}}",
            "budget",
        ),
    ]


def _serving(plan: Plan) -> ServingIR | None:
    s = plan.serving
    if s is None:
        return None
    action = (
        "ascgen::serving::TimeoutAction::kDelay"
        if s.queue_action == "delay"
        else "ascgen::serving::TimeoutAction::kReject"
    )
    policy = f"{{ascgen::serving::QueuePolicy{{{s.queue_max_size}, {s.queue_timeout_us}, false, {action}}}}}"
    config = [
        ("max_batch", str(s.max_batch)),
        ("preferred", "{" + ", ".join(str(p) for p in s.preferred) + "}"),
        ("max_queue_delay_us", str(s.max_queue_delay_us)),
        ("priority_levels", str(s.priorities)),
        ("policies", policy),
    ]
    if s.gears:
        note = f"a batch runs at the smallest of the model's gears {s.gears} that holds it"
    elif s.executed_batch > 1:
        note = f"a batch of fewer than {s.executed_batch} requests runs padded to the model's batch"
    else:
        note = "one request per execution"
    if s.hw_gears:
        note += "; requests of their own width run at the smallest height/width gear holding the batch"
    gears = "{" + ", ".join(str(g) for g in s.gears) + "}"
    hw_gears = plan.model.stage if plan.model and s.hw_gears else ""
    return ServingIR(config=config, default_clients=s.default_clients, note=note, gears=gears, hw_gears=hw_gears)


def _video_includes(plan: Plan) -> tuple[str, ...]:
    """A video program's runtime: V2 (hi_mpi) programs add its channel and fetch thread, and the V2
    VPC where a stage's task is awaited by the host."""
    v2 = plan.video is not None and plan.video.api == "v2"
    return (
        VIDEO_INCLUDES
        + (("ascgen_video_v2.h",) if v2 else ())
        + (("ascgen_vpc_v2.h",) if v2 and plan.host_awaited else ())
    )


def _video(plan: Plan) -> VideoIR | None:
    v = plan.video
    if v is None:
        return None
    config = [
        ("fps", f"{v.fps:g}"),
        ("loop", "true" if v.loop else "false"),
        ("realtime", "true" if v.pace == "realtime" else "false"),
        ("drop_late", "true" if v.late == "drop" else "false"),
        ("codec", f'"{v.codec}"'),
    ]
    note = (
        f"{v.streams} stream(s) of {v.width}x{v.height} {v.codec.upper()} at {v.fps:g} fps, "
        f"{'each frame sent at its presentation time' if v.pace == 'realtime' else 'sent as fast as they decode'}"
        + (f", a late frame {'dropped' if v.late == 'drop' else 'queued'}" if v.pace == "realtime" else "")
    )
    return VideoIR(config=config, note=note, api=v.api)


def _devices_default(plan: Plan) -> list[tuple[str, str]]:
    """Several devices: the program runs them (as processes or threads) unless --devices says otherwise;
    host.numa and the simulated host's layout for it."""
    d = plan.deployment
    out = []
    if len(d.device_ids) > 1:
        out += [("devices", '"' + ",".join(str(i) for i in d.device_ids) + '"'), ("deploy", f'"{d.deploy}"')]
    if d.numa != "none":
        out.append(("numa", f'"{d.numa}"'))
    if d.numa_topology:
        out.append(("numa_topology", f'"{d.numa_topology}"'))
    return out


def _kind_headers(plan: Plan, ops: list[OpIR]) -> tuple[str, ...]:
    """The C++ helpers of the program's stage kinds (and of its ops' templates: assemble) that
    have any, templates/stages/<kind>.h."""
    kinds = dict.fromkeys([s.kind for s in plan.stages] + [op.template for op in ops])
    return tuple(f"stages/{k}.h" for k in kinds if (templates_dir() / "stages" / f"{k}.h").is_file())


def _refuse_unlowered(plan: Plan) -> None:
    """A stage of a kind that is checked and planned but has no template yet: exit 2, naming it."""
    diags = [
        Diagnostic(plan.spec_path, Position(s.line, 1),
                   f"stage '{s.name}': {why} (`ascgen plan` shows what it would do)")
        for s in plan.stages
        if (why := kind_of(s.stage).refusal(s.stage))
    ]  # fmt: skip
    if diags:
        raise SpecError(diags)


def _timed(ops: list[OpIR]) -> tuple[list[OpIR], list[str]]:
    """The frame part's timing marks (templates/runtime/ascgen_breakdown.h): the start before the
    first step on a stream, each stage's end after its last step; the stages so timed, in order (a
    stage with no stream of its own, awaited by the host, is timed with the next)."""
    on_stream = [k for k, op in enumerate(ops) if op.stream]
    stages: list[str] = []
    last = {op.stage: k for k, op in enumerate(ops) if op.stream}
    out = list(ops)
    for k in on_stream:
        op = out[k]
        if last[op.stage] == k:
            stages.append(op.stage)
        out[k] = replace(op, mark_start=k == on_stream[0], mark_end=len(stages) - 1 if last[op.stage] == k else -1)
    return out, stages


def lower(plan: Plan, out_dir: Path, *, shared_runtime: bool = False) -> Program:
    """The program of ``plan`` as it will lie in ``out_dir`` (paths in its CMakeLists are relative).

    Its runtime headers lie in ``out_dir/runtime/`` (a standalone folder), or with
    ``shared_runtime`` in ``out_dir/../runtime/``, shared by the programs beside it."""
    _refuse_unlowered(plan)
    objects.refuse(plan)
    layout = LAYOUTS[(plan.streams, plan.submit)]
    low = _Lowering(plan, layout)
    media_v2 = plan.video is not None and plan.video.api == "v2"  # DVPP memory from hi_mpi_dvpp_malloc
    pools = {p.ref.member: _pool_ir(p, media_v2) for p in plan.pools}
    events = [
        EventIR(e.name, plan.steps[e.recorder].stage, e.pool.member, pools[e.pool.member].spec, e.why)
        for e in low.events
    ]
    ops = low.ops()
    stages = low.stage_ir(pools)
    # A decode-only video program has no device step: a batch completes in the decoder's result
    # (ascgen_video.h), on no stream of its own, and nothing returns to the host.
    last = ops[-1] if ops else None
    output = (
        pools[last.dst]
        if last is not None and pools[last.dst].memory == "kHostPinned" and (plan.batch == 1 or last.per_batch)
        else None
    )
    kinds = {s.name: kind_of(s.stage) for s in plan.stages}
    postprocess_stage, postprocess_args, output_offsets = _postprocess_args(plan, output.stage if output else "")
    spec_path = plan.spec_path
    regenerate = f"ascgen generate{' --shared-runtime' if shared_runtime else ''} {spec_path}"
    header = [f"Generated by ascgen {__version__} from {spec_path}. Do not edit.", f"Regenerate: {regenerate}"]
    model_file = Path(plan.model.path).name if plan.model else ""
    object_model = Path(plan.objects_model.path).name if plan.objects_model else ""
    paths = {
        "simulator": _relative(simulator_dir(), out_dir),
        "runtime": f"../{RUNTIME_FOLDER}" if shared_runtime else RUNTIME_FOLDER,
        "spec_dir": _relative(Path(spec_path).parent, out_dir),
        "input": _from_spec_dir(plan.source.path or "."),
        "model_file": _from_spec_dir(plan.model.path) if plan.model else "",
        "sim_model": f"{model_file}.acl_sim_model" if plan.model else "",
        "objects_model_file": _from_spec_dir(plan.objects_model.path) if plan.objects_model else "",
        "objects_sim_model": f"{object_model}.acl_sim_model" if plan.objects_model else "",
    }
    # The simulated device: a shipped profile once in a shared runtime folder, else the program's own.
    flat = profiles.flatten(plan.device)
    if shared_runtime and profiles.shipped_flat().get(plan.profile) == flat:
        paths["profile"] = f"../{RUNTIME_FOLDER}/sim/{plan.profile}.profile"
        files = {}
    else:
        paths["profile"] = f"sim/{plan.profile}.profile"
        files = {paths["profile"]: flat}
    if plan.model is not None:
        detectors = [keys for s in plan.stages if (keys := kind_of(s.stage).detector(s, plan))]
        extra = [line for keys in detectors[:1] for line in detector_lines(**keys)]  # type: ignore[arg-type]
        files[f"sim/{paths['sim_model']}"] = descriptor_text(plan.model, header) + "".join(f"{x}\n" for x in extra)
    if plan.objects_model is not None:
        files[f"sim/{paths['objects_sim_model']}"] = descriptor_text(plan.objects_model, header)
    objects_part = objects.objects_ir(plan, postprocess_args, {member: p.spec for member, p in pools.items()})
    timed_stages: list[str] = []
    if objects_part is not None:
        ops, timed_stages = _timed(ops)
    names = " -> ".join(s.name for s in plan.stages)
    sync = f", synchronised every {plan.sync_every} frames" if plan.streams == "per_thread" else ""
    return Program(
        name=plan.name, spec_path=spec_path, header=header, ascgen_version=__version__,
        regenerate=regenerate, profile=plan.profile, layout=plan.streams, batch=plan.batch,
        layout_driver=layout.driver, info=_info(plan),
        defaults=[
            ("threads", str(plan.threads)), ("depth", str(plan.depth)), ("pin", f'"{plan.affinity}"'),
            *_devices_default(plan),
        ],
        stages=stages, pools=list(pools.values()), events=events,
        event_rings=[
            *(RingRowIR(e.pool_spec, f"{e.stage}::kName", e.member, f"&Worker::{e.member}") for e in events),
            *(objects_part.rings if objects_part is not None else []),
        ],
        streams=low.streams, ops=ops,
        shared_note=(
            f"{', '.join(plan.shared_stages)} (one instance on one stream)" if plan.shared_stages else "nothing"
        ),
        completion_stream=last.stream if last is not None else "nullptr", output_pool=output.member if output else "",
        output_item_bytes=_output_item_bytes(stages, output.stage if output else ""),
        status_stage=next((n for n, k in kinds.items() if k.reports_status), ""),
        inspect_stage=next((s.name for s in plan.stages if kinds[s.name].inspects_inputs(s, plan)), ""),
        postprocess_stage=postprocess_stage, postprocess_args=postprocess_args, output_offsets=output_offsets,
        describes=bool(postprocess_stage) and kinds[postprocess_stage].describes and objects_part is None,
        summary=[
            f"Pipeline '{plan.name}' on {plan.profile}: {names}",
            f"Streams: {plan.streams}{sync}. Batch: {plan.batch} ({plan.batching.mode}).",
            f"Predicted ceiling: {plan.roofline_qps:.1f} frames/s, bottleneck {plan.bottleneck}.",
        ],
        plan_rows=[
            f"| {s.name} | {s.kind} | {s.engine} | {s.service_us:,.0f} us | {s.capacity_qps:,.0f} |"
            for s in plan.stages
        ],
        batching=plan.batching.mode, batching_why=plan.batching.why, roofline_qps=round(plan.roofline_qps, 1),
        bottleneck=plan.bottleneck, default_threads=plan.threads,
        runtime_abi=RUNTIME_ABI_VERSION, paths=paths, files=files, serving=_serving(plan),
        includes=(SERVER_INCLUDES if plan.serving else _video_includes(plan) if plan.video else FRAME_INCLUDES)
        + (OBJECTS_INCLUDES if objects_part else ()) + _kind_headers(plan, ops),
        video=_video(plan), objects=objects_part, timed_stages=timed_stages,
    )  # fmt: skip
