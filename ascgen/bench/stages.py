"""`ascgen bench SPEC --stages`: the study's method, automated. Each device stage is measured
alone, fed with prepared inputs, then the assembled pipeline, in one build: the spec as the
study's program (per_thread streams, submitted step by step over each sync window), whose
`--only-stage NAME` submits, after a first window that fills every pool, that stage's steps
only. The table says how fast each stage is alone, what share of it the assembled run uses,
how close the assembled run comes to its slowest stage, and which engine limits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table

from ascgen.bench.runner import RunOptions, run_program
from ascgen.bench.schema import Config
from ascgen.codegen.build import build_program
from ascgen.dsl.configure import configure
from ascgen.dsl.parse import parse_file
from ascgen.dsl.spec import Spec
from ascgen.pipeline import analyze_data
from ascgen.plan.model import Plan

DEFAULT_WINDOW = 64  # frames per sync when the spec gives none: the study's


@dataclass(frozen=True)
class StageRow:
    name: str
    kind: str
    engine: str
    alone_qps: float  # the stage alone, frames/s
    share: float  # the assembled run's QPS / alone: how much of the stage the pipeline uses


@dataclass(frozen=True)
class StageStudy:
    program: str
    threads: int
    assembled_qps: float
    rows: list[StageRow]

    @property
    def limit(self) -> StageRow:
        return min(self.rows, key=lambda r: r.alone_qps)

    @property
    def efficiency(self) -> float:
        """The assembled run against its slowest stage alone."""
        return self.assembled_qps / self.limit.alone_qps


def study_spec(spec: Spec) -> Spec:
    """The spec as the study's program: per_thread, step by step, whole batches per window."""
    window = spec.sync_every or -(-DEFAULT_WINDOW // spec.batch) * spec.batch
    return configure(spec, {"streams": "per_thread", "submit": "by_step", "sync_every": window})


def measure(
    spec_path: Path,
    threads: int | None,
    options: RunOptions,
    out_dir: Path,
    build_root: Path,
    on_step: Callable[[str], None] = lambda what: None,
) -> StageStudy:
    spec, smap = parse_file(spec_path)
    study = study_spec(configure(spec, {"threads": threads}) if threads else spec)
    plan: Plan = analyze_data(study, smap)
    on_step(f"build {study.name} as the study's program (per_thread, by_step)")
    binary = build_program(spec_path, study, plan, build_root=build_root).binary
    config = Config(threads=study.threads, depth=study.buffers.depth, batch=study.batch, streams=study.streams,
                    sync_every=study.sync_every)  # fmt: skip

    def qps(stage: str | None) -> float:
        on_step(f"run {stage or 'the assembled pipeline'}")
        extra = ("--only-stage", stage) if stage else ()
        run = RunOptions(options.duration_s, options.warmup_s, options.input, options.pin, extra)
        return run_program(binary, config, run, out_dir / f"{stage or 'assembled'}.json").qps

    device = [s for s in plan.stages if s.engine != "host"]
    alone = {s.name: qps(s.name) for s in device}
    assembled = qps(None)
    rows = [StageRow(s.name, s.kind, s.engine, alone[s.name], assembled / alone[s.name]) for s in device]
    return StageStudy(study.name, study.threads, assembled, rows)


def table(study: StageStudy) -> Table:
    t = Table(title=f"{study.program}, each stage alone and assembled ({study.threads} thread(s))")
    for col in ("stage", "kind", "engine", "alone fps", "share of the assembled run", "limits"):
        t.add_column(col, justify="right" if col in ("alone fps", "share of the assembled run") else "left")
    for r in study.rows:
        t.add_row(r.name, r.kind, r.engine, f"{r.alone_qps:,.1f}", f"{100 * r.share:.0f} %",
                  "yes" if r is study.limit else "")  # fmt: skip
    t.caption = (
        f"assembled: {study.assembled_qps:,.1f} fps, {100 * study.efficiency:.0f} % of its slowest stage alone "
        f"({study.limit.name}, {study.limit.engine})"
    )
    return t


def markdown(study: StageStudy) -> str:
    lines = [
        "| stage | kind | engine | alone fps | share of the assembled run | limits |",
        "|---|---|---|---:|---:|---|",
        *(
            f"| {r.name} | {r.kind} | {r.engine} | {r.alone_qps:,.1f} | {100 * r.share:.0f} % | "
            f"{'yes' if r is study.limit else ''} |"
            for r in study.rows
        ),
        "",
        f"Assembled: {study.assembled_qps:,.1f} fps with {study.threads} thread(s), "
        f"{100 * study.efficiency:.0f} % of its slowest stage alone ({study.limit.name}, {study.limit.engine}).",
    ]
    return "\n".join(lines) + "\n"
