"""The Click command ``ascgen tune SPEC``.

Only Click and ascgen's error model are imported at module level (ascgen.cli imports this
module). Exit codes: 0 a winner was found, 1 no measured point meets the SLO, 2 bad spec or
usage (or no point of the space fits), 3 no point could be measured, 130 interrupted (the
report of what was measured is written first).
"""

from __future__ import annotations

import dataclasses
import functools
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ascgen.bench import options
from ascgen.bench.command import default_builder
from ascgen.common.errors import UserError, shown
from ascgen.common.friendly import friendly

if TYPE_CHECKING:
    from ascgen.bench import session
    from ascgen.bench.roofline import Planner
    from ascgen.tune.measure import BenchMeasurer
    from ascgen.tune.report import Settings
    from ascgen.tune.search import Outcome


def ray_address_of(param: click.Parameter, value: str | None) -> str | None:
    """--ray's address: given, it must say where (an empty one never quietly means "here")."""
    if value is not None and (not value.strip() or any(ch.isspace() or not ch.isprintable() for ch in value)):
        raise click.BadParameter(f"'{shown(value)}': give the cluster's address (host:port) or auto", param=param)
    return value


def default_out_dir(spec_name: str, now: datetime) -> Path:
    return Path("tune-results") / spec_name / now.strftime("%Y%m%d-%H%M%S")


def default_tuned_path(spec_path: Path) -> Path:
    return spec_path.with_name(f"{spec_path.stem}.tuned.yaml")


@click.command(short_help="Search for SPEC's best configuration under an objective and an SLO.")
@click.argument("spec_path", metavar="SPEC", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--objective", type=click.Choice(["max_qps", "min_p99"]), default="max_qps", show_default=True)
@click.option(
    "--slo",
    "slo_text",
    metavar="p99_ms=MS,min_qps=QPS",
    help="Limits every answer must meet (default: the spec's slo).",
)
@click.option("--budget", "budget_text", default="20m", show_default=True, help="How long to measure: 20m, 90s, 1h30m.")
@click.option(
    "--space",
    "space_text",
    metavar="KEY=VALUES,...",
    help="Values to search (default threads=1..16,depth=2..32); LO..HI doubles, LO..HI:STEP counts, streams=*.",
)
@click.option("--max-runs", type=click.IntRange(min=1), help="Measure at most this many points.")
@click.option(
    "--min-gain",
    "gain_pct",
    type=options.FiniteRange(0, 100),
    default=2.0,
    show_default=True,
    metavar="PCT",
    help="A neighbour must be this much better to move the search.",
)
@options.measuring(duration=5.0, warmup=1.0)
@click.option("--repeat", type=click.IntRange(1, 100), default=1, show_default=True, help="Runs per point.")
@options.time_scale_option
@options.program_and_build
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Report folder (default tune-results/<name>/<time>/).",
)
@click.option(
    "--write",
    "write_beside",
    is_flag=True,
    help="Also write the winning spec beside SPEC, as SPEC.tuned.yaml (it is always in the report folder).",
)
@click.option(
    "--write-spec",
    "tuned_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the winning spec to this file.",
)
@click.option("--force", is_flag=True, help="Overwrite a winning spec file that exists already.")
@click.option(
    "--ray",
    "ray_address",
    metavar="ADDRESS|auto",
    callback=lambda _ctx, param, v: ray_address_of(param, v),
    help="Measure on a Ray cluster, a task per point asking for one device (pip install 'ascgen[ray]').",
)
@friendly
def tune(
    spec_path: Path,
    objective: str,
    slo_text: str | None,
    budget_text: str,
    space_text: str | None,
    max_runs: int | None,
    gain_pct: float,
    duration: float,
    warmup: float,
    repeat: int,
    time_scale: float | None,
    input_path: Path | None,
    pin: str | None,
    backend: str,
    build_dir: Path,
    out_dir: Path | None,
    write_beside: bool,
    tuned_path: Path | None,
    force: bool,
    ray_address: str | None,
) -> None:
    """Find the configuration of SPEC (threads, depth, batch, streams, sync_every) with the
    most QPS (or the least p99) that meets the SLO: plan every point, skip those that do not
    fit or cannot win, measure from the planner's best guess, then its neighbours.

    Writes summary.md, report.html, tune.json, pareto.png, results.json, runs.csv and the
    winning spec (SPEC.tuned.yaml) to --out; beside SPEC too with --write (or to --write-spec
    PATH), never over an existing file without --force. Exit 1 when no measured point meets
    the SLO.
    """
    from rich.console import Console

    from ascgen.bench import environment, session
    from ascgen.bench.live import monitor_for
    from ascgen.bench.options import check_time_scale
    from ascgen.bench.roofline import Planner
    from ascgen.bench.runner import RunOptions
    from ascgen.common.fileio import check_can_create, check_can_write
    from ascgen.tune.budget import parse_budget
    from ascgen.tune.goal import Goal, parse_slo
    from ascgen.tune.grid import make_grid
    from ascgen.tune.live import TuneListener
    from ascgen.tune.report import Settings
    from ascgen.tune.search import Limits, Search
    from ascgen.tune.space import DEFAULT_SPACE, parse_space

    if ray_address is not None:
        from ascgen.tune.remote import import_ray

        import_ray()  # before anything else: a missing extra is a usage error
    check_time_scale(backend, time_scale is not None)
    space = parse_space(space_text or DEFAULT_SPACE)
    budget_s = parse_budget(budget_text)
    planner = Planner(spec_path)
    p99, qps = parse_slo(slo_text, planner.spec.slo)
    goal = Goal("min_p99" if objective == "min_p99" else "max_qps", p99, qps, gain_pct / 100)
    grid = make_grid(planner.spec, space, time_scale)
    started = datetime.now(UTC)
    folder = out_dir or default_out_dir(planner.spec.name, started)
    if write_beside and tuned_path is not None:
        raise click.UsageError("--write writes beside SPEC, --write-spec to PATH: give one of them")
    copy = tuned_path or (default_tuned_path(spec_path) if write_beside else None)
    if copy is not None and copy.exists() and not force:
        raise UserError(f"{copy} exists: add --force to overwrite it, or name another file with --write-spec PATH")
    for where in (folder, build_dir):
        check_can_create(where)  # before minutes of measuring
    if copy is not None:
        check_can_write(copy)
    options = RunOptions(duration_s=duration, warmup_s=warmup, input=input_path, pin=pin)
    request = session.Request(spec_path=spec_path, out_dir=folder, options=options, repeat=repeat)
    git = environment.git_state(spec_path.resolve().parent)
    settings = Settings(str(spec_path), space.text(), budget_s, duration, warmup, repeat, time_scale=time_scale)
    err = Console(stderr=True, highlight=False)
    with monitor_for(err, options) as monitor:
        builder = functools.partial(
            default_builder, progress=monitor.build_progress, backend=backend, build_root=build_dir.resolve()
        )
        measurer = measurer_for(ray_address, request, planner, builder, monitor, backend, build_dir.resolve())
        listener = TuneListener(monitor, repeat)
        search = Search(grid, measurer, measurer, goal, Limits(budget_s, max_runs), listener)
        listener.search = search
        outcome = search.run()
    swept = [k for k, values in grid.axes.items() if len(values) > 1]
    finish(outcome, settings, planner, measurer, folder, copy, (started, git, swept))


def measurer_for(
    ray_address: str | None,
    request: session.Request,
    planner: Planner,
    builder: session.Builder,
    monitor: session.Monitor,
    backend: str,
    build_root: Path,
) -> BenchMeasurer:
    """Here, or on a Ray cluster (--ray)."""
    from ascgen.tune.measure import BenchMeasurer

    if ray_address is None:
        return BenchMeasurer(request, planner, builder, monitor)
    from ascgen.tune.remote import RayMeasurer

    return RayMeasurer(request, planner, monitor, ray_address, backend, build_root)


def finish(
    outcome: Outcome,
    settings: Settings,
    planner: Planner,
    measurer: BenchMeasurer,
    folder: Path,
    copy: Path | None,
    bench_context: tuple[datetime, tuple[str | None, bool | None], list[str]],
) -> None:
    """Write the report and the winning spec (in the report folder, and to ``copy`` when
    asked), print the verdict, exit as it says."""
    from ascgen.common.console import out
    from ascgen.tune.outputs import verdict, write_report, write_tuned_spec

    written = []
    if outcome.winner is not None and not outcome.interrupted:
        own = folder / default_tuned_path(Path(settings.spec)).name
        written = [own, *([copy] if copy else [])]
        for path in written:
            write_tuned_spec(outcome, settings, planner, path, folder)
        settings = dataclasses.replace(settings, tuned_spec=str(written[-1]))
    names = write_report(outcome, settings, planner, measurer, folder, bench_context)
    out.print(f"wrote {', '.join([*names, *(p.name for p in written[:1])])} to {folder}")
    if copy is not None and settings.tuned_spec:
        out.print(f"wrote the winning spec to {copy}")
    verdict(outcome, folder)
