"""The ``ascgen`` command line."""

from __future__ import annotations

import sys

import click

from ascgen import __version__, profile


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ascgen")
def cli() -> None:
    """Declarative Ascend inference pipelines: validate, plan, generate, build, bench."""


@cli.command("profile")
@click.argument("name", required=False)
@click.option("--flat", is_flag=True, help="Print the flat key=value form the simulator reads.")
def profile_cmd(name: str | None, flat: bool) -> None:
    """List device profiles, or print one (NAME)."""
    if name is None:
        for n in profile.available():
            click.echo(n)
        return
    try:
        prof = profile.load(name)
    except KeyError:
        raise click.UsageError(
            f"unknown profile '{name}'; available: {', '.join(profile.available())}"
        ) from None
    if flat:
        click.echo(profile.flatten(prof), nl=False)
    else:
        click.echo((profile.PROFILE_DIR / f"{name}.yaml").read_text(encoding="utf-8"), nl=False)


def main() -> None:
    sys.exit(cli.main(standalone_mode=True))
