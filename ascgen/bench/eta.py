"""How long a sweep still needs: the build still to do (estimated before it starts from the
programs not in the build cache, ascgen.codegen.build.build_estimate_s, less the time building
so far), plus the runs left times the mean wall time of the runs so far (before the first
finishes: warm-up + duration + start-up), less the current run's time."""

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
        self.build_s = 0.0
        self._build_started: float | None = None

    def planned(self, runs: int) -> None:
        self.runs = runs

    def builds_planned(self, seconds: float) -> None:
        """The build about to start is estimated at ``seconds`` (0: everything is cached)."""
        self.build_s = seconds
        self._build_started = self.clock()

    def run_started(self) -> None:
        self.build_s = 0.0  # the runs start once every program is built
        self._started = self.clock()

    def run_done(self) -> None:
        if self._started is not None:
            self.spent_s += self.clock() - self._started
        self.done += 1
        self._started = None

    def remaining_s(self) -> float:
        per_run = self.spent_s / self.done if self.done else self.nominal_run_s
        current = self.clock() - self._started if self._started is not None else 0.0
        building = self.clock() - self._build_started if self._build_started is not None else 0.0
        build_left = max(0.0, self.build_s - building)
        return build_left + max(0.0, (self.runs - self.done) * per_run - min(current, per_run))
