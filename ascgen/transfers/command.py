"""``ascgen probe transfer``: build the transfer probe, run it, print and write its table.

Only Click, ascgen's error model and the Direction enum are imported at module level (ascgen.cli
imports this module); the rest is loaded when a command runs."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ascgen.bench.options import FiniteRange
from ascgen.codegen.cache import build_dir_option
from ascgen.common.errors import Interrupted, UserError
from ascgen.common.friendly import friendly
from ascgen.transfers.direction import Direction

if TYPE_CHECKING:
    from ascgen.transfers.probe import Options, Row


def _choices(allowed: tuple[str, ...]) -> Callable[[click.Context, click.Parameter, str], tuple[str, ...]]:
    def parse(ctx: click.Context, param: click.Parameter, text: str) -> tuple[str, ...]:
        values = tuple(v.strip() for v in text.split(",") if v.strip())
        bad = [v for v in values if v not in allowed]
        if bad or not values:
            raise click.BadParameter(f"{text!r}: give a comma-separated list of {', '.join(allowed)}")
        return values

    return parse


def _sizes(ctx: click.Context, param: click.Parameter, text: str) -> tuple[int, ...]:
    from ascgen.transfers.probe import parse_size

    try:
        return tuple(sorted({parse_size(v) for v in text.split(",") if v.strip()}))
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@click.group(short_help="Measure what the device does (transfers).")
def probe() -> None:
    """Generated probe programs that measure the device's figures."""


@probe.command(short_help="Transfer bandwidth by block size, in HIXL's layout.")
@click.option("--profile", "profile_name", default="atlas_a3", show_default=True, help="Device profile.")
@click.option(
    "--links",
    default="copy,hccs,rdma",
    show_default=True,
    callback=_choices(("copy", "hccs", "rdma")),
    help="copy: aclrtMemcpy over the host link; hccs, rdma: transfers to a peer (simulator only).",
)
@click.option(
    "--directions",
    default=",".join(Direction),
    show_default=True,
    callback=_choices(tuple(Direction)),
    help="Where the bytes are at each end (a copy: source, destination; a link: local, remote).",
)
@click.option("--sizes", default="64K,256K,1M,4M,16M", show_default=True, callback=_sizes, help="Block sizes.")
@click.option(
    "--host-memory", default="pinned", show_default=True, callback=_choices(("pinned", "pageable")), help="Copies."
)
@click.option("--merged/--unmerged", default=False, show_default=True, help="Copies: the run's blocks as one copy.")
@click.option("--pool", "pool_text", default="off,on", show_default=True, callback=_choices(("on", "off")))
@click.option("--op", "ops", default="write,read", show_default=True, callback=_choices(("write", "read")))
@click.option("--hosts", default="one_host,two_hosts", show_default=True, callback=_choices(("one_host", "two_hosts")))
@click.option("--total", default="128M", show_default=True, help="Bytes moved per case (HIXL: 128 MiB).")
@click.option("--repeat", type=click.IntRange(1, 100), default=3, show_default=True, help="Runs per case (median).")
@click.option(
    "--time-scale",
    type=FiniteRange(1.0, 1000.0),
    default=20.0,
    show_default=True,
    help="Simulator: ACL_SIM_TIME_SCALE, so the simulator's own CPU does not limit a figure (model time).",
)
@click.option(
    "--unit",
    type=click.Choice(["GiB", "GB"]),
    default="GiB",
    show_default=True,
    help="The tables' and plot's unit per second: GiB = 2^30 bytes, what HIXL's tables call GB/s "
    "(so they read against its page); GB = 10^9 bytes. results.json and transfers.csv are in GB.",
)
@click.option("--backend", type=click.Choice(["sim", "cann"]), default="sim", show_default=True)
@build_dir_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), help="Results folder.")
@friendly
def transfer(
    profile_name: str,
    links: tuple[str, ...],
    directions: tuple[Direction, ...],
    sizes: tuple[int, ...],
    host_memory: tuple[str, ...],
    merged: bool,
    pool_text: tuple[str, ...],
    ops: tuple[str, ...],
    hosts: tuple[str, ...],
    total: str,
    repeat: int,
    time_scale: float,
    unit: str,
    backend: str,
    build_dir: Path,
    out_dir: Path | None,
) -> None:
    """Build the transfer probe for PROFILE, run it and print bandwidth per block size and column.

    Writes results.json, transfers.csv, table.md, transfers.png and report.html to --out (default
    probe-results/transfer/<time>/). Ctrl-C keeps the cases already measured."""
    from ascgen.dsl import profile as profiles
    from ascgen.transfers.probe import Options, check_fits, parse_size

    if profile_name not in profiles.available():
        raise UserError(f"unknown profile {profile_name!r}: one of {', '.join(profiles.available())}")
    try:
        total_bytes = parse_size(total)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--total") from None
    if max(sizes) > total_bytes:
        raise click.BadParameter(f"a block of {max(sizes)} bytes is larger than --total {total}", param_hint="--sizes")
    options = Options(
        profile=profile_name,
        links=links,
        directions=tuple(Direction(d) for d in directions),
        sizes=sizes,
        host_memory=host_memory,
        merged=merged,
        pool=tuple(p == "on" for p in pool_text),
        ops=ops,
        hosts=hosts,
        total_bytes=total_bytes,
        repeat=repeat,
    )
    check_fits(options)  # before the build and its progress
    folder = out_dir or default_out_dir(datetime.now(UTC))
    run_and_write(options, folder, build_dir.resolve(), backend, time_scale, unit)


def default_out_dir(now: datetime) -> Path:
    return Path("probe-results") / "transfer" / now.strftime("%Y%m%d-%H%M%S")


def run_and_write(
    options: Options, folder: Path, build_root: Path, backend: str, time_scale: float, unit: str = "GiB"
) -> None:
    from rich.console import Console

    from ascgen.common.console import out
    from ascgen.common.fileio import check_can_create
    from ascgen.common.progress import BuildProgress, StepLines
    from ascgen.transfers import estimate, probe, report

    check_can_create(folder)
    err = Console(stderr=True, highlight=False)
    n = len(probe.cases(options))
    rows: list[Row] = []
    with BuildProgress(err) as building:
        binary = probe.build(options, build_root, backend, progress=building)
    ahead = estimate.seconds(options, backend, time_scale)
    with StepLines(err, "probe", n, ahead, f"{options.repeat} x {options.total_bytes:,} bytes per case") as progress:

        def on_row(row: Row) -> None:
            rows.append(row)
            progress.step(f"{row.column} {probe.size_label(row.block_bytes)}")

        try:
            probe.run(binary, options, time_scale=time_scale, on_row=on_row)
        except KeyboardInterrupt:
            _write(folder, rows, options, backend, time_scale, unit, complete=False)
            raise Interrupted(f"interrupted: wrote the {len(rows)} finished cases of {n} to {folder}") from None
    names = _write(folder, rows, options, backend, time_scale, unit, complete=True)
    from rich.table import Table

    for title, header, body in report.table(rows, unit):
        shown, legend = report.fitted_header(header, body, out.width)
        t = Table(title=title, title_justify="left")
        for h in shown:
            t.add_column(h, justify="right", no_wrap=True)
        for line in body:
            t.add_row(*line)
        out.print(t)
        if legend:
            out.print("  ".join(legend), highlight=False)
    err.print(f"wrote {', '.join(names)} to {folder}")


def _write(
    folder: Path, rows: list[Row], options: Options, backend: str, time_scale: float, unit: str, complete: bool
) -> list[str]:
    import dataclasses
    import platform

    from ascgen.common.fileio import write_atomic
    from ascgen.transfers import html, report

    meta: dict[str, object] = {
        "probe": "transfer",
        "options": dataclasses.asdict(options),
        "backend": backend,
        "time_scale": time_scale if backend == "sim" else None,
        "host": platform.node(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "complete": complete,
        "GBps": "10^9 bytes per second (HIXL's tables: 2^30)",
    }
    write_atomic(folder / "results.json", report.to_json(rows, meta))
    write_atomic(folder / "transfers.csv", report.to_csv(rows))
    write_atomic(folder / "table.md", report.markdown(rows, unit=unit))
    names = ["results.json", "transfers.csv", "table.md"]
    if rows:
        report.plot(rows, folder / "transfers.png", f"transfer probe, profile {options.profile}", unit)
        names.append("transfers.png")
    context = (
        f"profile {options.profile}, backend {backend} on {meta['host']}, {meta['date']}; "
        f"{options.repeat} repeat(s) of {options.total_bytes:,} bytes per case"
        + ("" if complete else "; interrupted: the cases measured before Ctrl-C")
    )
    write_atomic(folder / "report.html", html.render(rows, f"ascgen probe transfer: {options.profile}", context, unit))
    return [*names, "report.html"]
