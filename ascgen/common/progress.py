"""Progress of long steps for people and for logs: a Rich bar on a terminal; plain lines
otherwise, one when a step starts and then one every few seconds (a heartbeat, so a log is
never silent for long and never holds a bar's frames)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

HEARTBEAT_S = 10.0


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


class BuildProgress:
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

    def __enter__(self) -> BuildProgress:
        if self.terminal:
            self.bar.start()
        else:
            self.lines.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self.terminal:
            self.bar.stop()
        else:
            self.lines.__exit__(kind, exc, tb)

    def __call__(self, what: str, done: int, total: int) -> None:
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
