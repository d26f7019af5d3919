"""``ascgen calibrate``: run the probes a profile's figures come from; write a profile.

Only Click and ascgen's error model are imported at module level (ascgen.cli imports this module)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ascgen.bench.options import FiniteRange
from ascgen.codegen.cache import build_dir_option
from ascgen.common.errors import Interrupted, UserError, shown
from ascgen.common.friendly import friendly


def _ints(ctx: click.Context, param: click.Parameter, text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise click.BadParameter(f"{text!r}: give comma-separated integers") from None
    if not values or min(values) < 1:
        raise click.BadParameter(f"{text!r}: give comma-separated integers >= 1")
    return values


@click.command(short_help="Measure a device with probes; write a profile with provenance.")
@click.option("--backend", type=click.Choice(["sim", "cann"]), default="sim", show_default=True)
@click.option("--profile", "base", default="ascend310", show_default=True, help="Base profile (unmeasured figures).")
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False, path_type=Path), help="NAME.yaml")
@click.option("--sizes", default="256K,1M,4M,16M", show_default=True, help="Copy block sizes (latency + bandwidth).")
@click.option("--link-sizes", default="1M,4M", show_default=True, help="Link block sizes (profiles with links).")
@click.option("--batches", callback=_ints, help="Model batch sizes (default: the base profile's).")
@click.option("--total", default="64M", show_default=True, help="Bytes per probe run.")
@click.option("--repeat", type=click.IntRange(1, 50), default=3, show_default=True)
@click.option(
    "--executions", type=click.IntRange(1, 10000), default=64, show_default=True, help="Model runs per batch."
)
@click.option("--time-scale", type=FiniteRange(1.0, 1000.0), default=10.0, show_default=True)
@click.option("--jpegd-channels", callback=_ints, help="JPEGD channel counts (default: 1, 2, 4.. to 2 x base units).")
@click.option("--vpc-channels", callback=_ints, help="VPC channel counts (default: 1, 2, 4.. to 2 x base units).")
@click.option("--pictures", type=click.IntRange(2, 1000), default=12, show_default=True, help="Per channel and run.")
@click.option("--tasks", type=click.IntRange(10, 5000), default=400, show_default=True, help="Scheduler probe records.")
@build_dir_option
@friendly
def calibrate(
    backend: str,
    base: str,
    out_path: Path,
    sizes: str,
    link_sizes: str,
    batches: tuple[int, ...] | None,
    total: str,
    repeat: int,
    executions: int,
    time_scale: float,
    jpegd_channels: tuple[int, ...] | None,
    vpc_channels: tuple[int, ...] | None,
    pictures: int,
    tasks: int,
    build_dir: Path,
) -> None:
    """Measure the device (--backend cann) or a simulated one of --profile (--backend sim) and
    write --out: the base profile with every measured figure replaced and its provenance (probe,
    date, host, driver, spread). Put the file's folder in ASCGEN_PROFILE_PATH and name it (its
    file name) in a spec or `ascgen profile`. Ctrl-C writes what was measured so far."""
    from rich.console import Console

    from ascgen.calibrate import engines, estimate, measure
    from ascgen.common.fileio import check_can_write
    from ascgen.common.progress import StepLines, duration_text
    from ascgen.dsl import profile as profiles
    from ascgen.dsl.names import profile_name_problem
    from ascgen.transfers import probe

    if base not in profiles.available():
        raise UserError(f"unknown profile {base!r}: one of {', '.join(profiles.available())}")
    name = out_path.stem
    problem = profile_name_problem(name) if out_path.suffix == ".yaml" else "the output must be NAME.yaml"
    if problem:
        raise UserError(f"--out {shown(str(out_path))}: {problem}")
    if out_path.is_dir():
        raise UserError(f"--out {out_path}: it is a folder; name a file NAME.yaml")
    _check_not_shadowed(out_path)
    check_can_write(out_path)  # before the long work, not at the first save
    try:
        copy_sizes = [probe.parse_size(s) for s in sizes.split(",") if s.strip()]
        link_sz = [probe.parse_size(s) for s in link_sizes.split(",") if s.strip()]
        total_bytes = probe.parse_size(total)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    if len(copy_sizes) < 2:
        raise click.BadParameter("give at least two sizes: a line needs two points", param_hint="--sizes")
    base_prof = profiles.load(base)
    probe.check_fits(probe.Options(profile=base, total_bytes=total_bytes))
    model_batches = list(
        batches or (sorted(base_prof.models["resnet50"].latency_ms) if "resnet50" in base_prof.models else [])
    )
    ctx = measure.Context(base, backend, build_dir.resolve(), time_scale, repeat)
    engine_options = engines.Options(
        profile=base,
        jpegd_channels=jpegd_channels or engines.default_channels(base_prof.engines.jpegd.units),
        vpc_channels=vpc_channels or engines.default_channels(base_prof.engines.vpc.units),
        jpegd_pictures=pictures,
        vpc_pictures=pictures,
        tasks=tasks,
        repeat=repeat,
    )
    for name, counts in (
        ("--jpegd-channels", engine_options.jpegd_channels),
        ("--vpc-channels", engine_options.vpc_channels),
    ):
        if 1 not in counts or len(counts) < 2:
            raise click.BadParameter("give 1 and at least one more channel count", param_hint=name)
    ahead = estimate.estimate(
        base, backend, engine_options, copy_sizes, link_sz, total_bytes, model_batches, executions, time_scale
    )
    figures: list[measure.Figure] = []
    err = Console(stderr=True, highlight=False)
    parts = ", ".join(f"{k} {duration_text(v)}" for k, v in ahead.by_section.items() if v)
    note = f"{parts}; plus the probes' builds: seconds when cached, minutes the first time"
    with StepLines(err, "calibrate", ahead.steps, ahead.seconds, note) as progress:

        def say(text: str) -> None:
            progress.step(text)

        def per_task() -> float | None:
            found = [f.value for f in figures if f.key == "engines.scheduler.per_task_us"]
            return found[0] if found else None

        sections: list[tuple[str, Callable[[], list[measure.Figure]]]] = [
            ("engines", lambda: engines.measure(engine_options, ctx.build_root, backend, time_scale, say)),
            ("copies", lambda: measure.copies(ctx, copy_sizes, total_bytes, say, per_task())),
            ("links", lambda: measure.links(ctx, link_sz, total_bytes, say)),
            ("model batches", lambda: measure.model_batches(ctx, model_batches, executions, say)),
        ]
        done: list[str] = []
        for section, run in sections:
            try:
                figures += run()
            except KeyboardInterrupt:
                write_profile(out_path, ctx, figures, done, complete=False)
                measured = ", ".join(done) or "nothing"
                raise Interrupted(
                    f"interrupted during {section}: wrote {out_path} with what was measured ({measured})"
                ) from None
            done.append(section)
            write_profile(out_path, ctx, figures, done, complete=section == sections[-1][0])
    err.print(f"wrote {out_path}: {len(figures)} measured figures ({', '.join(done)}) over the base {base}")


def _check_not_shadowed(out_path: Path) -> None:
    """Refuse an --out whose name a profile found first by name already has (a shipped one, or an
    earlier one in ASCGEN_PROFILE_PATH): the measurement would never be used. Writing over the
    same file again (a new calibration of one's own profile) is fine."""
    from ascgen.dsl import profile as profiles

    found = profiles.found_instead(out_path)
    if found is not None:
        shipped = found.parent.resolve() == profiles.PROFILE_DIR.resolve()
        where = "ascgen ships a profile of that name" if shipped else f"{found} has that name"
        raise UserError(
            f"--out {out_path}: {where}, and the lookup by name finds it first, so this measurement would never "
            f"be used; name the file otherwise, e.g. {out_path.stem}_calibrated.yaml"
        )


def write_profile(path: Path, ctx: Any, figures: list[Any], done: list[str], complete: bool) -> None:
    """The base profile with the measured figures in, their provenance, written atomically."""
    import yaml

    from ascgen.common.fileio import write_atomic
    from ascgen.dsl import profile as profiles

    data = yaml.safe_load(profiles.path_of(ctx.base).read_text(encoding="utf-8"))
    data["name"] = path.stem
    state = "" if complete else f" (partial: {', '.join(done) or 'nothing'} measured)"
    data["description"] = f"{ctx.base} calibrated by ascgen calibrate --backend {ctx.backend}{state}"
    provenance = {}
    for fig in figures:
        node = data
        *parents, leaf = fig.key.split(".")
        for p in parents:
            node = node.setdefault(int(p) if p.isdigit() else p, {})
        node[int(leaf) if leaf.isdigit() else leaf] = fig.value
        provenance[fig.key] = ctx.provenance(fig).model_dump()
    data["provenance"] = provenance
    profiles.Profile.model_validate(data)  # never write a profile that does not load
    header = (
        f"# Written by `ascgen calibrate --backend {ctx.backend} --profile {ctx.base}`: the measured figures\n"
        "# replace the base's; `provenance` says where each comes from (spread: (max - min) / median).\n"
    )
    write_atomic(path, header + yaml.safe_dump(data, sort_keys=False, width=110))
