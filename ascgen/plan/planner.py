"""Spec + Profile -> Plan: batch levels, geometry, batch assembly, pools and their slot
rules, the data flow and its events, memory, service times and the roofline.

Each stage kind answers for itself (ascgen/stages/); this module only walks the pipeline.
"""

from __future__ import annotations

from ascgen.deploy.plan import device_ids, plan_deployment
from ascgen.dsl import spec as dsl
from ascgen.dsl.profile import Profile
from ascgen.plan import throughput, video
from ascgen.plan.dataflow import event_edges, steps_of
from ascgen.plan.fanout import fan_out
from ascgen.plan.geometry import Geometry, align_up, allocation_bytes, tensor
from ascgen.plan.graph import per_object, resolve
from ascgen.plan.model import (
    BatchingPlan,
    EventEdge,
    GraphPlan,
    MemoryPlan,
    ModelPlan,
    Plan,
    PoolPlan,
    PoolRef,
    SlotRule,
    SourcePlan,
    StagePlan,
    Step,
)
from ascgen.serving.plan import serving_plan
from ascgen.stages.base import Sizes, StageKind
from ascgen.stages.registry import context, kind_of

DEFAULT_MAX_BYTES = 1 << 20


def batch_levels(kinds: list[StageKind], tensor_source: bool) -> list[bool]:
    """Whether each stage works on whole batches: a batch stage (the model) and everything
    after it, and a stage that moves whole batches straight into it (tensor uploads)."""
    out, seen = [], False
    for i, kind in enumerate(kinds):
        seen = seen or kind.takes_batches
        nxt = kinds[i + 1] if i + 1 < len(kinds) else None
        feeds = nxt is not None and nxt.takes_batches and kind.moves_whole_batches and tensor_source
        out.append(seen or feeds)
    return out


def window_of(spec: dsl.Spec) -> int:
    """Frames in flight per thread that size the pools: the depth, or a whole sync window."""
    return spec.buffers.depth if spec.streams == "per_stage" else spec.frames_per_sync


def graph_depth(spec: dsl.Spec) -> dsl.Spec:
    """A per_stage graph holds each decoded picture until its batch's crops were submitted
    (templates/runtime/ascgen_objects.h): where the spec leaves buffers.depth to its default, the
    depth is at least the batch + 1 (a depth written lower is refused: the crop kind's
    check_planned)."""
    if spec.streams != "per_stage" or "depth" in spec.buffers.model_fields_set or spec.buffers.depth > spec.batch:
        return spec
    if not any(kind_of(stage).fans_out for stage in spec.stages):
        return spec
    return spec.model_copy(update={"buffers": spec.buffers.model_copy(update={"depth": spec.batch + 1})})


def sub_buffer_stride(frame_bytes: int, prof: Profile) -> int:
    """Where the next frame may start when frames are carved out of one DVPP block that a model
    reads: m = ALIGN_UP(len, granule) + padding, next start ALIGN_UP(m, dvpp_addr) (ACL_FACTS 4,
    acldvppMalloc sub-allocation)."""
    m = align_up(frame_bytes, prof.align.alloc_granule) + prof.align.alloc_padding
    return align_up(m, prof.align.dvpp_addr)


class _Planner:
    def __init__(self, spec: dsl.Spec, prof: Profile, lines: list[int]) -> None:
        self.spec, self.prof, self.lines = spec, prof, lines
        self.ctxs = [context(spec, prof, i) for i in range(len(spec.stages))]
        self.kinds = [kind_of(s) for s in spec.stages]
        self.levels = batch_levels(self.kinds, spec.source.data_kind == "tensor")
        self.model_index = next((i for i, k in enumerate(self.kinds) if k.takes_batches), None)
        feeder = self.model_index - 1 if self.model_index else None
        self.frame_index = feeder if feeder is not None and self.kinds[feeder].makes_frames else None
        self.frame = (
            self.kinds[self.frame_index].frame_picture(self.ctxs[self.frame_index])
            if self.frame_index is not None
            else None
        )
        self.sizes = self._sizes()
        self.objects = per_object(spec)
        self.executions_per_batch = self._executions_per_batch()

    def _executions_per_batch(self) -> int:
        """A graph's executions of the model of objects for one batch of frames, at most: each frame
        its most objects (the detections stage's max_objects) in executions of the model's batch.
        The object stages' pools hold that many (docs/graphs.md: generating the graph)."""
        if not any(self.objects):
            return 0
        most = max((n for c, k in zip(self.ctxs, self.kinds, strict=True) if (n := k.max_objects(c))), default=1)
        batch = next(
            (k.object_batches(c)[0] for c, k, o in zip(self.ctxs, self.kinds, self.objects, strict=True)
             if o and k.takes_batches),
            1,
        )  # fmt: skip
        return self.spec.batch * -(-most // batch)

    def _sizes(self) -> Sizes:
        spec, at = self.spec, self.model_index
        source = spec.source.bytes or spec.source.max_bytes or DEFAULT_MAX_BYTES
        model_in: int | None = None
        model_out = 0
        if at is not None:
            frame_bytes = self.frame.bytes if self.frame else spec.source.bytes or 0
            model_in = self.kinds[at].batch_input_bytes(self.ctxs[at], frame_bytes)
            model_out = self.kinds[at].output_bytes(spec.stages[at], self.prof, spec.batch)
        return Sizes(source_bytes=source, model_input_bytes=model_in, model_output_bytes=model_out)

    def geometries(self) -> list[tuple[Geometry | None, Geometry | None]]:
        kind = "jpeg" if self.spec.source.data_kind == "jpeg_files" else "tensor"
        current: Geometry | None = tensor(self.sizes.source_bytes, kind)
        out = []
        for ctx, k in zip(self.ctxs, self.kinds, strict=True):
            gin, current = k.geometry(ctx, current, self.sizes)
            out.append((gin, current))
        return out

    def batching(self) -> BatchingPlan:
        spec, prof, frame = self.spec, self.prof, self.frame
        if spec.batch == 1 or frame is None or self.frame_index is None:
            why = (
                "batch 1: each frame is its own model input"
                if spec.batch == 1
                else "no stage makes frames for the model"
            )
            return BatchingPlan(mode="none", why=why, frame_bytes=frame.bytes if frame else 0)
        stage = spec.stages[self.frame_index].name
        stride = sub_buffer_stride(frame.bytes, prof)
        if stride == frame.bytes:
            return BatchingPlan(
                mode="in_place", frame_bytes=frame.bytes, frame_stage=stage,
                why=f"a {frame.bytes}-byte frame is a valid DVPP sub-buffer stride: '{stage}' writes each frame "
                "straight into the model input",
            )  # fmt: skip
        return BatchingPlan(
            mode="copy", frame_bytes=frame.bytes, frame_stage=stage,
            why=f"frames carved out of one DVPP block need a {stride}-byte stride (ALIGN_UP(len, "
            f"{prof.align.alloc_granule}) + {prof.align.alloc_padding}, starts {prof.align.dvpp_addr}-aligned), "
            "but the "
            f"model reads {frame.bytes}-byte frames back to back: '{stage}' writes its own buffer and one on-device "
            "copy per frame assembles the batch",
        )  # fmt: skip

    def slot_rule(self, stage: str, per: str) -> SlotRule:
        spec = self.spec
        fixed = spec.buffers.per_stage.get(stage, 0) if spec.streams == "per_stage" else 0
        if stage in self.object_names():  # one slot per execution of each batch of frames in flight
            batches = self.slot_rule("", "batch").slots(window_of(spec))
            return SlotRule(frames_per_slot=1, fixed=self.executions_per_batch * batches)
        if per == "frame" or spec.batch == 1:
            return SlotRule(frames_per_slot=1, fixed=fixed)
        return SlotRule(frames_per_slot=spec.batch, min_slots=2 if spec.streams == "per_stage" else 1, fixed=fixed)

    def object_names(self) -> set[str]:
        return {s.name for s, o in zip(self.spec.stages, self.objects, strict=True) if o}

    def objects_model(self, geos: list[tuple[Geometry | None, Geometry | None]]) -> ModelPlan | None:
        """The model of objects, at its own batch and gears: one instance every thread shares on the
        AI Core's one stream (per_stage), else its own on each thread."""
        at = next((i for i, k in enumerate(self.kinds) if self.objects[i] and k.takes_batches), None)
        if at is None:
            return None
        gin, gout = geos[at]
        instances = 1 if self.kinds[at].shared_by_threads(self.ctxs[at]) else self.spec.threads
        return self.kinds[at].batch_plan(self.ctxs[at], gin, gout, instances)

    def pools(
        self, geos: list[tuple[Geometry | None, Geometry | None]], copy: bool, threads: int, window: int
    ) -> list[PoolPlan]:
        align = self.prof.align
        out = []
        for ctx, kind, level, (gin, gout) in zip(self.ctxs, self.kinds, self.levels, geos, strict=True):
            for req in kind.pools(ctx, gin, gout, level, copy):
                alloc = allocation_bytes(req.bytes, align.alloc_granule, align.alloc_padding)
                rule = self.slot_rule(ctx.stage.name, req.per)
                slots = rule.slots(window)
                out.append(
                    PoolPlan(
                        ref=PoolRef(ctx.stage.name, req.role), memory=req.memory, per=req.per, slot_bytes=req.bytes,
                        alloc_bytes=alloc, rule=rule, slots=slots, threads=threads,
                        total_bytes=alloc * slots * threads, filled_at_setup=req.reads,
                    )
                )  # fmt: skip
        return out

    def memory(self, pools: list[PoolPlan], threads: int) -> MemoryPlan:
        model_bytes = sum(
            k.model_memory_bytes(c) * (1 if k.shared_by_threads(c) else threads)
            for c, k in zip(self.ctxs, self.kinds, strict=True)
        )
        mem = self.prof.memory
        dvpp = sum(p.total_bytes for p in pools if p.memory == "dvpp")
        dvpp += sum(k.dvpp_fixed_bytes(c) * threads for c, k in zip(self.ctxs, self.kinds, strict=True))
        device = sum(p.total_bytes for p in pools if p.memory == "device") + dvpp + model_bytes
        return MemoryPlan(
            device_bytes=device, device_budget_bytes=mem.device_bytes - mem.reserved_bytes, dvpp_bytes=dvpp,
            dvpp_budget_bytes=mem.dvpp_bytes, model_bytes=model_bytes,
            host_pinned_bytes=sum(p.total_bytes for p in pools if p.memory == "host_pinned"),
        )  # fmt: skip

    def stage_plans(self, geos: list[tuple[Geometry | None, Geometry | None]]) -> list[StagePlan]:
        out = []
        for ctx, kind, level, (gin, gout) in zip(self.ctxs, self.kinds, self.levels, geos, strict=True):
            svc = max(kind.service_us(ctx, gin, gout, self.sizes), 1e-3)
            out.append(throughput.stage_plan(ctx, kind, self.lines[ctx.index], gin, gout, svc, level))
        return out


def make_plan(spec: dsl.Spec, prof: Profile, lines: list[int], spec_path: str) -> Plan:
    spec = graph_depth(spec)
    plan = _plan(spec, prof, lines, spec_path)
    return video.with_capacity(
        plan, spec, prof, lambda s: _plan(s, prof, lines, spec_path), lambda p: limits_missed(p, prof)
    )


def _plan(spec: dsl.Spec, prof: Profile, lines: list[int], spec_path: str) -> Plan:
    p = _Planner(spec, prof, lines)
    geos = p.geometries()
    batching = p.batching()
    copy = batching.mode == "copy"
    window = window_of(spec)
    stages = p.stage_plans(geos)
    graph = resolve(spec)
    pools = p.pools(geos, copy, spec.threads, window)
    steps = steps_of(stages, pools, copy)
    per_stage = spec.streams == "per_stage"
    by_ref = {pool.ref: pool for pool in pools}
    fed = frozenset(s.name for s in stages if kind_of(s.stage).fed_by_source)
    awaited = frozenset(s.name for s, c in zip(stages, p.ctxs, strict=True) if kind_of(s.stage).host_awaited(c))
    events = event_edges(steps, by_ref, fed | awaited) if per_stage else []
    memory = p.memory(pools, spec.threads)
    shared = [s.name for s, c in zip(stages, p.ctxs, strict=True) if kind_of(s.stage).shared_by_threads(c)]
    device_streams = len({s.stage for s in steps} - set(shared) - awaited) if per_stage else 1
    dvpp_streams = len(
        {s.stage for s in steps if kind_of(stages[_index(stages, s.stage)].stage).dvpp and s.stage not in awaited}
    )
    channels = dvpp_streams if per_stage else min(dvpp_streams, 1)
    tasks = throughput.device_tasks_per_frame(spec, steps, events)
    calls = throughput.api_calls_per_frame(spec, steps, events)
    bounds = throughput.bounds(spec, prof, stages, batching, tasks, calls)
    fanout, stages, bounds = fan_out(spec, prof, stages, batching, bounds, spec_path, window)
    worst = min(bounds, key=lambda b: b.qps)
    uncontended = min(b.qps for b in bounds if b.name != throughput.DDR_BOUND)
    model_plan = None
    if p.model_index is not None and not p.objects[p.model_index]:
        at = p.model_index
        gin, gout = geos[at]
        instances = 1 if stages[at].name in shared else spec.threads
        model_plan = p.kinds[at].batch_plan(p.ctxs[at], gin, gout, instances)
    first = by_ref.get(steps[0].dst) if steps else None
    source = spec.source
    affinity = affinity_of(spec)
    return Plan(
        name=spec.name, spec_path=spec_path, profile=prof.name, device=prof, device_id=device_ids(spec, prof)[0],
        affinity=affinity,
        source=SourcePlan(
            kind=source.kind, path=source.files or "", max_bytes=source.max_bytes or source.bytes or DEFAULT_MAX_BYTES,
            input_bytes=first.slot_bytes if first is not None and steps[0].src is None else
            (model_plan.input_bytes if model_plan else 0),
            format=source.format,
        ),
        threads=spec.threads, streams=spec.streams, submit=spec.submit, sync_every=spec.frames_per_sync,
        depth=spec.buffers.depth,
        window=window, batch=spec.batch, batch_slots=p.slot_rule("", "batch"), stages=stages, graph=graph,
        fanout=fanout,
        pools=pools,
        steps=steps, events=events, memory=memory, model=model_plan, batching=batching,
        object_stages=sorted(p.object_names(), key=[s.name for s in spec.stages].index),
        objects_model=p.objects_model(geos), executions_per_batch=p.executions_per_batch,
        streams_per_thread=device_streams, shared_stages=shared,
        shared_streams=len(set(shared) - p.object_names()),  # the model of objects runs on the detector's
        dvpp_channels_per_thread=channels,
        events_per_thread=_events_per_thread(spec, graph, steps, events, by_ref, p.object_names())
        + (AICORE_HANDOFF_EVENTS if fanout and model_plan and model_plan.stage in shared else 0),
        device_tasks_per_frame=tasks,
        api_calls_per_frame=calls, bounds=bounds, roofline_qps=worst.qps, uncontended_qps=uncontended,
        ddr_bytes_per_frame=fanout.ddr_bytes_per_frame if fanout else throughput.ddr_bytes_per_frame(stages, batching),
        bottleneck=worst.name,
        deployment=plan_deployment(spec, prof, stages, worst.qps),
        serving=serving_plan(spec, p.slot_rule("", "batch"), window, model_plan),
        video=video.video_plan(spec, prof, worst.qps),
        host_awaited=sorted(awaited),
    )  # fmt: skip


# A per_stage graph's object part hands each execution to the AI Core's one stream and back: two
# rings of two events (ascgen_objects.h, kAiCoreRing).
AICORE_HANDOFF_EVENTS = 4


def _events_per_thread(
    spec: dsl.Spec,
    graph: GraphPlan,
    steps: list[Step],
    events: list[EventEdge],
    by_ref: dict[PoolRef, PoolPlan],
    objects: set[str],
) -> int:
    """The synchronising events a worker creates: a ring per event edge of its streams, as many
    events as the edge's pool has slots. Edges that reach into a graph's object part are none: the
    host submits that part, on one stream, after the frame part's batch completed (ascgen_objects.h);
    its one ring holds each decoded picture (_held_image_events). Timing-only events are not limited."""

    def touches(e: EventEdge) -> set[str]:
        return {steps[e.recorder].stage} | ({steps[e.waiter].stage} if e.waiter >= 0 else set())

    frame_part = [e for e in events if not touches(e) & objects]
    return sum(by_ref[e.pool].slots for e in frame_part) + _held_image_events(spec, graph, by_ref)


def _held_image_events(spec: dsl.Spec, graph: GraphPlan, by_ref: dict[PoolRef, PoolPlan]) -> int:
    """A per_stage graph's object part holds each decoded picture until its crops were submitted:
    an event per slot of the picture's pool, recorded after the crops on the object stream
    (ascgen_objects.h, crops_to_image). per_thread holds none."""
    if spec.streams != "per_stage":
        return 0
    held = {PoolRef(e.src, "out") for e in graph.edges if e.port == "image" and e.src is not None}
    return sum(by_ref[ref].slots for ref in held if ref in by_ref)


def _index(stages: list[StagePlan], name: str) -> int:
    return next(s.index for s in stages if s.name == name)


def affinity_of(spec: dsl.Spec) -> str:
    a = spec.host.affinity
    return ",".join(str(c) for c in a) if isinstance(a, list) else a


def limits_missed(plan: Plan, prof: Profile) -> list[str]:
    """The device limits ``plan`` exceeds, each with its numbers: memory (DVPP, device), events
    and streams."""
    mem, limits = plan.memory, prof.limits
    missed = []
    if mem.dvpp_bytes > mem.dvpp_budget_bytes:
        missed.append(f"DVPP memory {mem.dvpp_bytes:,} > {mem.dvpp_budget_bytes:,} B")
    if mem.device_bytes > mem.device_budget_bytes:
        missed.append(f"device memory {mem.device_bytes:,} > {mem.device_budget_bytes:,} B")
    events = plan.events_per_thread * plan.threads
    if events > limits.max_events:
        missed.append(f"events {events:,} > {limits.max_events:,}")
    streams = plan.streams_per_thread * plan.threads + plan.shared_streams
    if streams > limits.max_streams:
        missed.append(f"streams {streams:,} > {limits.max_streams:,}")
    return missed


def with_window(spec: dsl.Spec, threads: int, window: int) -> dsl.Spec:
    """``spec`` at ``threads`` threads and ``window`` frames in flight per thread (the depth, or
    sync_every for per_thread streams)."""
    if spec.streams == "per_stage":
        return spec.model_copy(
            update={"threads": threads, "buffers": spec.buffers.model_copy(update={"depth": window})}
        )
    return spec.model_copy(update={"threads": threads, "sync_every": window})


def fits(spec: dsl.Spec, prof: Profile, threads: int, window: int) -> bool:
    """Whether the plan meets every device limit (memory, events, streams) with these threads and
    frames in flight."""
    return not limits_missed(make_plan(with_window(spec, threads, window), prof, [0] * len(spec.stages), ""), prof)


def largest_fitting(spec: dsl.Spec, prof: Profile) -> tuple[int, int]:
    """(the largest window at the spec's threads, the most threads at its window) that meet
    every limit at once; 0 = none."""
    window = window_of(spec)
    best_window = next((w for w in range(window, 0, -1) if fits(spec, prof, spec.threads, w)), 0)
    best_threads = next((t for t in range(spec.threads, 0, -1) if fits(spec, prof, t, window)), 0)
    return best_window, best_threads
