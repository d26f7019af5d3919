"""Progress while a bench or a build runs: a bar with the time left on a terminal, plain
periodic lines otherwise (a log gets no bar frames and is never silent for long)."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from bench_helpers import SPEC, FakeBuilder
from click.testing import CliRunner
from rich.console import Console

from ascgen.bench import command
from ascgen.bench.eta import SweepEta
from ascgen.bench.live import LiveMonitor, PlainMonitor
from ascgen.bench.runner import Progress, RunOptions
from ascgen.bench.schema import Config, load_results
from ascgen.cli import cli
from ascgen.codegen import build
from ascgen.common.progress import BuildProgress, duration_text

OPTIONS = RunOptions(duration_s=5, warmup_s=1)
CONFIG = Config(threads=2, depth=4, batch=16, streams="per_stage", sync_every=None)


def console(terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=200), out


def test_the_time_left_follows_the_runs_measured() -> None:
    now = [0.0]
    eta = SweepEta(nominal_run_s=7.0, clock=lambda: now[0])
    eta.planned(4)
    assert eta.remaining_s() == 28.0  # nothing measured yet: warm-up + duration + start-up
    eta.run_started()
    now[0] = 10.0
    eta.run_done()
    assert eta.remaining_s() == 30.0  # runs take 10 s here
    eta.run_started()
    now[0] = 14.0
    assert eta.remaining_s() == 26.0
    assert [duration_text(s) for s in (45, 185, 3720)] == ["45s", "3m05s", "1h02m"]


def test_without_a_terminal_a_bench_prints_lines_and_a_heartbeat() -> None:
    con, out = console(terminal=False)
    with PlainMonitor(con, OPTIONS, every=0.05) as monitor:
        monitor.planned(2)
        monitor.run_started(CONFIG, 1, 1)
        monitor.progress(Progress(3.0, 2100, 700.0))
        time.sleep(0.4)
    lines = out.getvalue().splitlines()
    assert lines[0] == "bench: 2 runs, about 14s"
    assert lines[1] == "[0/2, ETA 14s] threads=2 depth=4 batch=16 streams=per_stage [1/1]: starting"
    assert any(line.endswith("[1/1]: t=3s 700.0 QPS") and "ETA" in line for line in lines[2:])
    assert "\x1b" not in out.getvalue() and "━" not in out.getvalue()


def test_on_a_terminal_the_bar_shows_runs_and_time_left() -> None:
    con, out = console(terminal=True)
    with LiveMonitor(con, OPTIONS) as monitor:
        monitor.planned(3)
        monitor.run_started(CONFIG, 1, 1)
        monitor.progress(Progress(2.0, 1400, 700.0))
        monitor.bar.refresh()
        assert "0/3 runs" in out.getvalue() and "ETA 21s" in out.getvalue()


def test_a_bench_in_a_log_has_no_bar_frames(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(command, "default_builder", fake_builder)
    args = ["bench", str(SPEC), "--sweep", "threads=1,2", "--duration", "6", "--warmup", "0", "--repeat", "1"]
    result = CliRunner().invoke(cli, [*args, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "━" not in result.stderr and "\x1b" not in result.stderr
    assert "[0/2, ETA" in result.stderr and "[2/2, ETA 0s]" in result.stderr
    assert len(load_results(tmp_path / "results.json").runs) == 2


def test_a_build_without_a_terminal_says_what_it_does(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    con, out = console(terminal=False)
    with BuildProgress(con, every=0.05) as progress:
        progress("configure the simulator", 0, 0)
        progress("build the simulator", 0, 0)
        progress("build the simulator", 3, 40)
        time.sleep(0.3)
    lines = out.getvalue().splitlines()
    assert lines[0] == "build: configure the simulator, 0s"
    assert lines[1] == "build: build the simulator, 0s"
    assert any(line.startswith("build: build the simulator [3/40], ") for line in lines[2:])  # the heartbeat


def test_ascgen_build_reports_its_steps_in_a_log(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def fake_build(spec_path: Path, **kwargs: object) -> object:
        progress = kwargs["progress"]
        progress("configure", 0, 0)  # type: ignore[operator]
        progress("build", 1, 2)  # type: ignore[operator]
        return type("Built", (), {"binary": tmp_path / "prog"})()

    monkeypatch.setattr(build, "build_variant", fake_build)
    result = CliRunner().invoke(cli, ["build", str(SPEC), "--build-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{tmp_path / 'prog'}\n"
    assert result.stderr.splitlines()[:2] == ["build: configure, 0s", "build: build [1/2], 0s"]
