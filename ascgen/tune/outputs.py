"""The files a tune writes (the report, the bench results of its runs, the winning spec) and
its verdict: the exit the outcome calls for, as one line."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ascgen.bench.roofline import Planner
from ascgen.common.console import out
from ascgen.common.errors import CheckFailed, Interrupted, StepFailed, UserError
from ascgen.common.fileio import write_atomic
from ascgen.dsl.parse import parse_file
from ascgen.tune import report
from ascgen.tune.measure import BenchMeasurer
from ascgen.tune.search import Outcome, short
from ascgen.tune.spec_edit import tuned_text

BenchContext = tuple[datetime, tuple[str | None, bool | None], list[str]]  # started, git state, swept keys


def changes(planner: Planner, outcome: Outcome) -> str:
    winner = outcome.winner
    assert winner is not None
    spec = planner.spec
    own: dict[str, object] = {"threads": spec.threads, "depth": spec.buffers.depth, "batch": spec.batch}
    own["streams"] = spec.streams
    own["sync_every"] = spec.frames_per_sync if spec.streams == "per_thread" else None
    moved = [f"{k} {v} -> {getattr(winner.config, k)}" for k, v in own.items() if getattr(winner.config, k) != v]
    return ", ".join(moved) if moved else "the spec's own values won"


def write_tuned_spec(outcome: Outcome, settings: report.Settings, planner: Planner, path: Path, folder: Path) -> None:
    winner = outcome.winner
    assert winner is not None and winner.measurement is not None
    spec_path = Path(settings.spec)
    spec, smap = parse_file(spec_path)
    m, goal = winner.measurement, outcome.goal
    note = [
        f"{changes(planner, outcome)} ({goal.objective}, SLO {goal.slo_text()})",
        f"the best of {len(outcome.measured)} points measured ({outcome.points} planned, {outcome.fitting} fit): "
        f"{m.qps:,.1f} QPS, p99 {m.p99_ms:,.1f} ms",
        f"tuned over {settings.space}; report: {folder / 'summary.md'}",
    ]
    text = tuned_text(spec_path.read_text(encoding="utf-8"), smap, spec, winner.config, note)
    write_atomic(path, text)


def stage_rows(outcome: Outcome, planner: Planner, measurer: BenchMeasurer) -> list[list[str]]:
    """The winner's stages as planned, with the frames its last run counted per stage."""
    winner = outcome.winner
    if winner is None:
        return []
    plan = planner.plan(winner.config)
    runs = [r for r in measurer.runs if short(r) == short(winner.config)]
    counts = runs[-1].stages if runs else {}
    return [
        [s.name, s.engine, f"{s.service_us:,.1f}", f"{s.capacity_qps:,.1f}", f"{counts.get(s.name, 0):,}"]
        for s in plan.stages
    ]


def write_report(
    outcome: Outcome,
    settings: report.Settings,
    planner: Planner,
    measurer: BenchMeasurer,
    folder: Path,
    bench: BenchContext,
) -> list[str]:
    from ascgen.bench import csvfile
    from ascgen.bench.points import configurations
    from ascgen.bench.schema import dumps
    from ascgen.tune import html
    from ascgen.tune.pareto import plot_pareto

    names = []
    interrupted = f"after {len(outcome.measured)} points" if outcome.interrupted else None
    results = measurer.results(*bench, interrupted)
    if results is not None:
        write_atomic(folder / "results.json", dumps(results))
        write_atomic(folder / "runs.csv", csvfile.render(results))
        names += ["results.json", "runs.csv"]
    plots = []
    if outcome.measured:
        folder.mkdir(parents=True, exist_ok=True)
        plot_pareto(
            outcome, f"{Path(settings.spec).name}: QPS against p99 of every measured point", folder / "pareto.png"
        )
        plots.append("pareto.png")
    write_atomic(folder / "tune.json", report.dumps(outcome, settings))
    write_atomic(folder / "summary.md", report.render(outcome, settings, plots, stage_rows(outcome, planner, measurer)))
    runs = len(results.runs) if results is not None else len(outcome.measured) * settings.repeat
    default = configurations(planner.spec, [], {})[0]
    write_atomic(folder / "report.html", html.render(outcome, settings, runs, default, planner.plan))
    return ["summary.md", "report.html", "tune.json", *plots, *names]


def verdict(outcome: Outcome, folder: Path) -> None:
    """Print the winner, or raise the error the outcome calls for."""
    if outcome.interrupted:
        raise Interrupted(f"after {len(outcome.measured)} measured points; wrote what was measured to {folder}")
    winner, best = outcome.winner, outcome.best
    if winner is not None and winner.measurement is not None:
        m = winner.measurement
        out.print(f"winner: {short(winner.config)}: {m.qps:,.1f} QPS, p99 {m.p99_ms:,.1f} ms ({outcome.stopped})")
        return
    if best is not None and best.measurement is not None:
        m = best.measurement
        raise CheckFailed(
            f"no measured point meets the SLO ({outcome.goal.slo_text()}); the closest: {short(best.config)}: "
            f"{m.qps:,.1f} QPS, p99 {m.p99_ms:,.1f} ms; see {folder / 'summary.md'}"
        )
    if outcome.fitting == 0:
        raise UserError(f"{outcome.stopped}; widen --space or lower the sizes in the spec")
    raise StepFailed(f"no point could be measured: {outcome.stopped}; see {folder / 'summary.md'}")
