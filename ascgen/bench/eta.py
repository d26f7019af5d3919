"""How long a sweep still needs: the runs left times the mean wall time of the runs so far
(before the first finishes: warm-up + duration + start-up), less the current run's time."""

from __future__ import annotations

import time
from collections.abc import Callable

STARTUP_S = 1.0  # a program's start-up and shut-down, before a run has been timed


class SweepEta:
    def __init__(self, nominal_run_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.nominal_run_s = nominal_run_s
        self.clock = clock
        self.runs = 0
        self.done = 0
        self.spent_s = 0.0
        self._started: float | None = None

    def planned(self, runs: int) -> None:
        self.runs = runs

    def run_started(self) -> None:
        self._started = self.clock()

    def run_done(self) -> None:
        if self._started is not None:
            self.spent_s += self.clock() - self._started
        self.done += 1
        self._started = None

    def remaining_s(self) -> float:
        per_run = self.spent_s / self.done if self.done else self.nominal_run_s
        current = self.clock() - self._started if self._started is not None else 0.0
        return max(0.0, (self.runs - self.done) * per_run - min(current, per_run))
