"""The engine probe (templates/probes/engines.cpp.j2) and the profile figures it measures.

- dispatch: the host's cost of one asynchronous call (``engines.host.submit_us``: the median host
  time of queueing one of many event records on a stream held behind a device copy) and the task
  scheduler's cost of one task (``engines.scheduler.per_task_us``: device time between those
  records once the copy ends, each record waiting for the scheduler alone);
- JPEGD and VPC by channel count: pictures per second with 1..N channels (a stream each) at two
  picture sizes. One channel runs its pictures one after the other, so a picture's time less the
  scheduler's per task is the engine's service time; a line through the two sizes gives
  ``base_us`` (intercept) and ``per_mpixel_us`` (slope; JPEGD: source megapixels, VPC: output
  megapixels). Channels beyond the engine's units add nothing: ``units`` is the top throughput
  over one channel's.

Probes are generated programs: the same source builds against CANN (tests/programs compile it
against the real headers) and runs on a device."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from ascgen import __version__
from ascgen.calibrate.measure import Figure
from ascgen.codegen.probe import ProbeFailed, build_probe, run_probe, source_dir
from ascgen.codegen.render import clang_format, environment
from ascgen.common.errors import StepFailed
from ascgen.common.resources import simulator_dir
from ascgen.dsl import profile as profiles

NAME = "probe_engines"
PICTURES = Path(__file__).with_name("pictures")
# JPEGD decodes these (two sizes: the line needs two points); VPC resizes this input to each output.
JPEGS = (PICTURES / "picture_1024x1536.jpg", PICTURES / "picture_768x512.jpg")
VPC_INPUT = (1280, 720)
VPC_OUTPUTS = ((1280, 720), (640, 360))
# acldvppChannelMode bits (CANN: DVPP_CHNMODE_VPC = 1, DVPP_CHNMODE_JPEGD = 2).
_MODE = {"vpc": 1, "jpegd": 2}


@dataclass(frozen=True)
class Options:
    profile: str  # the base profile: picture layouts, channel modes, the gate's size
    jpegd_channels: tuple[int, ...] = (1, 2, 4)
    vpc_channels: tuple[int, ...] = (1, 2, 4, 8)
    jpegd_pictures: int = 12  # per channel and run
    vpc_pictures: int = 12
    tasks: int = 400  # event records per dispatch run
    repeat: int = 3


def default_channels(units: int) -> tuple[int, ...]:
    """1, 2, 4, ... up to twice the base profile's units (at least 4): the curve must flatten."""
    out, n = [], 1
    while n <= max(2 * units, 4):
        out.append(n)
        n *= 2
    return tuple(out)


@dataclass(frozen=True)
class Case:
    kind: str  # kDispatch / kJpegd / kVpc
    channels: int = 1
    count: int = 0  # jpegd, vpc: pictures per channel; dispatch: event records
    picture: int = 0
    width: int = 0
    height: int = 0


def cases(options: Options) -> list[Case]:
    out = [Case("kDispatch", count=options.tasks)]
    for n in options.jpegd_channels:
        pictures = (0, 1) if n == 1 else (0,)  # the line at one channel, the curve at the large size
        out += [Case("kJpegd", n, options.jpegd_pictures, picture=p) for p in pictures]
    for n in options.vpc_channels:
        sizes = VPC_OUTPUTS if n == 1 else VPC_OUTPUTS[:1]
        out += [Case("kVpc", n, options.vpc_pictures, width=w, height=h) for w, h in sizes]
    return out


def gate_bytes(options: Options) -> int:
    """The gate copy: long enough that the host queues every record before it ends (five times
    the base profile's submit cost, plus 2 ms), at most 1 GiB."""
    engines = profiles.load(options.profile).engines
    gate_us = 5 * (options.tasks + 2) * max(engines.host.submit_us, 1.0) + 2000
    return int(min(gate_us * engines.d2d.bandwidth_GBps * 1e3, 1 << 30)) // 4096 * 4096


def render(options: Options, out_dir: Path) -> dict[str, str]:
    prof = profiles.load(options.profile)
    env = environment()
    modes = prof.features.channel_modes
    main = env.get_template("probes/engines.cpp.j2").render(
        version=__version__,
        name=NAME,
        cases=[asdict(c) for c in cases(options)],
        repeat=options.repeat,
        device=0,
        gate_bytes=gate_bytes(options),
        jpegd_align=prof.align.jpegd_out,
        vpc_in_align=prof.align.vpc_in,
        vpc_out_align=prof.align.vpc_out,
        vpc_in={"width": VPC_INPUT[0], "height": VPC_INPUT[1]},
        jpegd_mode=_MODE["jpegd"] if modes else 0,
        vpc_mode=_MODE["vpc"] if modes else 0,
    )
    sim = os.path.relpath(simulator_dir(), out_dir)
    cmake = env.get_template("probes/CMakeLists.txt.j2").render(
        version=__version__, name=NAME, simulator_dir=f"${{CMAKE_CURRENT_SOURCE_DIR}}/{sim}"
    )
    return {"main.cpp": clang_format(main, "main.cpp"), "CMakeLists.txt": cmake}


def build(options: Options, build_root: Path, backend: str = "sim", sanitize: str | None = None) -> Path:
    """Renders and compiles the probe in build_root/probes/<name>-<hash>/; returns the binary."""
    return build_probe(NAME, render(options, source_dir(build_root, NAME)), build_root, backend, sanitize)


def run(
    binary: Path,
    options: Options,
    time_scale: float = 1.0,
    on_line: Callable[[dict[str, object]], None] | None = None,
    env: dict[str, str] | None = None,
) -> list[dict[str, object]]:
    """Runs the probe (on the simulator with the profile's flat form); one dict per case."""
    cmd = [str(binary), "--repeat", str(options.repeat)]
    for jpeg in JPEGS:
        cmd += ["--jpeg", str(jpeg)]
    return run_probe(cmd, options.profile, _parse_line, on_line, time_scale, env)


def _parse_line(text: str) -> dict[str, object]:
    try:
        data: dict[str, object] = json.loads(text)
    except ValueError as exc:
        raise ProbeFailed(f"the engine probe printed a line that is not a result: {text[:200]!r}") from exc
    return data


def _f(line: dict[str, object], key: str) -> float:
    return float(line[key])  # type: ignore[arg-type]


def _spread(line: dict[str, object], key: str = "seconds") -> float:
    return (_f(line, "seconds_max") - _f(line, "seconds_min")) / _f(line, key) if _f(line, key) > 0 else 0.0


def figures(lines: Sequence[dict[str, object]], options: Options) -> list[Figure]:
    """The profile figures from the probe's lines."""
    what = f"ascgen calibrate (probe_engines, {options.repeat} runs, median)"
    (dispatch,) = [x for x in lines if x["probe"] == "dispatch"]
    tasks = int(_f(dispatch, "tasks"))
    if _f(dispatch, "host_seconds") >= _f(dispatch, "gate_seconds"):
        raise StepFailed(
            "the engine probe's gate copy ended before the host had queued its records: the "
            "scheduler's cost would include the host's (a larger engines.d2d figure in the base profile "
            "makes the gate longer)"
        )
    per_task = _f(dispatch, "device_seconds") / (tasks - 1) * 1e6
    submit = _f(dispatch, "host_call_seconds") * 1e6  # the median call
    out = [
        Figure(
            "engines.scheduler.per_task_us",
            round(per_task, 3),
            f"{what}: {tasks} event records, device time",
            _spread(dispatch, "device_seconds"),
            options.repeat,
        ),
        Figure(
            "engines.host.submit_us",
            round(submit, 3),
            f"{what}: {tasks} event records, host time of the median call",
            _spread(dispatch, "device_seconds"),
            options.repeat,
        ),
    ]
    for engine in ("jpegd", "vpc"):
        mine = [x for x in lines if x["probe"] == engine]
        ones = [x for x in mine if _f(x, "channels") == 1]
        if len(ones) != 2:
            raise StepFailed(f"the engine probe measured {engine} at one channel {len(ones)} times, not 2")
        # Between the lane's two events: its pictures, each dispatched after the one before, and
        # the end event's own dispatch.
        points = [
            (_f(x, "width") * _f(x, "height") / 1e6, (_f(x, "seconds") * 1e6 - per_task) / _f(x, "pictures") - per_task)
            for x in ones
        ]
        (m0, t0), (m1, t1) = points
        slope = (t1 - t0) / (m1 - m0)
        base = t0 - slope * m0
        big = max(points)[0]
        curve = [x for x in mine if abs(_f(x, "width") * _f(x, "height") / 1e6 - big) < 1e-9]
        rate = {int(_f(x, "channels")): _f(x, "pictures") / _f(x, "seconds") for x in curve}
        units = max(1, round(max(rate.values()) / rate[1]))
        spread = max(_spread(x) for x in mine)
        sweep = ",".join(str(n) for n in sorted(rate))
        if units >= max(rate):
            sweep += " (no flattening: units is at least this; probe more channels)"
        sizes = " and ".join(f"{int(_f(x, 'width'))}x{int(_f(x, 'height'))}" for x in ones)
        out += [
            Figure(f"engines.{engine}.units", units, f"{what}: {engine} on {sweep} channels", spread, options.repeat),
            Figure(
                f"engines.{engine}.base_us",
                round(max(base, 0.0), 2),
                f"{what}: {engine} at {sizes}, one channel, less the scheduler's per task",
                spread,
                options.repeat,
            ),
            Figure(
                f"engines.{engine}.per_mpixel_us",
                round(slope, 2),
                f"{what}: {engine} at {sizes}, one channel",
                spread,
                options.repeat,
            ),
        ]
    return out


def steps(options: Options) -> int:
    return len(cases(options))


def measure(
    options: Options, build_root: Path, backend: str, time_scale: float, say: Callable[[str], None]
) -> list[Figure]:
    """Build the probe, run it, and return its figures."""
    binary = build(options, build_root, backend)

    def on_line(line: dict[str, object]) -> None:
        channels = f" on {line['channels']} channels" if "channels" in line else ""
        say(f"engines: {line['probe']}{channels}")

    return figures(run(binary, options, time_scale, on_line), options)
