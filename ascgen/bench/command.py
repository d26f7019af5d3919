"""The Click commands ``ascgen bench SPEC`` and ``ascgen compare OLD NEW``.

Only Click and ascgen's error model are imported at module level (ascgen.cli imports this
module); the rest is loaded when a command runs. Exit codes are ascgen.common.errors': 0 ok, 1 a check
failed (SLO missed, NEW slower), 2 bad spec or usage, 3 a build or run failed, 130 interrupted.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ascgen.bench import options
from ascgen.common.errors import EXIT_CHECK_FAILED, CheckFailed
from ascgen.common.friendly import friendly

if TYPE_CHECKING:
    from ascgen.bench.roofline import Planner
    from ascgen.bench.schema import BenchResults
    from ascgen.bench.session import Built
    from ascgen.dsl.spec import Spec
    from ascgen.plan.model import Plan


def default_builder(
    spec_path: Path,
    spec: Spec,
    plan: Plan,
    progress: Callable[[str, int, int], None] | None = None,
    backend: str = "sim",
    build_root: Path | None = None,
) -> Built:
    """ascgen.codegen.build.build_program, imported when first needed; a failure names the variant.
    ``progress(what, done, total)`` hears the compiler's progress."""
    from ascgen.codegen.build import BuildFailed, build_program

    try:
        result: Built = build_program(spec_path, spec, plan, backend=backend, build_root=build_root, progress=progress)
    except BuildFailed as exc:
        sync = f" sync_every={spec.sync_every}" if spec.sync_every is not None else ""
        raise BuildFailed(f"build of batch={spec.batch} streams={spec.streams}{sync} failed: {exc}") from None
    return result


def profile_line(folder: Path, backend: str) -> str:
    """Where a bench's --profile put each run's profile, and what opens it."""
    traces = sorted(folder.glob("*/trace.json"))
    if traces:
        more = f" (and {len(traces) - 1} more, one per run)" if len(traces) > 1 else ""
        return f"profile: {traces[0]}{more}; open it at https://ui.perfetto.dev (docs/profiling.md)"
    if backend == "cann":
        return f"profile: msprof data per run in {folder}/<run>/; msprof --export=on --output=<that folder>"
    return f"profile: no trace was written to {folder}"


def default_out_dir(spec_name: str, now: datetime) -> Path:
    return Path("bench-results") / spec_name / now.strftime("%Y%m%d-%H%M%S")


def write_outputs(
    results: BenchResults, out_dir: Path, json_copy: Path | None, planner: Planner | None = None
) -> list[str]:
    """Every file of a bench; ``planner`` (the bench's) gives report.html the plans of the best
    and the default configuration."""
    from ascgen.bench import csvfile, html, markdown, plots
    from ascgen.bench.points import configurations
    from ascgen.bench.schema import dumps
    from ascgen.common.fileio import write_atomic

    text = dumps(results)
    write_atomic(out_dir / "results.json", text)
    if json_copy is not None:
        write_atomic(json_copy, text)
    write_atomic(out_dir / "runs.csv", csvfile.render(results))
    names = plots.write_plots(results, out_dir)
    write_atomic(out_dir / "summary.md", markdown.render(results, names))
    default = configurations(planner.spec, [], {})[0] if planner is not None else None
    write_atomic(out_dir / "report.html", html.render(results, default, planner.plan if planner else None))
    return ["results.json", "runs.csv", "summary.md", "report.html", *names]


@click.command(short_help="Build, run and measure SPEC, optionally over a sweep.")
@click.argument("spec_path", metavar="SPEC", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--threads", type=click.IntRange(min=1), help="Host threads (default: the spec's).")
@click.option("--depth", type=click.IntRange(min=1), help="Frames in flight per thread (default: the spec's).")
@options.measuring(duration=10.0, warmup=2.0)
@click.option("--repeat", type=click.IntRange(1, 100), default=3, show_default=True, help="Runs per configuration.")
@click.option(
    "--sweep",
    "sweep_texts",
    multiple=True,
    metavar="KEY=V1,V2",
    help="Values to sweep: threads, depth, batch, streams, sync_every; a server's load: clients (closed loop) "
    "or rate (requests/s, open loop), arrival (constant, poisson), time_scale; several make a cartesian product.",
)
@click.option(
    "--arrival",
    type=click.Choice(["constant", "poisson"]),
    help="A server's open-loop arrivals at --sweep rate=... (the program's default: constant).",
)
@options.time_scale_option
@click.option(
    "--stages",
    is_flag=True,
    help="Measure each device stage alone, then the assembled pipeline, as the study did (one build of the "
    "spec as the study's program: per_thread, step by step); print and write a per-stage table.",
)
@click.option(
    "--require-fps",
    is_flag=True,
    help="A video spec: exit 1 when a point's streams miss their fps or drop a frame (the table says it either way).",
)
@options.program_and_build
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), help="Results folder.")
@click.option(
    "--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Also write results JSON here."
)
@click.option(
    "--profile",
    "profile_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Profile every run into DIR/<run>/ (the program's --profile): on the simulator a trace.json to open "
    "at https://ui.perfetto.dev (docs/profiling.md), on CANN the msprof data.",
)
@friendly
def bench(
    spec_path: Path,
    threads: int | None,
    depth: int | None,
    duration: float,
    warmup: float,
    repeat: int,
    sweep_texts: tuple[str, ...],
    arrival: str | None,
    time_scale: float | None,
    input_path: Path | None,
    pin: str | None,
    stages: bool,
    require_fps: bool,
    backend: str,
    build_dir: Path,
    out_dir: Path | None,
    json_path: Path | None,
    profile_dir: Path | None,
) -> None:
    """Build, run and measure SPEC; sweep with e.g. --sweep threads=1,2,4,8.

    Several --sweep options make a cartesian product. Writes results.json, runs.csv,
    summary.md, report.html and PNG plots to --out (default bench-results/<name>/<time>/).
    Exit 1 when a point misses the spec's slo (with --require-fps: a video point its fps), 3 when a
    build or run fails.
    """
    from rich.console import Console

    from ascgen.bench import breakdown, report, session, video
    from ascgen.bench.live import monitor_for
    from ascgen.bench.points import parse_sweep
    from ascgen.bench.roofline import Planner
    from ascgen.bench.runner import RunOptions
    from ascgen.codegen.build import build_estimate_s
    from ascgen.common.console import out
    from ascgen.common.fileio import check_can_create, check_can_write

    if stages:
        if sweep_texts or depth is not None:
            raise click.UsageError("--stages measures one configuration: drop --sweep and --depth")
        _stage_study(spec_path, threads, duration, warmup, input_path, pin, build_dir, out_dir)
        return
    sweeps = [parse_sweep(t) for t in sweep_texts]
    options.check_time_scale(backend, time_scale is not None or any(s.key == "time_scale" for s in sweeps))
    given = (("threads", threads), ("depth", depth), ("arrival", arrival), ("time_scale", time_scale))
    fixed: dict[str, int | float | str] = {k: v for k, v in given if v is not None}
    planner = Planner(spec_path)
    folder = out_dir or default_out_dir(planner.spec.name, datetime.now(UTC))
    for where in (folder, build_dir, *([profile_dir] if profile_dir else [])):
        check_can_create(where)  # before minutes of building and measuring
    if json_path:
        check_can_write(json_path)
    profile = profile_dir.resolve() if profile_dir else None
    request = session.Request(
        spec_path=spec_path,
        out_dir=folder,
        options=RunOptions(duration_s=duration, warmup_s=warmup, input=input_path, pin=pin, profile=profile),
        repeat=repeat,
        sweeps=sweeps,
        fixed=fixed,
    )
    err = Console(stderr=True, highlight=False)
    with monitor_for(err, request.options) as monitor:
        builder = functools.partial(
            default_builder, progress=monitor.build_progress, backend=backend, build_root=build_dir.resolve()
        )
        try:
            estimate = functools.partial(build_estimate_s, backend=backend, build_root=build_dir.resolve())
            results = session.run_bench(request, builder, monitor, planner=planner, build_estimate=estimate)
        except session.BenchFailed as exc:
            if exc.partial is None:
                raise
            write_outputs(exc.partial, folder, None, planner)
            n = len(exc.partial.runs)
            raise session.BenchFailed(f"{exc} (the {n} run{'s' if n != 1 else ''} before it: {folder})") from None
        except session.BenchInterrupted as exc:
            if exc.partial is None:
                raise
            write_outputs(exc.partial, folder, json_path, planner)
            raise session.BenchInterrupted(f"{exc}; wrote the finished runs to {folder}") from None
    names = write_outputs(results, folder, json_path, planner)
    report.print_results(results, out)
    breakdown.print_breakdown(results, out)  # a graph program's latency by stage
    for warning in results.warnings:
        err.print(f"[yellow]warning:[/] {warning}")
    err.print(f"wrote {', '.join(names)} to {folder}")
    if profile is not None:
        err.print(profile_line(profile, backend), highlight=False, soft_wrap=True)
    fps_misses = video.missed(results.summary)
    for line in fps_misses:
        click.echo(f"video: {line}", err=True)
    if results.slo_misses:
        for miss in results.slo_misses:
            click.echo(f"SLO missed: {miss.config}: {miss.what}", err=True)
        sys.exit(EXIT_CHECK_FAILED)
    if require_fps and fps_misses:
        sys.exit(EXIT_CHECK_FAILED)


def _stage_study(
    spec_path: Path,
    threads: int | None,
    duration: float,
    warmup: float,
    input_path: Path | None,
    pin: str | None,
    build_dir: Path,
    out_dir: Path | None,
) -> None:
    import dataclasses
    import json

    from ascgen.bench import stages
    from ascgen.bench.runner import RunOptions
    from ascgen.common.console import out
    from ascgen.common.fileio import check_can_create, write_atomic

    folder = out_dir or default_out_dir(spec_path.stem + "-stages", datetime.now(UTC))
    for where in (folder, build_dir):
        check_can_create(where)
    options = RunOptions(duration_s=duration, warmup_s=warmup, input=input_path, pin=pin)
    study = stages.measure(
        spec_path,
        threads,
        options,
        folder / "raw",
        build_dir.resolve(),
        on_step=lambda what: click.echo(what, err=True),
    )
    out.print(stages.table(study))
    write_atomic(folder / "stages.md", stages.markdown(study))
    doc = {**dataclasses.asdict(study), "limit": study.limit.name, "efficiency": study.efficiency}
    write_atomic(folder / "stages.json", json.dumps(doc, indent=2) + "\n")
    click.echo(f"wrote stages.md, stages.json to {folder}", err=True)


@click.command()
@click.argument("old_path", metavar="OLD", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("new_path", metavar="NEW", type=click.Path(dir_okay=False, path_type=Path))
@options.percent(
    "--threshold", "qps_pct", 5.0, 1000, "Smallest QPS change, in percent, that counts (noise may raise it)."
)
@options.percent(
    "--p99-threshold",
    "p99_pct",
    10.0,
    1000,
    "Smallest p99 latency change, in percent, that counts (noise may raise it).",
)
@options.percent(
    "--min-matched",
    "min_matched_pct",
    100.0,
    100,
    "Share of OLD's configurations, in percent, that NEW must have measured too; fewer matched exits 1.",
    show="100: all of the baseline's configurations",
)
@click.option("--other-spec", is_flag=True, help="Compare files that measure different specs.")
@click.option(
    "--json", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Also write the comparison as JSON."
)
@click.option(
    "--markdown",
    "markdown_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the comparison as Markdown (for a pull request comment).",
)
@friendly
def compare(
    old_path: Path,
    new_path: Path,
    qps_pct: float,
    p99_pct: float,
    min_matched_pct: float,
    other_spec: bool,
    json_path: Path | None,
    markdown_path: Path | None,
) -> None:
    """Compare two bench results files as a gate; exit 1 when NEW is slower or too few matched.

    \b
    Configurations match when every key is equal: threads, depth, batch, streams,
    sync_every, devices, deploy, a server's load (clients or rate, arrival) and
    time_scale. OLD is the baseline: --min-matched (default all of its
    configurations) must be found in NEW.

    A configuration counts as slower when its median QPS drops, or its p99 latency
    rises, by more than max(threshold, 3 x the pooled coefficient of variation of
    the two measurements). Exit 2 when a file is not a results file, holds no
    runs, or measures another spec; exit 1 when a configuration is slower, when
    fewer than --min-matched of OLD's configurations were measured in NEW, or when
    none was (a comparison of nothing must not pass a gate).
    """
    from ascgen.bench.compare import check_comparable, nothing_compared, too_few_matched
    from ascgen.bench.compare import compare as compare_results
    from ascgen.bench.compare_report import markdown, print_comparison, to_json
    from ascgen.bench.schema import load_results
    from ascgen.common.console import out
    from ascgen.common.fileio import check_can_create, write_atomic

    for where in (json_path, markdown_path):
        if where is not None:
            check_can_create(where.parent)
    old, new = load_results(old_path), load_results(new_path)
    old_name, new_name = str(old_path), str(new_path)
    check_comparable(old, new, old_name, new_name, other_spec=other_spec)
    result = compare_results(old, new, min_threshold=qps_pct / 100, p99_threshold=p99_pct / 100)
    print_comparison(result, old_name, new_name, out)
    failures = [f"{len(result.slower)} configuration(s) slower"] if result.slower else []
    short = nothing_compared(old, new, old_name, new_name) if not result.rows else None
    short = short or too_few_matched(result, min_matched_pct / 100, old_name, new_name)
    failures += [short] if short else []
    if json_path is not None:
        write_atomic(json_path, to_json(result, old_name, new_name, failures))
    if markdown_path is not None:
        write_atomic(markdown_path, markdown(result, old_name, new_name, failures))
    if short:
        raise CheckFailed(short)
    if result.slower:
        sys.exit(EXIT_CHECK_FAILED)
