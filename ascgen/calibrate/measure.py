"""The measurements behind a calibrated profile, each a function of the base profile and a backend.

- copies: the transfer probe's AscendCL copies (h2d, d2h, d2d; pinned, one copy per block) at
  several block sizes; a least-squares line through the time of one copy against its size gives
  the engine's latency (intercept) and bandwidth (1 / slope);
- links (profiles with links): HIXL's columns through the probe at two block sizes, fitted as
  docs/transfers.md fits the published ones;
- the engines (ascgen/calibrate/engines.py: the task scheduler, the host's submit cost, JPEGD and
  VPC by channel count), through the generated engine probe;
- the reference model at each batch size (simulator only: acl_sim_calib model_batch, the model
  descriptor the simulator executes; on a device the model file is the user's, so its latency
  comes from `ascgen bench --stages`).
"""

from __future__ import annotations

import json
import platform
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ascgen import __version__
from ascgen.codegen.build import ensure_simulator
from ascgen.common.errors import StepFailed
from ascgen.dsl import profile as profiles
from ascgen.transfers import fit, probe, published
from ascgen.transfers.direction import COPY_DIRECTIONS
from ascgen.transfers.model import Transfer

Say = Callable[[str], None]
# The copy engines are named after their directions (engines.h2d, engines.d2h, engines.d2d).
COPY_ENGINES = COPY_DIRECTIONS


@dataclass
class Figure:
    key: str  # flat key, e.g. engines.h2d.bandwidth_GBps
    value: float
    probe: str
    spread: float
    repeats: int


@dataclass
class Context:
    base: str
    backend: str
    build_root: Path
    time_scale: float
    repeat: int
    env: dict[str, str] = field(default_factory=dict)

    def provenance(self, fig: Figure) -> profiles.Provenance:
        driver = f"ascgen simulator {__version__}" if self.backend == "sim" else "CANN (see npu-smi info)"
        return profiles.Provenance(
            probe=fig.probe,
            date=datetime.now(UTC).isoformat(timespec="seconds"),
            host=platform.node(),
            driver=driver,
            spread=round(fig.spread, 4),
            repeats=fig.repeats,
        )


def _line(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """Least-squares intercept and slope of ys against xs."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    return my - slope * mx, slope


def _spread(rows: Sequence[probe.Row]) -> float:
    return max(((r.GBps_max or 0) - (r.GBps_min or 0)) / r.GBps for r in rows if r.GBps)


def copies(ctx: Context, sizes: Sequence[int], total: int, say: Say, per_task_us: float | None = None) -> list[Figure]:
    """engines.<h2d|d2h|d2d>.latency_us and bandwidth_GBps.

    One stream runs the copies one after the other, so a copy's time is the task scheduler's
    dispatch of it plus the engine's service: the engine's latency is the line's intercept less
    engines.scheduler.per_task_us: ``per_task_us`` when it was measured, else the base profile's
    (the provenance says which)."""
    dispatch = profiles.load(ctx.base).engines.scheduler.per_task_us if per_task_us is None else per_task_us
    source = f"of {ctx.base}" if per_task_us is None else "measured (probe_engines)"
    options = probe.Options(
        profile=ctx.base,
        links=("copy",),
        directions=COPY_ENGINES,
        sizes=tuple(sizes),
        host_memory=("pinned",),
        total_bytes=total,
        repeat=ctx.repeat,
    )
    binary = probe.build(options, ctx.build_root, ctx.backend)
    rows = probe.run(binary, options, ctx.time_scale, on_row=lambda r: say(f"copies: {r.column} {r.block_bytes}"))
    out = []
    what = f"ascgen probe transfer --links copy --sizes {','.join(probe.size_label(s) for s in sizes)}"
    less = f"; latency: intercept less engines.scheduler.per_task_us {dispatch:g} {source}"
    for engine in COPY_ENGINES:
        mine = [r for r in rows if r.column.startswith(f"copy_{engine}") and r.seconds and r.bytes]
        xs = [float(r.block_bytes) for r in mine]
        ys = [r.seconds / (r.bytes / r.block_bytes) * 1e6 for r in mine if r.seconds and r.bytes]  # us per copy
        latency, slope = _line(xs, ys)
        spread, n = _spread(mine), ctx.repeat
        out.append(
            Figure(f"engines.{engine}.latency_us", round(max(latency - dispatch, 0.0), 3), what + less, spread, n)
        )
        out.append(Figure(f"engines.{engine}.bandwidth_GBps", round(1.0 / (slope * 1e3), 3), what, spread, n))
    return out


def links(ctx: Context, sizes: Sequence[int], total: int, say: Say) -> list[Figure]:
    """links.*: HIXL's columns measured, then fitted like the published ones."""
    base = profiles.load(ctx.base)
    if base.links is None:
        return []
    options = probe.Options(
        profile=ctx.base, links=("hccs", "rdma"), sizes=tuple(sizes), total_bytes=total, repeat=ctx.repeat
    )
    binary = probe.build(options, ctx.build_root, ctx.backend)
    rows = probe.run(binary, options, ctx.time_scale, on_row=lambda r: say(f"links: {r.column} {r.block_bytes}"))
    figures = [
        published.Figure(
            published.parse_column(r.column, r.op, r.topology == "two_hosts"), r.block_bytes, float(r.GBps or 0)
        )
        for r in rows
        if r.status == "ok" and r.GBps
    ]
    if not figures:
        say("links: none measured on this backend (HIXL's benchmark measures them: docs/transfers.md)")
        return []
    start = {k: v for k, v in fit.START.items() if _wanted(k, figures)}
    result = fit.fit(figures, start)
    spread = _spread(rows)
    what = f"ascgen probe transfer --links hccs,rdma, fitted (ascgen.transfers.fit, {result.iterations} iterations)"
    return [Figure(f"links.{k}", v, what, spread, ctx.repeat) for k, v in fit.rounded(result.values).items()]


def _wanted(key: str, figures: Sequence[published.Figure]) -> bool:
    transfers: list[Transfer] = [f.transfer for f in figures]
    return any(key.startswith(t.link) or key.startswith("host.") for t in transfers)


def model_batches(ctx: Context, batches: Sequence[int], executions: int, say: Say) -> list[Figure]:
    """models.resnet50.latency_ms.<batch> (simulator: the descriptor the simulator executes)."""
    if ctx.backend != "sim":
        say("model: on a device, measure your model with `ascgen bench --stages` (its file is yours)")
        return []
    prefix = ensure_simulator(ctx.build_root, None)
    base_dir = ctx.build_root / "sim-plain"
    proc = subprocess.run(
        ["cmake", "--build", str(base_dir), "--target", "acl_sim_calib", "-j2"], capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise StepFailed(f"building acl_sim_calib failed: {proc.stdout[-400:]}")
    del prefix
    binary = base_dir / "bench" / "acl_sim_calib"
    flat = ctx.build_root / "calibrate" / f"{ctx.base}.profile"
    flat.parent.mkdir(parents=True, exist_ok=True)
    flat.write_text(profiles.flatten(profiles.load(ctx.base)), encoding="utf-8")
    out = []
    for b in batches:
        times = []
        for _ in range(ctx.repeat):
            env = {
                "ACL_SIM_PROFILE": str(flat),
                "ACL_SIM_DEVICE_OPEN_MS": "0",
                "ACL_SIM_TIME_SCALE": repr(ctx.time_scale),  # model time, not the simulator's own CPU
                "PATH": "/usr/bin:/bin",
                **ctx.env,
            }
            run = subprocess.run(
                [str(binary), "model_batch", str(b), "--frames", str(executions)],
                capture_output=True,
                text=True,
                env=env,
            )
            if run.returncode != 0:
                raise StepFailed(f"acl_sim_calib model_batch {b} failed: {run.stderr.strip()[-300:]}")
            data = json.loads(run.stdout.strip().splitlines()[-1])
            times.append(float(data["model_s"]) / executions * 1e3)
        times.sort()
        med = times[len(times) // 2]
        say(f"model: batch {b}: {med:.3f} ms")
        what = f"acl_sim_calib model_batch {b} --frames {executions}"
        out.append(
            Figure(f"models.resnet50.latency_ms.{b}", round(med, 4), what, (times[-1] - times[0]) / med, len(times))
        )
    return out
