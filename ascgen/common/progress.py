"""Progress of long steps for people and for logs: a Rich bar on a terminal; plain lines
otherwise, one when a step starts and then one every few seconds (a heartbeat, so a log is
never silent for long and never holds a bar's frames). BuildProgress follows a build,
StepLines a job of counted steps with an estimate up front."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Self

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

HEARTBEAT_S = 10.0
# done and total of a build step that found its result in the cache: its ``what`` is the one line shown
CACHED = -1


def duration_text(seconds: float) -> str:
    """45s, 3m05s, 1h02m."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class PlainLines:
    """Lines on a console without a terminal: ``say`` prints now; ``status`` sets what the
    heartbeat repeats every ``every`` seconds while nothing else was printed."""

    def __init__(self, console: Console, every: float = HEARTBEAT_S, clock: Callable[[], float] = time.monotonic):
        self.console = console
        self.every = every
        self.clock = clock
        self._status: Callable[[], str] | None = None
        self._last = clock()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="ascgen-heartbeat", daemon=True)

    def __enter__(self) -> PlainLines:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()

    def say(self, text: str) -> None:
        with self._lock:
            self.console.print(text, highlight=False, soft_wrap=True)
            self._last = self.clock()

    def status(self, text: Callable[[], str] | None) -> None:
        """What the heartbeat prints (computed when it prints); None: nothing to repeat."""
        with self._lock:
            self._status = text

    def _beat(self) -> None:
        while not self._stop.wait(min(self.every, 1.0)):
            with self._lock:
                due = self._status is not None and self.clock() - self._last >= self.every
                status = self._status
            if due and status is not None:
                self.say(status())


class _BarOrLines:
    """A live bar on a terminal, plain lines (with the heartbeat) otherwise: the subclass makes
    ``bar`` and ``lines`` and may say something first (``_first``)."""

    terminal: bool
    bar: Progress
    lines: PlainLines

    def _first(self) -> None:
        """What to show before the bar starts or the first line."""

    def __enter__(self) -> Self:
        if self.terminal:
            self._first()
            self.bar.start()
        else:
            self.lines.__enter__()
            self._first()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self.terminal:
            self.bar.stop()
        else:
            self.lines.__exit__(kind, exc, tb)


class BuildProgress(_BarOrLines):
    """Hears ``progress(what, done, total)`` from a build (ascgen.codegen.build) and shows it."""

    def __init__(self, console: Console, every: float = HEARTBEAT_S) -> None:
        self.terminal = console.is_terminal
        self.bar = Progress(
            TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
            TimeElapsedColumn(), console=console, transient=True,
        )  # fmt: skip
        self.task = self.bar.add_task("build", total=None)
        self.lines = PlainLines(console, every)
        self.what = ""
        self.done = self.total = 0
        self.started = time.monotonic()

    def __call__(self, what: str, done: int, total: int) -> None:
        if done == CACHED:  # one line: nothing to build
            if self.terminal:
                self.bar.console.print(what, highlight=False)
            else:
                self.lines.say(what)
            return
        if self.terminal:
            self.bar.update(self.task, description=what, completed=done, total=total or None)
            return
        step_started = what != self.what
        self.what, self.done, self.total = what, done, total
        if step_started:
            self.lines.say(self._line())
            self.lines.status(self._line)

    def _line(self) -> str:
        steps = f" [{self.done}/{self.total}]" if self.total else ""
        return f"build: {self.what}{steps}, {duration_text(time.monotonic() - self.started)}"


class StepLines(_BarOrLines):
    """A job of a known number of steps (``ascgen calibrate``, the transfer probe). On a terminal
    a live bar (steps done, time spent, time left); otherwise, for a log, one line up front with
    the estimate, then one line per step with the time spent and left, and the heartbeat while a
    long step runs. Time left: at the pace of the steps so far, the estimate before the first."""

    def __init__(
        self,
        console: Console,
        what: str,
        total: int,
        estimate_s: float | None = None,
        note: str = "",
        every: float = HEARTBEAT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from rich.progress import MofNCompleteColumn, TimeRemainingColumn

        self.console, self.what, self.total = console, what, total
        self.estimate_s, self.note, self.clock = estimate_s, note, clock
        self.terminal = console.is_terminal
        self.bar = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TimeRemainingColumn(), console=console,
        )  # fmt: skip
        self.task = self.bar.add_task(what, total=total)
        self.lines = PlainLines(console, every, clock)
        self.done = 0
        self.text = ""
        self.started = self.first_at = clock()

    def upfront(self) -> str:
        about = f", about {duration_text(self.estimate_s)}" if self.estimate_s is not None else ""
        return f"{self.what}: {self.total} steps{about}" + (f" ({self.note})" if self.note else "")

    def _first(self) -> None:
        self.started = self.clock()
        if self.terminal:
            self.console.print(self.upfront(), highlight=False)
        else:
            self.lines.say(self.upfront())
            self.lines.status(self._line)

    def step(self, text: str) -> None:
        """One step done; ``text`` says which."""
        self.done = min(self.done + 1, self.total)
        self.text = text
        if self.done == 1:
            self.first_at = self.clock()
        if self.terminal:
            self.bar.update(self.task, advance=1, description=text)
        else:
            self.lines.say(self._line())

    def left_s(self) -> float | None:
        """At the pace of the steps since the first (the first also holds what came before it, a
        build say); until there is one, the estimate's share of the steps left."""
        now = self.clock()
        if self.done >= 2 and now > self.first_at:
            return (now - self.first_at) / (self.done - 1) * (self.total - self.done)
        if self.estimate_s is None:
            return None
        if self.done == 0:
            return max(0.0, self.estimate_s - (now - self.started))
        return self.estimate_s * (self.total - self.done) / self.total

    def _line(self) -> str:
        spent = duration_text(self.clock() - self.started)
        left = self.left_s()
        tail = f", about {duration_text(left)} left" if left is not None and self.done < self.total else ""
        return f"{self.what} [{self.done}/{self.total}] {self.text or 'starting'}: {spent} spent{tail}"
