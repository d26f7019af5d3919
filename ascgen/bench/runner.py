"""One run of a generated program: the command line, live progress from its stderr, and its
JSON document at exit. A failure is one line naming the exit status and the program's last
words on stderr."""

from __future__ import annotations

import collections
import contextlib
import os
import re
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ascgen.bench.schema import BadResults, Config, ProgramReport, exact, parse_program_report
from ascgen.common.errors import StepFailed
from ascgen.common.friendly import stop_child

PROGRESS = re.compile(r"^progress: t=(?P<t>[0-9.]+)s frames=(?P<frames>\d+) qps=(?P<qps>[0-9.]+)\s*$")
EXIT_MEANINGS = {
    1: "verify mismatch",
    2: "bad flags",
    3: "ACL error",
    130: "interrupted (SIGINT)",
    143: "terminated (SIGTERM)",
}
STARTUP_GRACE_S = 60.0  # model loading and pool allocation before the warm-up starts


@dataclass(frozen=True)
class Progress:
    t: float
    frames: int
    qps: float


@dataclass(frozen=True)
class RunOptions:
    duration_s: float
    warmup_s: float
    input: Path | None = None
    pin: str | None = None
    extra: tuple[str, ...] = ()  # more flags for the program (e.g. --only-stage NAME)
    profile: Path | None = None  # --profile: each run profiles into profile/<its raw name>/


class RunFailed(StepFailed):
    """The program failed; the message is one line."""


def parse_progress(line: str) -> Progress | None:
    m = PROGRESS.match(line.strip())
    if not m:
        return None
    return Progress(float(m["t"]), int(m["frames"]), float(m["qps"]))


def command(binary: Path, config: Config, options: RunOptions, json_path: Path) -> list[str]:
    cmd = [str(binary), "--threads", str(config.threads), "--depth", str(config.depth)]
    cmd += ["--duration", exact(options.duration_s), "--warmup", exact(options.warmup_s)]
    cmd += ["--json", str(json_path)]  # not --quiet: it also silences the progress lines; stdout is discarded
    if options.input is not None:
        cmd += ["--input", str(options.input)]
    if options.pin is not None:
        cmd += ["--pin", options.pin]
    if options.profile is not None:
        cmd += ["--profile", str(options.profile / json_path.stem)]
    if config.clients is not None:
        cmd += ["--clients", str(config.clients)]
    if config.rate is not None:  # in the device's time: the host's is time_scale times slower
        cmd += ["--rate", exact(config.rate / (config.time_scale or 1.0))]
    if config.arrival is not None:
        cmd += ["--arrival", config.arrival]
    if config.devices is not None:
        cmd += ["--devices", config.devices]
    if config.deploy is not None:
        cmd += ["--deploy", config.deploy]
    return cmd + list(options.extra)


def environment(config: Config) -> dict[str, str] | None:
    """The program's environment: the simulator's clock slowed by the configuration's time scale."""
    if config.time_scale is None:
        return None
    return {**os.environ, "ACL_SIM_TIME_SCALE": f"{config.time_scale:g}"}


def _status(code: int) -> str:
    if code < 0:
        return f"killed by signal {-code}"
    meaning = EXIT_MEANINGS.get(code)
    return f"exit {code}" + (f", {meaning}" if meaning else "")


def last_words(lines: collections.deque[str]) -> str:
    """The last stderr line that is not a progress line (else the last line), or a placeholder."""
    for line in reversed(lines):
        if line and parse_progress(line) is None:
            return line
    return lines[-1] if lines else "(nothing on stderr)"


def run_program(
    binary: Path,
    config: Config,
    options: RunOptions,
    json_path: Path,
    on_progress: Callable[[Progress], None] | None = None,
) -> ProgramReport:
    """Run ``binary`` once for ``config``; its JSON goes to ``json_path`` (and its stderr, on
    failure, beside it as ``.stderr.txt``)."""
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.unlink(missing_ok=True)
    timeout = options.warmup_s + options.duration_s + STARTUP_GRACE_S
    tail: collections.deque[str] = collections.deque(maxlen=200)
    try:
        proc = subprocess.Popen(
            command(binary, config, options, json_path),
            env=environment(config),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            bufsize=1,
        )
    except OSError as exc:
        raise RunFailed(f"cannot start {binary}: {exc.strerror or exc}") from None
    timed_out = threading.Event()

    def kill_late() -> None:
        timed_out.set()
        stop_child(proc)

    timer = threading.Timer(timeout, kill_late)
    timer.start()
    try:
        assert proc.stderr is not None
        for raw in proc.stderr:
            line = raw.rstrip("\n")
            tail.append(line)
            progress = parse_progress(line)
            if progress is not None and on_progress is not None:
                on_progress(progress)
        code = proc.wait()
    except BaseException:  # Ctrl-C, SIGTERM: the program keeps its results and cleans up, as at its own SIGINT
        stop_child(proc)
        raise
    finally:
        timer.cancel()
    if code != 0:
        _save_log(json_path, tail)
        if timed_out.is_set() and json_path.exists():
            raise RunFailed(f"wrote its JSON but did not exit within {timeout:g} s (hung at shut-down?); killed it")
        status = f"timed out after {timeout:g} s" if timed_out.is_set() else _status(code)
        raise RunFailed(f"{status}: {last_words(tail)}")
    try:
        report = parse_program_report(json_path.read_text(encoding="utf-8"), str(json_path))
    except OSError:
        raise RunFailed(f"exit 0 but no JSON at {json_path}: {last_words(tail)}") from None
    except BadResults as exc:
        raise RunFailed(str(exc)) from None
    if report.interrupted:
        raise RunFailed(f"the program reports it was interrupted: {last_words(tail)}")
    return report


def _save_log(json_path: Path, tail: collections.deque[str]) -> None:
    with contextlib.suppress(OSError):
        json_path.with_suffix(".stderr.txt").write_text("\n".join(tail) + "\n", encoding="utf-8")
