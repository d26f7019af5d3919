"""Long jobs tell where they are: in a log, one line up front with the estimate and one per
step with the time spent and left; on a terminal, a live bar."""

from __future__ import annotations

import io
from dataclasses import dataclass

from rich.console import Console

from ascgen.common.progress import StepLines


@dataclass
class Clock:
    now: float = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_log_gets_the_estimate_then_a_line_per_step() -> None:
    sink = io.StringIO()
    clock = Clock()
    with StepLines(Console(file=sink, width=200), "calibrate", 4, 60.0, "plus builds", every=3600, clock=clock) as p:
        clock.now = 100.0  # the first step holds a build
        p.step("engines: kDispatch")
        clock.now = 120.0
        p.step("copies: copy_h2d 1M")
        clock.now = 140.0
        p.step("copies: copy_d2h 1M")
        clock.now = 150.0
        p.step("model: batch 1")
    assert sink.getvalue().splitlines() == [
        "calibrate: 4 steps, about 1m00s (plus builds)",
        "calibrate [1/4] engines: kDispatch: 1m40s spent, about 45s left",  # the estimate's share
        "calibrate [2/4] copies: copy_h2d 1M: 2m00s spent, about 40s left",  # the pace since the first
        "calibrate [3/4] copies: copy_d2h 1M: 2m20s spent, about 20s left",
        "calibrate [4/4] model: batch 1: 2m30s spent",
    ]


def test_before_the_first_step_the_time_left_is_the_estimate() -> None:
    clock = Clock()
    lines = StepLines(Console(file=io.StringIO()), "calibrate", 4, 100.0, clock=clock)
    clock.now = 30.0
    assert lines.left_s() == 70.0
    assert StepLines(Console(file=io.StringIO()), "probe", 4, clock=clock).left_s() is None  # no estimate


def test_a_terminal_gets_a_live_bar_not_lines() -> None:
    sink = io.StringIO()
    console = Console(file=sink, force_terminal=True, width=120)
    with StepLines(console, "calibrate", 2, 5.0) as p:
        p.step("one")
        p.step("two")
    text = sink.getvalue()
    assert "calibrate: 2 steps, about 5s" in text
    assert "[1/2]" not in text and "2/2" in text  # the bar's count, not a log line
