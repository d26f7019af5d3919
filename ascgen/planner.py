"""Spec + Profile -> Plan: buffer geometry, pools, memory, per-stage service times, roofline."""

from __future__ import annotations

from dataclasses import dataclass

from ascgen import spec as dsl
from ascgen.checks import DEVICE_KINDS, stage_alignment
from ascgen.geometry import Geometry, allocation_bytes, ceil_div, tensor, yuv420sp
from ascgen.plan_model import (
    BatchingPlan,
    MemoryPlan,
    ModelPlan,
    Plan,
    PoolPlan,
)
from ascgen.profile import Profile

DEFAULT_MAX_BYTES = 1 << 20
HOST_SCAN_GBPS = 1.0  # top-k and other host postprocess: bytes of scores scanned per second
DEFAULT_MODEL_MEMORY = 128 << 20


def model_latency_ms(stage: dsl.ModelStage, prof: Profile, batch: int) -> float:
    """Latency of one execution at ``batch``: the stage's own figure, else the profile's table,
    interpolated linearly between measured batch sizes (per item beyond the ends)."""
    if isinstance(stage.latency_ms, int | float):
        return float(stage.latency_ms)
    table = stage.latency_ms if isinstance(stage.latency_ms, dict) else prof.models[str(stage.reference)].latency_ms
    if batch in table:
        return table[batch]
    points = sorted(table)
    if batch < points[0]:
        return table[points[0]] * batch / points[0]
    if batch > points[-1]:
        return table[points[-1]] * batch / points[-1]
    lo = max(p for p in points if p < batch)
    hi = min(p for p in points if p > batch)
    return table[lo] + (table[hi] - table[lo]) * (batch - lo) / (hi - lo)


@dataclass
class _Ctx:
    spec: dsl.Spec
    prof: Profile
    lines: list[int]

    @property
    def batch(self) -> int:
        return self.spec.batch

    def slots(self, stage: str, per: str, window: int) -> int:
        """Ring size per thread: a frame pool holds `window` frames, a batch pool whole batches."""
        if self.spec.streams == "per_stage":
            window = self.spec.buffers.per_stage.get(stage, window)
        if per == "frame" or self.batch == 1:
            return window
        if self.spec.streams == "per_thread":
            return ceil_div(window, self.batch)
        return max(2, ceil_div(window, self.batch))


def _geometries(ctx: _Ctx) -> dict[str, tuple[Geometry | None, Geometry | None]]:
    """Input and output geometry of every stage (one frame, or one batch for batch stages)."""
    spec, prof = ctx.spec, ctx.prof
    src_bytes = spec.source.bytes or spec.source.max_bytes or DEFAULT_MAX_BYTES
    current: Geometry | None = tensor(src_bytes, "jpeg" if spec.source.kind == "jpeg_files" else "tensor")
    out: dict[str, tuple[Geometry | None, Geometry | None]] = {}
    for stage in spec.stages:
        before = current
        if isinstance(stage, dsl.H2dStage):
            nbytes = stage.bytes or (before.bytes if before else src_bytes)
            if spec.source.kind == "tensor" and _feeds_model(spec, stage):
                nbytes = stage.bytes or _model_input_bytes(ctx) or nbytes
            current = tensor(nbytes, before.kind if before else "tensor")
        elif isinstance(stage, dsl.JpegDecodeStage):
            aw, ah = stage_alignment(stage, prof)
            current = yuv420sp(stage.format, stage.max.width, stage.max.height, aw, ah)
        elif isinstance(stage, dsl.VpcResizeStage):
            aw, ah = stage_alignment(stage, prof)
            current = yuv420sp(stage.format, stage.out.width, stage.out.height, aw, ah)
        elif isinstance(stage, dsl.ModelStage):
            before = tensor(_model_input_bytes(ctx) or 0, "tensor") if before else before
            current = tensor(_model_output_bytes(ctx, stage))
        elif isinstance(stage, dsl.D2hStage):
            current = tensor(before.bytes if before else 0)
        else:
            current = None
        out[stage.name] = (before, current)
    return out


def _feeds_model(spec: dsl.Spec, stage: dsl.Stage) -> bool:
    i = spec.stages.index(stage)
    return i + 1 < len(spec.stages) and spec.stages[i + 1].kind == "model"


def _frame_geometry(ctx: _Ctx) -> Geometry | None:
    for stage in reversed(ctx.spec.stages):
        if isinstance(stage, dsl.VpcResizeStage):
            aw, ah = stage_alignment(stage, ctx.prof)
            return yuv420sp(stage.format, stage.out.width, stage.out.height, aw, ah)
    return None


def _model_stage(spec: dsl.Spec) -> dsl.ModelStage | None:
    return next((s for s in spec.stages if isinstance(s, dsl.ModelStage)), None)


def _model_input_bytes(ctx: _Ctx) -> int | None:
    model = _model_stage(ctx.spec)
    if model is None:
        return None
    if model.input_bytes is not None:
        return model.input_bytes
    frame = _frame_geometry(ctx)
    if frame is not None:
        return frame.bytes * ctx.batch
    return (ctx.spec.source.bytes or 0) * ctx.batch


def _model_output_bytes(ctx: _Ctx, model: dsl.ModelStage) -> int:
    if model.output_bytes is not None:
        return model.output_bytes
    if model.reference is not None and model.reference in ctx.prof.models:
        return ctx.prof.models[model.reference].output_bytes_per_item * ctx.batch
    return 4000 * ctx.batch


def _batching(ctx: _Ctx) -> BatchingPlan:
    frame = _frame_geometry(ctx)
    align = ctx.prof.align.dvpp_addr
    if ctx.batch == 1 or frame is None or _model_stage(ctx.spec) is None:
        why = "batch 1: each frame is its own model input" if ctx.batch == 1 else "no VPC stage feeds the model"
        return BatchingPlan(mode="none", why=why, frame_bytes=frame.bytes if frame else 0, slot_offset_alignment=align)
    if frame.bytes % align == 0:
        return BatchingPlan(
            mode="zero_copy",
            frame_bytes=frame.bytes,
            slot_offset_alignment=align,
            why=f"frame {frame.bytes} B is a multiple of the {align}-byte DVPP address "
            "alignment: VPC writes each frame straight into the model input",
        )
    return BatchingPlan(
        mode="copy",
        frame_bytes=frame.bytes,
        slot_offset_alignment=align,
        why=f"frame {frame.bytes} B is not a multiple of {align}: VPC writes its own "
        f"buffer and one {ctx.prof.align.memcpy_async_addr}-byte aligned on-device copy per frame assembles the batch",
    )


def _pools(
    ctx: _Ctx,
    geos: dict[str, tuple[Geometry | None, Geometry | None]],
    batching: BatchingPlan,
    threads: int,
    window: int,
) -> list[PoolPlan]:
    spec, prof = ctx.spec, ctx.prof
    out: list[PoolPlan] = []

    def add(name: str, stage: str, memory: str, per: str, nbytes: int) -> None:
        alloc = allocation_bytes(nbytes, prof.align.alloc_granule, prof.align.alloc_padding)
        slots = ctx.slots(stage, per, window)
        out.append(
            PoolPlan(
                name=name,
                stage=stage,
                memory=memory,
                per=per,
                slot_bytes=nbytes,
                alloc_bytes=alloc,
                slots=slots,
                threads=threads,
                total_bytes=alloc * slots * threads,
            )
        )

    kinds = [s.kind for s in spec.stages]
    for i, stage in enumerate(spec.stages):
        _, geo = geos[stage.name]
        nxt = kinds[i + 1] if i + 1 < len(kinds) else None
        if stage.kind == "h2d" and geo is not None:
            per = "batch" if nxt == "model" else "frame"
            add(f"{stage.name}_host", stage.name, "host_pinned", per, geo.bytes)
            add(f"{stage.name}_dev", stage.name, "dvpp" if nxt == "jpeg_decode" else "device", per, geo.bytes)
        elif stage.kind == "jpeg_decode" and geo is not None:
            add(f"{stage.name}_out", stage.name, "dvpp", "frame", geo.bytes)
        elif stage.kind == "vpc_resize" and geo is not None:
            if nxt == "model" and batching.mode != "copy":
                add(f"{stage.name}_batch", stage.name, "dvpp", "batch", geo.bytes * ctx.batch)
            else:
                add(f"{stage.name}_out", stage.name, "dvpp", "frame", geo.bytes)
                if nxt == "model":
                    add(f"{stage.name}_batch", stage.name, "device", "batch", geo.bytes * ctx.batch)
        elif stage.kind == "model" and geo is not None:
            if i == 0:  # the model reads a tensor filled once at start-up
                add(f"{stage.name}_in", stage.name, "device", "batch", _model_input_bytes(ctx) or 1)
            add(f"{stage.name}_out", stage.name, "device", "batch", geo.bytes)
        elif stage.kind == "d2h" and geo is not None:
            add(
                f"{stage.name}_host", stage.name, "host_pinned", "batch" if batch_level(spec, i) else "frame", geo.bytes
            )
    return out


def batch_level(spec: dsl.Spec, index: int) -> bool:
    """Whether stage ``index`` works on whole batches (the model and everything after it)."""
    kinds = [s.kind for s in spec.stages]
    return "model" in kinds[: index + 1] or (
        index + 1 < len(kinds)
        and kinds[index + 1] == "model"
        and kinds[index] == "h2d"
        and spec.source.kind == "tensor"
    )


def memory_of(ctx: _Ctx, pools: list[PoolPlan], threads: int) -> MemoryPlan:
    model = _model_stage(ctx.spec)
    per_instance = 0
    if model is not None:
        per_instance = model.memory_bytes or (
            ctx.prof.models[model.reference].memory_bytes
            if model.reference in ctx.prof.models
            else DEFAULT_MODEL_MEMORY
        )
    model_bytes = per_instance * threads
    dvpp = sum(p.total_bytes for p in pools if p.memory == "dvpp")
    device = sum(p.total_bytes for p in pools if p.memory == "device") + dvpp + model_bytes
    return MemoryPlan(
        device_bytes=device,
        device_budget_bytes=ctx.prof.memory.device_bytes - ctx.prof.memory.reserved_bytes,
        dvpp_bytes=dvpp,
        dvpp_budget_bytes=ctx.prof.memory.dvpp_bytes,
        host_pinned_bytes=sum(p.total_bytes for p in pools if p.memory == "host_pinned"),
        model_bytes=model_bytes,
    )


def api_calls_per_frame(spec: dsl.Spec, batching: BatchingPlan) -> float:
    """Host API calls one thread makes per frame (each costs the profile's submit time)."""
    calls = 0.0
    for i, stage in enumerate(spec.stages):
        per = 1.0 / spec.batch if batch_level(spec, i) else 1.0
        if stage.kind in DEVICE_KINDS:
            calls += per * (3.0 if spec.streams == "per_stage" else 1.0)  # op (+ wait + record)
    if batching.mode == "copy":
        calls += 1.0
    calls += 1.0 / spec.frames_per_sync if spec.streams == "per_thread" else 1.0 / spec.batch
    return calls


def _window(spec: dsl.Spec) -> int:
    return spec.buffers.depth if spec.streams == "per_stage" else spec.frames_per_sync


def make_plan(spec: dsl.Spec, prof: Profile, lines: list[int], spec_path: str) -> Plan:
    from ascgen import throughput  # local: throughput imports nothing from here

    ctx = _Ctx(spec, prof, lines)
    geos = _geometries(ctx)
    batching = _batching(ctx)
    model = _model_stage(spec)
    model_ms = model_latency_ms(model, prof, spec.batch) if model else 0.0
    levels = [batch_level(spec, i) for i in range(len(spec.stages))]
    stages = throughput.stage_plans(spec, prof, lines, geos, model_ms, levels)
    pools = _pools(ctx, geos, batching, spec.threads, _window(spec))
    memory = memory_of(ctx, pools, spec.threads)
    tasks = throughput.device_tasks_per_frame(spec, stages, batching)
    calls = api_calls_per_frame(spec, batching)
    bounds = throughput.bounds(spec, prof, stages, batching, tasks, calls)
    worst = min(bounds, key=lambda b: b.qps)
    device_stages = [s for s in spec.stages if s.kind in DEVICE_KINDS]
    per_stage = spec.streams == "per_stage"
    model_plan = None
    if model is not None:
        gin, gout = geos[model.name]
        model_plan = ModelPlan(
            stage=model.name,
            path=model.path,
            batch=spec.batch,
            latency_ms=model_ms,
            input_bytes=gin.bytes if gin else 0,
            output_bytes=gout.bytes if gout else 0,
            memory_bytes=memory.model_bytes // spec.threads,
            instances=spec.threads,
        )
    return Plan(
        name=spec.name,
        spec_path=spec_path,
        profile=prof.name,
        threads=spec.threads,
        streams=spec.streams,
        sync_every=spec.frames_per_sync,
        depth=spec.buffers.depth,
        batch=spec.batch,
        stages=stages,
        pools=pools,
        memory=memory,
        model=model_plan,
        batching=batching,
        streams_per_thread=len(device_stages) if per_stage else 1,
        events_per_thread=2 * sum(p.slots for p in pools if p.memory != "host_pinned") if per_stage else 0,
        device_tasks_per_frame=tasks,
        api_calls_per_frame=calls,
        bounds=bounds,
        roofline_qps=worst.qps,
        bottleneck=worst.name,
    )


def fits(spec: dsl.Spec, prof: Profile, threads: int, window: int) -> bool:
    """Whether the plan's memory fits the budgets with these threads and frames in flight."""
    ctx = _Ctx(spec, prof, [])
    pools = _pools(ctx, _geometries(ctx), _batching(ctx), threads, window)
    mem = memory_of(ctx, pools, threads)
    return mem.dvpp_bytes <= mem.dvpp_budget_bytes and mem.device_bytes <= mem.device_budget_bytes


def largest_fitting(spec: dsl.Spec, prof: Profile) -> tuple[int, int]:
    """(the largest window at the spec's threads, the most threads at its window) that fit; 0 = none."""
    window = _window(spec)
    best_window = next((w for w in range(window, 0, -1) if fits(spec, prof, spec.threads, w)), 0)
    best_threads = next((t for t in range(spec.threads, 0, -1) if fits(spec, prof, t, window)), 0)
    return best_window, best_threads
