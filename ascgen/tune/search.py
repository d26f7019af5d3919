"""The search of ``ascgen tune``, pure: it plans, decides and records; a Measurer measures.

1. Plan every point of the grid: a point the planner refuses (memory, streams, events: a
   UserError) does not fit and is never measured.
2. Quick search: measure the planner's best guess, the knee of the roofline (the fewest
   threads reaching the highest roofline, nearest the spec's own values); when it fails,
   the next guess.
3. Neighbourhood search: measure every neighbour (one key one step) of the best point,
   skipping those whose roofline cannot beat the best measured QPS by ``min_gain`` or
   reach the SLO's min_qps; move to the new best while it beats the old by more than ``min_gain``. Stop
   when no neighbour improves, the budget is spent, or Ctrl-C.

Every decision is a Step of the trace, in order, saying why.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from ascgen.bench.schema import Config
from ascgen.common.errors import UserError
from ascgen.tune.goal import Goal, Measurement
from ascgen.tune.grid import Grid

Action = Literal["measured", "skipped", "failed"]
KNEE = 0.01  # rooflines within 1 % of the highest count as reaching it
MAX_FAILURES_IN_A_ROW = 3


class PointFailed(Exception):
    """Measuring one point failed (its build or its run); the message is one line."""


class Measurer(Protocol):
    def measure(self, config: Config) -> Measurement: ...


@runtime_checkable
class ParallelMeasurer(Protocol):
    """A measurer of several devices: ``slots`` points at once, each a Measurement or the
    PointFailed of its failure, in order."""

    slots: int

    def measure(self, config: Config) -> Measurement: ...
    def measure_many(self, configs: list[Config]) -> list[Measurement | PointFailed]: ...


class Oracle(Protocol):
    def roofline(self, config: Config) -> float:
        """The planned roofline (frames/s); raises UserError when the point does not fit."""
        ...


@dataclass(frozen=True)
class Limits:
    budget_s: float
    max_runs: int | None = None


@dataclass(frozen=True)
class Step:
    n: int  # 1-based, in the order decided
    at_s: float  # since the search started
    config: Config
    action: Action
    why: str  # "planner's best guess", "neighbour of threads=2 depth=8 (depth 8->16)"
    detail: str = ""  # why skipped, or how it failed
    roofline_qps: float | None = None
    measurement: Measurement | None = None


class Listener(Protocol):
    def planned(self, points: int, fitting: int) -> None: ...
    def deciding(self, config: Config, why: str) -> None: ...
    def step(self, step: Step) -> None: ...


class QuietListener:
    def planned(self, points: int, fitting: int) -> None: ...
    def deciding(self, config: Config, why: str) -> None: ...
    def step(self, step: Step) -> None: ...


@dataclass
class Outcome:
    goal: Goal
    points: int
    fitting: int
    steps: list[Step] = field(default_factory=list)
    stopped: str = ""
    interrupted: bool = False

    @property
    def measured(self) -> list[Step]:
        return [s for s in self.steps if s.measurement is not None]

    @property
    def best(self) -> Step | None:
        """The best measured point (it may miss the SLO: see ``winner``)."""
        top: Step | None = None
        for s in self.measured:
            if s.measurement is None:
                continue
            if top is None or top.measurement is None or self.goal.better(s.measurement, top.measurement):
                top = s
        return top

    @property
    def winner(self) -> Step | None:
        """The best measured point that meets the SLO; None when none does."""
        top = self.best
        return top if top is not None and top.measurement and self.goal.meets(top.measurement) else None


class _Stop(Exception):
    """Ends the search; the message says why."""


def short(config: Config) -> str:
    sync = f" sync_every={config.sync_every}" if config.sync_every is not None else ""
    return f"threads={config.threads} depth={config.depth} batch={config.batch} {config.streams}{sync}"


class Search:
    def __init__(
        self,
        grid: Grid,
        oracle: Oracle,
        measurer: Measurer,
        goal: Goal,
        limits: Limits,
        listener: Listener | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.grid, self.oracle, self.measurer, self.goal, self.limits = grid, oracle, measurer, goal, limits
        self.listener = listener or QuietListener()
        self.clock = clock
        self.started = clock()
        self.rooflines: dict[Config, float] = {}
        self.unfit: dict[Config, str] = {}
        self.seen: dict[Config, Step] = {}
        self.batch_s: list[float] = []  # wall time of each measurement (of several points at once)
        self.runs = 0  # points measured (or failed)
        self.outcome = Outcome(goal, points=0, fitting=0)

    def run(self) -> Outcome:
        self.started = self.clock()
        try:
            self._plan_all()
            self._quick()
            self._neighbourhood()
        except _Stop as stop:
            self.outcome.stopped = str(stop)
        except KeyboardInterrupt:
            self.outcome.stopped = "interrupted (Ctrl-C)"
            self.outcome.interrupted = True
        return self.outcome

    # -- planning -------------------------------------------------------------------------

    def _plan_all(self) -> None:
        points = self.grid.points()
        for config in points:
            try:
                self.rooflines[config] = self.oracle.roofline(config)
            except UserError as exc:
                text = str(exc)
                self.unfit[config] = text.split(": ", 1)[1] if text.startswith(config.label() + ": ") else text
        self.outcome.points, self.outcome.fitting = len(points), len(self.rooflines)
        self.listener.planned(len(points), len(self.rooflines))
        if not self.rooflines:
            first = next(iter(self.unfit.values()), "the space is empty")
            raise _Stop(f"no point of the space fits (e.g. {first})")

    def guesses(self) -> list[Config]:
        """Fitting points, the planner's best guess first."""
        fitting = list(self.rooflines)
        if self.goal.objective == "min_p99":
            floor = self.goal.min_qps or 0.0
            able = [c for c in fitting if self.rooflines[c] >= floor] or fitting
            return sorted(able, key=lambda c: (c.batch, c.threads, self.grid.distance_home(c)))
        top = max(self.rooflines.values())
        knee = [c for c in fitting if self.rooflines[c] >= top * (1 - KNEE)]
        rest = sorted((c for c in fitting if c not in knee), key=lambda c: -self.rooflines[c])
        return sorted(knee, key=lambda c: (c.threads, self.grid.distance_home(c))) + rest

    # -- measuring ------------------------------------------------------------------------

    def _quick(self) -> None:
        failures = 0
        last: Step | None = None
        for i, config in enumerate(self.guesses()):
            why = "planner's best guess" if i == 0 else "planner's next guess (the previous one failed)"
            step = self._consider(config, why)
            if step is not None and step.measurement is not None:
                return
            if step is not None and step.action == "failed":
                failures, last = failures + 1, step
            if failures >= MAX_FAILURES_IN_A_ROW:
                raise _Stop(f"{failures} points failed in a row; the last: {last.detail if last else ''}")
        # the verdict says "no point could be measured"; this says why, without saying it again
        raise _Stop(f"every fitting point tried failed ({failures}); the last: {last.detail if last else 'none tried'}")

    def _neighbourhood(self) -> None:
        """Hill-climb: measure the neighbours of the best point; move to the best of all while
        it beats the previous centre by more than min_gain. A measurer with several ``slots``
        (devices) measures that many neighbours at once."""
        slots = max(1, self.measurer.slots) if isinstance(self.measurer, ParallelMeasurer) else 1
        centre = self.outcome.best
        while centre is not None and centre.measurement is not None:
            moves = self.grid.neighbours(centre.config)
            moves.sort(key=lambda move: -self.rooflines.get(move[0], 0.0))
            pending: list[tuple[Config, str, float]] = []
            for config, change in moves:
                why = f"neighbour of {short(centre.config)} ({change})"
                roofline = self._screen(config, why)
                if roofline is not None:
                    pending.append((config, why, roofline))
                if len(pending) == slots:
                    self._measure(pending)
                    pending = []
            if pending:
                self._measure(pending)
            best = self.outcome.best
            if best is None or best.measurement is None:
                break
            if not self.goal.better(best.measurement, centre.measurement, self.goal.min_gain):
                break
            centre = best
        raise _Stop("no neighbour of the best point improves on it")

    def _consider(self, config: Config, why: str) -> Step | None:
        """Skip, measure or record the failure of ``config``; None when it was decided before."""
        if config in self.seen:
            return None
        roofline = self._screen(config, why)
        if roofline is None:
            return self.seen.get(config)
        return self._measure([(config, why, roofline)])[0]

    def _screen(self, config: Config, why: str) -> float | None:
        """The roofline of a point worth measuring; None when it was decided before, is
        outside the grid, or is skipped now (recorded)."""
        if config in self.seen:
            return None
        if config in self.unfit:
            self._record(config, "skipped", why, f"does not fit: {self.unfit[config]}")
            return None
        if config not in self.rooflines:
            return None  # outside the grid
        roofline = self.rooflines[config]
        reason = self._hopeless(roofline)
        if reason:
            self._record(config, "skipped", why, reason, roofline)
            return None
        return roofline

    def _measure(self, batch: list[tuple[Config, str, float]]) -> list[Step]:
        """Measure the points of ``batch`` (at once when there are several) and record them."""
        batch = batch[: self._check_limits(len(batch))]
        for config, why, _ in batch:
            self.listener.deciding(config, why)
        t0 = self.clock()
        try:
            results = self._results([config for config, _, _ in batch])
        finally:
            self.batch_s.append(self.clock() - t0)
            self.runs += len(batch)
        steps = []
        for (config, why, roofline), result in zip(batch, results, strict=True):
            if isinstance(result, PointFailed):
                steps.append(self._record(config, "failed", why, str(result), roofline))
            else:
                steps.append(self._record(config, "measured", why, "", roofline, result))
        return steps

    def _results(self, configs: list[Config]) -> list[Measurement | PointFailed]:
        if len(configs) > 1 and isinstance(self.measurer, ParallelMeasurer):
            return self.measurer.measure_many(configs)
        out: list[Measurement | PointFailed] = []
        for config in configs:
            try:
                out.append(self.measurer.measure(config))
            except PointFailed as exc:
                out.append(exc)
        return out

    def _hopeless(self, roofline: float) -> str:
        """Why a point with this roofline cannot win; empty when it might."""
        floor = self.goal.min_qps
        if floor is not None and roofline < floor:
            return f"cannot reach min_qps {floor:g}: roofline {roofline:,.1f}"
        best = self.outcome.winner  # the best point that meets the SLO
        if self.goal.objective != "max_qps" or best is None or best.measurement is None:
            return ""
        qps = best.measurement.qps
        if roofline <= qps * (1 + self.goal.min_gain):
            return f"cannot beat the best by {self.goal.min_gain:.0%}: roofline {roofline:,.1f}, best {qps:,.1f} QPS"
        return ""

    def _check_limits(self, wanted: int) -> int:
        """How many of ``wanted`` points may still be measured (at least one), or stop."""
        if self.limits.max_runs is not None and self.runs >= self.limits.max_runs:
            raise _Stop(f"measured {self.runs} points (--max-runs)")
        elapsed = self.clock() - self.started
        mean = sum(self.batch_s) / len(self.batch_s) if self.batch_s else 0.0
        if self.batch_s and elapsed + mean > self.limits.budget_s:
            raise _Stop(f"budget spent: {elapsed:,.0f} s of {self.limits.budget_s:,.0f} s, a point takes {mean:,.0f} s")
        return wanted if self.limits.max_runs is None else min(wanted, self.limits.max_runs - self.runs)

    def _record(
        self,
        config: Config,
        action: Action,
        why: str,
        detail: str,
        roofline: float | None = None,
        measurement: Measurement | None = None,
    ) -> Step:
        n = len(self.outcome.steps) + 1
        step = Step(n, self.clock() - self.started, config, action, why, detail, roofline, measurement)
        self.outcome.steps.append(step)
        self.seen[config] = step
        self.listener.step(step)
        return step

    def runs_left(self) -> int:
        """A guess at the measurements still to come (for an ETA): what the budget allows,
        at most the fitting points not yet decided."""
        undecided = max(0, len(self.rooflines) - sum(1 for c in self.seen if c in self.rooflines))
        left = self.limits.budget_s - (self.clock() - self.started)
        per_point = sum(self.batch_s) / self.runs if self.runs else 0.0
        by_budget = int(left / per_point) if per_point > 0 and left > 0 else undecided
        if self.limits.max_runs is not None:
            by_budget = min(by_budget, self.limits.max_runs - self.runs)
        return max(0, min(undecided, by_budget))
