"""The ``ascgen`` command line. Exit codes: 0 ok, 1 a check failed, 2 bad spec or usage,
3 a build or run step failed, 70 an internal error (one line; ASCGEN_TRACEBACK=1 for the trace),
130 interrupted: ascgen.common.errors, mapped to messages by ascgen.common.friendly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from ascgen import __version__
from ascgen.bench import command as bench_command
from ascgen.calibrate import command as calibrate_command
from ascgen.codegen.cache import build_dir_option
from ascgen.common.console import out
from ascgen.common.errors import CheckFailed, UserError, shown
from ascgen.common.fileio import check_can_write, write_atomic
from ascgen.common.friendly import friendly, handle_sigterm
from ascgen.dsl import profile
from ascgen.dsl.diagnostics import SpecError
from ascgen.dsl.files import expand_specs
from ascgen.dsl.names import profile_name_problem
from ascgen.transfers import command as transfers_command
from ascgen.tune import command as tune_command

USAGE_CHARS = 300  # of Click's message, which quotes the value or command name typed


class _Commands(click.Group):
    """Click's own usage errors quote what was typed (an option's value, a command's name): cut and
    escaped as ascgen's messages are, so a 5,000-character value is not echoed whole."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            raise click.UsageError(shown(exc.format_message(), USAGE_CHARS), exc.ctx) from None


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ascgen")
def cli() -> None:
    """Declarative Ascend inference pipelines: validate, plan, generate, build, bench."""


spec_paths = click.argument("specs", nargs=-1, required=True, type=click.Path(path_type=Path))


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _expand(paths: tuple[Path, ...]) -> list[Path]:
    """Spec files, with folders expanded to the *.yaml files below them (sorted)."""
    return expand_specs(paths)


@cli.command()
@spec_paths
@click.option(
    "--backend",
    type=click.Choice(["sim", "cann"]),
    default="sim",
    show_default=True,
    help="Where it will run: cann also requires the model files to exist.",
)
@friendly
def validate(specs: tuple[Path, ...], backend: str) -> None:
    """Check spec files (or folders of them); report every problem as file:line:col.

    Also warns when an input named by the spec is missing or its SLO is above the roofline."""
    from ascgen.checks.readiness import readiness_warnings
    from ascgen.dsl.yaml_loader import load_file
    from ascgen.pipeline import analyze_file

    problems = SpecError()
    for path in _expand(specs):
        try:
            spec, plan = analyze_file(path)
        except SpecError as exc:
            problems.diagnostics += exc.diagnostics
            continue
        click.echo(
            f"{path}: ok ({_count(len(spec.stages), 'stage')}, roofline {plan.roofline_qps:,.0f} frames/s, "
            f"bottleneck {plan.bottleneck})"
        )
        for found in readiness_warnings(path, spec, plan, load_file(path)[1], backend):
            if found.severity == "error":
                problems.diagnostics.append(found)
            else:
                click.echo(found.format(), err=True)
    if problems.diagnostics:
        raise problems


@cli.command()
@click.argument("spec_path", metavar="SPEC", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
@click.option(
    "--svg", "svg_path", type=click.Path(path_type=Path), help="Also draw the graph of its stages into this SVG file."
)
@friendly
def plan(spec_path: Path, as_json: bool, svg_path: Path | None) -> None:
    """Show sizes, strides, pools, memory and the predicted bottleneck of SPEC."""
    from ascgen.pipeline import analyze_file
    from ascgen.plan.picture import graph_svg
    from ascgen.plan.report import dumps, print_plan

    if svg_path is not None:
        check_can_write(svg_path)
    _, result = analyze_file(spec_path)
    if svg_path is not None:
        write_atomic(svg_path, graph_svg(result))
    if as_json:
        click.echo(dumps(result), nl=False)
    else:
        print_plan(result, out)


@cli.command()
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write to a file.")
@friendly
def schema(output: Path | None) -> None:
    """Print the JSON Schema of the DSL (for editor completion)."""
    from ascgen.dsl.spec import Spec

    doc = Spec.model_json_schema()
    doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    doc["title"] = "ascgen pipeline spec"
    text = json.dumps(doc, indent=2, sort_keys=True) + "\n"
    if output:
        write_atomic(output, text)
    else:
        click.echo(text, nl=False)


@cli.command()
@click.argument("path", default="pipeline.yaml", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
@friendly
def init(path: Path, force: bool) -> None:
    """Write a commented example spec to PATH (default pipeline.yaml), and sample JPEGs to
    data/images/ beside it, ready for validate, plan, build and bench."""
    from ascgen.dsl.example import write_example

    written = write_example(path, force=force)
    click.echo(f"wrote {', '.join(str(p) for p in written)}")
    click.echo(f"next: ascgen validate {path} && ascgen plan {path} && ascgen bench {path}")


@cli.command()
@spec_paths
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=Path("generated"),
    show_default=True,
    help="Folder that receives one sub-folder per spec.",
)
@click.option(
    "--shared-runtime",
    is_flag=True,
    help="Write the runtime headers once, to OUT/runtime/, for all programs in OUT (as generated/ is committed) "
    "instead of into each program folder.",
)
@click.option("--check", is_flag=True, help="Write nothing; print a diff and exit 1 if OUT is stale.")
@friendly
def generate(specs: tuple[Path, ...], out_dir: Path, shared_runtime: bool, check: bool) -> None:
    """Generate the C++ program of each spec into OUT/<name>/ (atomically): a folder that builds
    alone, or with --shared-runtime one that builds beside OUT/runtime/."""
    from ascgen.codegen.generate import check_tree, refuse_mixing, render_all, write_all

    outputs = render_all(_expand(specs), out_dir, shared_runtime=shared_runtime)
    if not check:
        refuse_mixing(out_dir, shared_runtime=shared_runtime)
        write_all(outputs, out_dir)
        for name in outputs:
            click.echo(f"wrote {out_dir / name}/")
        return
    stale = check_tree(outputs, out_dir, specs_cover_all=all(p.is_dir() for p in specs))
    if stale:
        click.echo(stale, nl=False)
        again = " ".join(["ascgen generate", *(["--shared-runtime"] if shared_runtime else []), *map(str, specs)])
        raise CheckFailed(f"{out_dir}/ is stale; run: {again}")
    programs = len(outputs) - (1 if shared_runtime else 0)
    click.echo(f"{out_dir}/ is up to date ({programs} programs)")


@cli.command()
@click.argument("spec_path", metavar="SPEC", type=click.Path(path_type=Path))
@click.option("--backend", type=click.Choice(["sim", "cann"]), default="sim", show_default=True)
@click.option(
    "--sanitize", type=click.Choice(["address", "thread"]), default=None, help="address: ASan+UBSan; thread: TSan."
)
@build_dir_option
@friendly
def build(spec_path: Path, backend: str, sanitize: str | None, build_dir: Path) -> None:
    """Generate SPEC's program and build it with CMake and Ninja; print the binary's path."""
    from ascgen.codegen.build import build_variant
    from ascgen.common.fileio import check_can_create
    from ascgen.common.progress import BuildProgress

    check_can_create(build_dir)  # a user error naming it, before any work
    with BuildProgress(Console(stderr=True, highlight=False)) as progress:
        result = build_variant(
            spec_path, backend=backend, sanitize=sanitize, build_root=build_dir.resolve(), progress=progress
        )
    click.echo(result.binary)


@cli.group("cache")
def cache_group() -> None:
    """The per-user build cache: $ASCGEN_CACHE_DIR, else $XDG_CACHE_HOME/ascgen (~/.cache/ascgen)."""


def _size_text(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


@cache_group.command("info")
@build_dir_option
@friendly
def cache_info(build_dir: Path) -> None:
    """Where builds go and what each part of the cache holds."""
    from ascgen.codegen import cache

    parts = cache.info(build_dir)
    click.echo(f"build cache: {build_dir}")
    for part in parts:
        entries = f", {_count(part.entries, 'entry' if part.name != 'programs' else 'program')}" if part.entries else ""
        click.echo(f"  {part.name:<10} {_size_text(part.bytes):>10}{entries}")
    click.echo(f"  {'total':<10} {_size_text(sum(p.bytes for p in parts)):>10}")


@cache_group.command("clean")
@build_dir_option
@friendly
def cache_clean(build_dir: Path) -> None:
    """Remove every build in the cache (the next build compiles the simulator again); what is not
    a build (the CANN headers of the conformance tests) stays."""
    from ascgen.codegen import cache

    freed = cache.clean(build_dir)
    click.echo(f"removed {_size_text(freed)} from {build_dir}")


@cli.command("profile")
@click.argument("name", required=False)
@click.option("--flat", is_flag=True, help="Print the flat key=value form the simulator reads.")
@friendly
def profile_cmd(name: str | None, flat: bool) -> None:
    """List device profiles, or print one (NAME)."""
    if name is None:
        for n in profile.available():
            click.echo(n)
        return
    problem = profile_name_problem(name)
    if problem:
        raise UserError(f"{problem}; available: {', '.join(profile.available())}")
    try:
        prof = profile.load(name)
    except KeyError:
        raise UserError(f"unknown profile '{name}'; available: {', '.join(profile.available())}") from None
    if flat:
        click.echo(profile.flatten(prof), nl=False)
    else:
        click.echo(profile.path_of(name).read_text(encoding="utf-8"), nl=False)


cli.add_command(bench_command.bench)
cli.add_command(bench_command.compare)
cli.add_command(tune_command.tune)
cli.add_command(transfers_command.probe)
cli.add_command(calibrate_command.calibrate)


def main() -> None:
    handle_sigterm()
    cli.main(prog_name="ascgen")
