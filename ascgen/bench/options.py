"""The options `ascgen bench` and `ascgen tune` share: how long each run measures, what the
program reads, where it builds. One definition each, with their checks."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ascgen.codegen.cache import build_dir_option
from ascgen.common.errors import shown

F = TypeVar("F", bound=Callable[..., Any])


class FiniteRange(click.FloatRange):
    """click.FloatRange lets nan through (every comparison with it is false) and inf where there
    is no upper bound: a number of these flags must be finite and in its range."""

    name = "finite float range"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{shown(str(value))} is not a finite number", param, ctx)
        return number


def finite(param: click.Parameter, value: float) -> float:
    if not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a number", param=param)
    return value


def percent(flag: str, dest: str, default: float, high: float, help: str, show: bool | str = True) -> Callable[[F], F]:
    """A PCT option: a finite number of percent, 0..``high``."""
    return click.option(
        flag,
        dest,
        type=click.FloatRange(0, high),
        callback=lambda _ctx, param, v: finite(param, v),
        default=default,
        show_default=show,
        metavar="PCT",
        help=help,
    )


def file_or_folder(param: click.Parameter, value: Path | None) -> Path | None:
    """A regular file or a folder: the program would refuse a FIFO or a device after the build."""
    if value is not None and not (value.is_file() or value.is_dir()):
        raise click.BadParameter(f"{value} is neither a file nor a folder", param=param)
    return value


PIN = re.compile(r"^(big|little|all|[0-9]{1,5}(,[0-9]{1,5})*)$")  # the program's --pin (ascgen_host.h cpus_for)


def cpu_list(param: click.Parameter, value: str | None) -> str | None:
    """--pin as the program takes it, checked before the build rather than refused after it."""
    if value is not None and not PIN.match(value):
        raise click.BadParameter(
            f"'{shown(value)}' is not big, little, all or a comma-separated list of CPU numbers (0,2,4)", param=param
        )
    return value


time_scale_option = click.option(
    "--time-scale",
    type=FiniteRange(min=0, max=1000, min_open=True),
    help="Simulator: run the device this many times slower than the host (ACL_SIM_TIME_SCALE), so the "
    "program's own CPU does not limit it; rates given and figures reported are the device's time.",
)


def check_time_scale(backend: str, given: bool) -> None:
    """A time scale slows the simulator's clock: it means nothing to a real device."""
    if backend != "sim" and given:
        raise click.UsageError("--time-scale slows the simulator's clock: use it with --backend sim")


def seconds(name: str, default: float, high: float, what: str) -> Callable[[F], F]:
    return click.option(
        name,
        type=click.FloatRange(0.1 if name == "--duration" else 0.0, high),
        callback=lambda _ctx, param, v: finite(param, v),
        default=default,
        show_default=True,
        help=what,
    )


def measuring(duration: float, warmup: float) -> Callable[[F], F]:
    """--duration and --warmup, with a command's own defaults."""

    def decorate(fn: F) -> F:
        fn = seconds("--warmup", warmup, 3600, "Seconds before measuring.")(fn)
        return seconds("--duration", duration, 86400, "Seconds measured per run.")(fn)

    return decorate


def program_and_build(fn: F) -> F:
    """--input, --pin (passed to the program), --backend and --build-dir (as for `ascgen build`)."""
    for option in reversed(
        [
            click.option(
                "--input",
                "input_path",
                type=click.Path(exists=True, path_type=Path),
                callback=lambda _ctx, param, v: file_or_folder(param, v),
                help="The program's --input.",
            ),
            click.option(
                "--pin",
                callback=lambda _ctx, param, v: cpu_list(param, v),
                help="The program's --pin: big, little, all or a list of CPUs (0,2,4) for its threads.",
            ),
            click.option("--backend", type=click.Choice(["sim", "cann"]), default="sim", show_default=True),
            build_dir_option,
        ]
    ):
        fn = option(fn)
    return fn
