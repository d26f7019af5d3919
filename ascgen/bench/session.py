"""A whole bench: plan every configuration, build the variants that are missing, run every
configuration ``repeat`` times (repeats interleaved, so slow drift spreads over all points),
and assemble the results."""

from __future__ import annotations

import platform
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from ascgen import __version__
from ascgen.bench import environment, noise, slo, stats
from ascgen.bench.points import Fixed, Sweep, configurations, swept_keys
from ascgen.bench.roofline import Planner, variant_config
from ascgen.bench.runner import Progress, RunFailed, RunOptions, run_program
from ascgen.bench.schema import BenchResults, Config, Context, ProgramReport, RunRecord, exact
from ascgen.common.errors import Interrupted, StepFailed
from ascgen.dsl.spec import Spec
from ascgen.plan.model import Plan
from ascgen.serving.predict import Prediction, predict


class Built(Protocol):
    @property
    def binary(self) -> Path: ...

    @property
    def cached(self) -> bool: ...


# (spec file, the spec as configured for the build, its plan) -> the built program
Builder = Callable[[Path, Spec, Plan], Built]
# the programs a bench builds -> seconds of building still to do (ascgen.codegen.build.build_estimate_s)
BuildEstimate = Callable[[list[tuple[Spec, Plan]]], float]
Runner = Callable[[Path, Config, RunOptions, Path, Callable[[Progress], None] | None], ProgramReport]


class BenchFailed(StepFailed):
    """A run failed; the message is one line naming the configuration. ``partial`` holds the
    results of the runs before it (None when there were none)."""

    def __init__(self, message: str, partial: BenchResults | None = None) -> None:
        super().__init__(message)
        self.partial = partial


class BenchInterrupted(Interrupted):
    """Ctrl-C during a bench; ``partial`` holds the runs that finished (None when none did)."""

    def __init__(self, message: str, partial: BenchResults | None = None) -> None:
        super().__init__(message)
        self.partial = partial


class Monitor(Protocol):
    """What a user interface hears about the bench as it goes."""

    def planned(self, runs: int) -> None: ...
    def builds_planned(self, seconds: float) -> None: ...
    def building(self, variant: str) -> None: ...
    def built(self, variant: str, cached: bool) -> None: ...
    def run_started(self, config: Config, repeat: int, repeats: int) -> None: ...
    def progress(self, progress: Progress) -> None: ...
    def run_done(self, run: RunRecord) -> None: ...


class QuietMonitor:
    def planned(self, runs: int) -> None: ...
    def builds_planned(self, seconds: float) -> None: ...
    def building(self, variant: str) -> None: ...
    def built(self, variant: str, cached: bool) -> None: ...
    def run_started(self, config: Config, repeat: int, repeats: int) -> None: ...
    def progress(self, progress: Progress) -> None: ...
    def run_done(self, run: RunRecord) -> None: ...


GitState = tuple[str | None, bool | None]  # (commit, dirty), as environment.git_state gives it


@dataclass(frozen=True)
class Request:
    spec_path: Path
    out_dir: Path
    options: RunOptions
    repeat: int = 3
    sweeps: list[Sweep] = field(default_factory=list)
    fixed: Fixed = field(default_factory=dict)  # --threads, --depth, --arrival, --time-scale
    # (commit, dirty) of the code measured; None: read when the bench starts. A caller that
    # runs several benches into the repository (python -m tools.study) reads it once.
    git: GitState | None = None


def variant_label(config: Config) -> str:
    sync = f" sync_every={config.sync_every}" if config.sync_every is not None else ""
    return f"batch={config.batch} streams={config.streams}{sync}"


def raw_name(config: Config, repeat: int) -> str:
    sync = f"-s{config.sync_every}" if config.sync_every is not None else ""
    load = f"-c{config.clients}" if config.clients is not None else ""
    load += f"-q{exact(config.rate)}" if config.rate is not None else ""
    load += f"-D{config.devices.replace(',', '_')}" if config.devices is not None else ""
    load += f"-{config.deploy}" if config.deploy is not None else ""
    load += f"-{config.arrival}" if config.arrival is not None else ""
    load += f"-x{config.time_scale:g}" if config.time_scale is not None else ""
    return f"b{config.batch}-{config.streams}{sync}-t{config.threads}-d{config.depth}{load}-r{repeat}.json"


def disagreement(config: Config, report: ProgramReport) -> str | None:
    """What the program says it ran, where that differs from the configuration (a stale or
    wrong binary, or a flag the program ignored)."""
    diffs = [
        f"{key}={getattr(report, key)} (expected {getattr(config, key)})"
        for key in ("threads", "depth", "batch", "streams")
        if getattr(report, key) != getattr(config, key)
    ]
    if config.sync_every is not None and report.sync_every != config.sync_every:
        diffs.append(f"sync_every={report.sync_every} (expected {config.sync_every})")
    return ", ".join(diffs) or None


def predicted(config: Config, plan: Plan) -> Prediction | None:
    """The plan's prediction for a server's load (ascgen.serving.predict): its clients, or its
    rate and arrivals; None for frames and for a server at the program's default load."""
    if plan.serving is None:
        return None
    if config.rate is not None:
        return predict(plan, 0, rate=config.rate, poisson=config.arrival == "poisson")
    return predict(plan, config.clients) if config.clients is not None else None


def plan_all(planner: Planner, configs: list[Config]) -> dict[Config, Plan]:
    """Every configuration planned before anything is built: one that cannot fit fails here."""
    return {c: planner.plan(c) for c in configs}


def build_all(
    request: Request, planner: Planner, configs: list[Config], builder: Builder, monitor: Monitor
) -> dict[Config, Path]:
    """One build per program: configurations that differ only in threads and depth (run-time
    flags) share one; each is built from the spec and plan the planner already made."""
    binaries: dict[Config, Path] = {}
    for config in configs:
        key = variant_config(planner.spec, config)
        if key not in binaries:
            monitor.building(variant_label(config))
            spec, plan = planner.variant(config)
            result = builder(request.spec_path, spec, plan)
            monitor.built(variant_label(config), result.cached)
            binaries[key] = result.binary
    return {c: binaries[variant_config(planner.spec, c)] for c in configs}


def context(request: Request, planner: Planner, started: datetime, backend: str | None, git: GitState) -> Context:
    here = environment.machine()
    commit, dirty = git
    return Context(
        host=here.host,
        cpu_model=here.cpu_model,
        cpu_count=here.cpu_count,
        governor=here.governor,
        numa_balancing=here.numa_balancing,
        backend=backend,
        profile=planner.spec.device.profile,
        ascgen_version=__version__,
        spec=str(request.spec_path),
        spec_sha256=environment.sha256_file(request.spec_path),
        git_commit=commit,
        git_dirty=dirty,
        python=platform.python_version(),
        started_at=started.isoformat(timespec="seconds"),
        duration_s=request.options.duration_s,
        warmup_s=request.options.warmup_s,
        repeat=request.repeat,
    )


def run_bench(
    request: Request,
    builder: Builder,
    monitor: Monitor | None = None,
    runner: Runner = run_program,
    planner: Planner | None = None,
    build_estimate: BuildEstimate | None = None,
) -> BenchResults:
    monitor = monitor or QuietMonitor()
    started = datetime.now(UTC)
    # the code measured is the tree as the bench starts: its own outputs (raw/ under --out,
    # possibly inside the repository) must not make it look dirty
    git = request.git or environment.git_state(request.spec_path.resolve().parent)
    planner = planner or Planner(request.spec_path)
    configs = configurations(planner.spec, request.sweeps, request.fixed)
    plans = plan_all(planner, configs)
    predictions = {c: predicted(c, plans[c]) for c in configs}
    if build_estimate is not None:
        variants = {variant_config(planner.spec, c): c for c in configs}
        monitor.builds_planned(build_estimate([planner.variant(c) for c in variants.values()]))
    monitor.planned(len(configs) * request.repeat)
    binaries = build_all(request, planner, configs, builder, monitor)
    swept = swept_keys(request.sweeps, configs)

    runs: list[RunRecord] = []
    backend: str | None = None

    def results(interrupted: str | None = None) -> BenchResults:
        return assemble(request, planner, started, git, backend, swept, runs, interrupted)

    total = len(configs) * request.repeat
    try:
        for repeat in range(1, request.repeat + 1):
            for config in configs:
                point = Point(binaries[config], config, plans[config], predictions[config])
                run = measure_point(request, runner, monitor, point, repeat)
                if isinstance(run, str):
                    raise BenchFailed(run, results() if runs else None)
                backend = backend or run.backend
                runs.append(run.record)
                monitor.run_done(run.record)
    except KeyboardInterrupt:
        done = f"after {len(runs)} of {total} runs"
        raise BenchInterrupted(done, results(done) if runs else None) from None
    return results()


@dataclass(frozen=True)
class Measured:
    record: RunRecord
    backend: str


@dataclass(frozen=True)
class Point:
    """A configuration to measure: its program, its plan and the plan's prediction of it."""

    binary: Path
    config: Config
    plan: Plan
    prediction: Prediction | None = None


def measure_point(request: Request, runner: Runner, monitor: Monitor, point: Point, repeat: int) -> Measured | str:
    """One run of one configuration: its record, or one line saying why it failed."""
    binary, config = point.binary, point.config
    monitor.run_started(config, repeat, request.repeat)
    raw = Path("raw") / raw_name(config, repeat)
    where = f"{config.label()} (repeat {repeat}/{request.repeat}"
    t0 = time.monotonic()
    try:
        report = runner(binary, config, request.options, request.out_dir / raw, monitor.progress)
    except RunFailed as exc:
        return f"run {where}, after {time.monotonic() - t0:.1f} s) failed: {exc}"
    mismatch = disagreement(config, report)
    if mismatch:
        return f"run {where}) is not what was asked: {mismatch}"
    warmup = request.options.warmup_s
    record = stats.record(config, repeat, report, point.plan, raw.as_posix(), point.prediction, warmup)
    return Measured(record, report.backend)


def assemble(
    request: Request,
    planner: Planner,
    started: datetime,
    git: GitState,
    backend: str | None,
    swept: list[str],
    runs: list[RunRecord],
    interrupted: str | None = None,
) -> BenchResults:
    """Results from the runs so far: summaries, warnings, SLO verdicts. ``interrupted`` says
    how far an interrupted bench got ("after 3 of 8 runs")."""
    summary = stats.summarize(runs)
    ctx = context(request, planner, started, backend, git)
    warnings = noise.machine_warnings(ctx) + noise.run_warnings(runs) + noise.repeat_warnings(summary)
    if interrupted:
        warnings.insert(0, f"interrupted (Ctrl-C) {interrupted}: the points and repeats not run are missing")
    return BenchResults(
        context=ctx,
        swept=swept,
        runs=runs,
        summary=summary,
        warnings=warnings,
        slo=slo.gates(planner.spec.slo),
        slo_misses=slo.misses(summary, planner.spec.slo),
        interrupted=interrupted is not None,
    )
