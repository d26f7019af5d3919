"""The throughput model: per-stage service times on the profile's engines, and the bounds
whose minimum is the predicted ceiling ("roofline") of a plan.

Service times use the same formulas as the simulator's device timeline (see the profile's
`engines` section), so a plan predicts what the simulator measures.
"""

from __future__ import annotations

from ascgen import spec as dsl
from ascgen.geometry import Geometry
from ascgen.plan_model import BatchingPlan, Bound, StagePlan
from ascgen.profile import Profile

HOST_SCAN_BYTES_PER_US = 1000.0  # host postprocess (top-k) scans scores at ~1 GB/s
ENGINE_OF = {"h2d": "h2d", "jpeg_decode": "jpegd", "vpc_resize": "vpc", "model": "aicore", "d2h": "d2h", "topk": "host"}


def _units(prof: Profile, engine: str) -> int:
    if engine == "host":
        return 1
    unit: int = getattr(prof.engines, engine).units
    return unit


def service_us(
    spec: dsl.Spec, stage: dsl.Stage, prof: Profile, geo_in: Geometry | None, geo_out: Geometry | None, model_ms: float
) -> float:
    """Time one task of this stage occupies one unit of its engine."""
    e = prof.engines
    if isinstance(stage, dsl.H2dStage):
        nbytes = geo_out.bytes if geo_out else 0
        if spec.source.kind == "jpeg_files" and spec.source.typical_bytes and not stage.bytes:
            nbytes = min(nbytes, spec.source.typical_bytes)
        return e.h2d.service_us(nbytes)
    if isinstance(stage, dsl.JpegDecodeStage):
        return e.jpegd.service_us(stage.max.width * stage.max.height)
    if isinstance(stage, dsl.VpcResizeStage):
        return e.vpc.service_us(stage.out.width * stage.out.height)
    if isinstance(stage, dsl.ModelStage):
        # Every thread feeds the AI Core from its own stream: with more than one, each
        # execution follows another stream's and pays the switch (as the simulator does).
        switch = e.aicore.switch_us if spec.threads > 1 else 0.0
        return model_ms * 1000.0 + switch
    if isinstance(stage, dsl.D2hStage):
        return e.d2h.service_us(geo_out.bytes if geo_out else 0)
    return (geo_in.bytes if geo_in else 0) / HOST_SCAN_BYTES_PER_US


def stage_plans(
    spec: dsl.Spec,
    prof: Profile,
    lines: list[int],
    geos: dict[str, tuple[Geometry | None, Geometry | None]],
    model_ms: float,
    batch_level: list[bool],
) -> list[StagePlan]:
    """Each stage with its service time and the frames/s it sustains.

    Concurrency on an engine is its unit count, further limited by how many streams can
    feed it: per_stage gives each thread one stream per stage, so min(units, threads).
    """
    out = []
    for i, stage in enumerate(spec.stages):
        gin, gout = geos[stage.name]
        engine = ENGINE_OF[stage.kind]
        svc = max(service_us(spec, stage, prof, gin, gout, model_ms), 1e-3)
        frames = spec.batch if batch_level[i] else 1
        conc = spec.threads if engine == "host" else min(_units(prof, engine), spec.threads)
        out.append(
            StagePlan(
                name=stage.name,
                kind=stage.kind,
                line=lines[i],
                engine=engine,
                input=gin,
                output=gout,
                service_us=svc,
                frames_per_task=frames,
                capacity_qps=conc * frames * 1e6 / svc,
            )
        )
    return out


def device_tasks_per_frame(spec: dsl.Spec, stages: list[StagePlan], batching: BatchingPlan) -> float:
    """Tasks the device scheduler dispatches per frame: operations, plus event records and waits
    between per_stage streams, plus one completion callback per batch."""
    device = [s for s in stages if s.engine != "host"]
    ops = sum(1.0 / s.frames_per_task for s in device)
    if batching.mode == "copy":
        ops += 1.0
    if spec.streams == "per_stage":
        ops += sum(2.0 / s.frames_per_task for s in device[1:])  # record + wait per edge
        ops += 1.0 / spec.batch  # completion callback
    else:
        ops += 1.0 / spec.frames_per_sync
    return ops


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
            why=f"{s.service_us:.1f} us per task of {s.frames_per_task} frame(s) on "
            f"{min(_units(prof, s.engine), spec.threads) if s.engine != 'host' else spec.threads} "
            "unit(s)",
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
