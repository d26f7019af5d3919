"""The throughput model: per-stage service times on the profile's engines, and the bounds
whose minimum is the predicted ceiling ("roofline") of a plan.

Service times use the same formulas as the simulator's device timeline (see the profile's
`engines` section), so a plan predicts what the simulator measures.
"""

from __future__ import annotations

from ascgen.dsl import spec as dsl
from ascgen.dsl.profile import Profile
from ascgen.plan.geometry import Geometry
from ascgen.plan.model import BatchingPlan, Bound, EventEdge, StagePlan, Step
from ascgen.stages.base import StageContext, StageKind


def units(prof: Profile, engine: str) -> int:
    if engine == "host":
        return 1
    unit: int = getattr(prof.engines, engine).units
    return unit


def concurrency(prof: Profile, engine: str, threads: int) -> int:
    """The tasks of one stage an engine runs at once: its units, at most one per thread (each
    thread gives a stage one stream, which runs its tasks in order); host stages run on every thread."""
    return threads if engine == "host" else min(units(prof, engine), threads)


def stage_plan(
    ctx: StageContext, kind: StageKind, line: int, gin: Geometry | None, gout: Geometry | None, svc: float, level: bool
) -> StagePlan:
    """A stage with its service time and the frames/s it sustains.

    Concurrency on an engine is its unit count, further limited by how many streams can
    feed it: each thread gives a stage one stream, so min(units, threads)."""
    spec = ctx.spec
    frames = spec.batch if level else 1
    conc = concurrency(ctx.prof, kind.engine, spec.threads)
    return StagePlan(
        index=ctx.index, name=ctx.stage.name, kind=kind.kind, stage=ctx.stage, line=line, engine=kind.engine,
        input=gin, output=gout, service_us=svc, frames_per_task=frames, capacity_qps=conc * frames * 1e6 / svc,
        ddr_bytes_per_task=kind.ddr_bytes(ctx, gin, gout), batch_level=level,
    )  # fmt: skip


def _per_frame(batch_level: bool, batch: int) -> float:
    return 1.0 / batch if batch_level else 1.0


def _edge_rate(e: EventEdge, batch: int) -> float:
    return 1.0 / batch if e.index == "b" else 1.0


def device_tasks_per_frame(spec: dsl.Spec, steps: list[Step], events: list[EventEdge]) -> float:
    """Tasks the device scheduler dispatches per frame: the steps; for each event, its record,
    the wait and the reset (a host sync is no device task); one completion callback per batch
    (per_stage), or one stream sync per window (per_thread)."""
    tasks = sum(_per_frame(s.batch_level, spec.batch) for s in steps)
    tasks += sum((3.0 if e.waiter >= 0 else 2.0) * _edge_rate(e, spec.batch) for e in events)
    return tasks + (1.0 / spec.batch if spec.streams == "per_stage" else 1.0 / spec.frames_per_sync)


def api_calls_per_frame(spec: dsl.Spec, steps: list[Step], events: list[EventEdge]) -> float:
    """Host API calls one thread makes per frame (each costs the profile's submit time)."""
    calls = sum(_per_frame(s.batch_level, spec.batch) for s in steps)
    calls += sum(3.0 * _edge_rate(e, spec.batch) for e in events)  # record, wait or sync, reset
    return calls + (1.0 / spec.batch if spec.streams == "per_stage" else 1.0 / spec.frames_per_sync)


# The device's memory bandwidth, shared by the engines that run at the same moment (the
# simulator's processor sharing: simulator/docs/shared_bandwidth.md). In steady state the
# engines together move X x (bytes per frame) at X frames/s, which cannot exceed the
# bandwidth: a bound beside the engines' own (when it binds, every engine stretches by the
# ratio of the two).
DDR_BOUND = "ddr bandwidth"


def ddr_bytes_per_frame(stages: list[StagePlan], batching: BatchingPlan) -> float:
    """Device memory bytes read and written per frame by every task (and the batch copies)."""
    per_frame = sum(s.ddr_bytes_per_task / s.frames_per_task for s in stages)
    return per_frame + (2.0 * batching.frame_bytes if batching.mode == "copy" else 0.0)


def _units_used(spec: dsl.Spec, prof: Profile, engine: str) -> str:
    """The engine's units a stage keeps busy, said with the device's count when some stay idle
    (so that the device's own figure, e.g. the VDEC line of a video plan, reads as no contradiction)."""
    used = concurrency(prof, engine, spec.threads)
    total = spec.threads if engine == "host" else units(prof, engine)
    if used == total:
        return f"{used} unit(s)"
    return f"{used} of {total} unit(s) (a thread's stream runs one task at a time)"


def bounds(
    spec: dsl.Spec,
    prof: Profile,
    stages: list[StagePlan],
    batching: BatchingPlan,
    tasks_per_frame: float,
    calls_per_frame: float,
) -> list[Bound]:
    out = [
        Bound(
            name=f"{s.engine} ({s.name})",
            qps=s.capacity_qps,
            why=f"{s.service_us:.1f} us per task of {s.frames_per_task} frame(s) "
            f"on {_units_used(spec, prof, s.engine)}",
        )
        for s in stages
    ]
    if batching.mode == "copy":
        d2d = prof.engines.d2d
        svc = d2d.service_us(batching.frame_bytes)
        out.append(
            Bound(
                name="d2d (batch assembly)",
                qps=d2d.units * 1e6 / svc,
                why=f"one {batching.frame_bytes}-byte copy per frame, {svc:.1f} us",
            )
        )
    ddr = ddr_bytes_per_frame(stages, batching)
    if ddr > 0:
        out.append(
            Bound(
                name=DDR_BOUND,
                qps=prof.memory.bandwidth_GBps * 1e9 / ddr,
                why=f"{ddr / 1e6:.2f} MB of device memory traffic per frame at {prof.memory.bandwidth_GBps:g} GB/s, "
                "shared by the engines that run at the same moment",
            )
        )
    sched = prof.engines.scheduler.per_task_us
    if sched > 0:
        out.append(
            Bound(
                name="task scheduler",
                qps=1e6 / (sched * tasks_per_frame),
                why=f"{tasks_per_frame:.2f} device tasks per frame x {sched:g} us",
            )
        )
    submit = prof.engines.host.submit_us
    if submit > 0:
        out.append(
            Bound(
                name="host submit",
                qps=spec.threads * 1e6 / (submit * calls_per_frame),
                why=f"{calls_per_frame:.2f} API calls per frame x {submit:g} us on {spec.threads} thread(s)",
            )
        )
    if spec.streams == "per_thread":
        serial = sum(s.service_us / s.frames_per_task for s in stages if s.engine != "host")
        if batching.mode == "copy":
            serial += prof.engines.d2d.service_us(batching.frame_bytes)
        serial += sched * tasks_per_frame
        out.append(
            Bound(
                name="per_thread stream",
                qps=spec.threads * 1e6 / serial,
                why=f"one stream per thread runs every step in turn: {serial:.0f} us per frame "
                f"x {spec.threads} thread(s)",
            )
        )
    return out
