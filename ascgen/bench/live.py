"""What a bench shows while it runs. On a terminal (LiveMonitor): a Rich bar over every run
of the sweep, with the runs done, the time left and the current run's live QPS. Otherwise
(PlainMonitor): plain lines, one per build and run and a heartbeat every few seconds, with
the same time left; no bar frames end up in a log. ``monitor_for`` picks one."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from ascgen.bench.eta import STARTUP_S, SweepEta
from ascgen.bench.runner import Progress as RunProgress
from ascgen.bench.runner import RunOptions
from ascgen.bench.schema import Config, RunRecord
from ascgen.common.progress import CACHED, HEARTBEAT_S, PlainLines, duration_text


def done_line(label: str, run: RunRecord) -> str:
    return f"{label}: {run.qps:,.1f} QPS, p99 {run.latency_ms.p99:,.1f} ms, {run.efficiency:.0%} of roofline"


class LiveMonitor:
    def __init__(self, console: Console, options: RunOptions) -> None:
        self.console = console
        self.eta = SweepEta(options.warmup_s + options.duration_s + STARTUP_S)
        self.bar = Progress(
            TextColumn("{task.description}"), BarColumn(bar_width=24),
            TextColumn("{task.fields[runs]}"), TimeElapsedColumn(), TextColumn("{task.fields[eta]}"),
            console=console, transient=True,
        )  # fmt: skip
        self.task = self.bar.add_task("planning", total=None, runs="", eta="")
        self.current = ""
        self.variant = ""

    def __enter__(self) -> LiveMonitor:
        self.bar.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.bar.stop()

    def _update(self, description: str) -> None:
        eta = f"ETA {duration_text(self.eta.remaining_s())}" if self.eta.runs else ""
        runs = f"{self.eta.done}/{self.eta.runs} runs" if self.eta.runs else ""
        self.bar.update(self.task, description=description, completed=self.eta.done, runs=runs, eta=eta)

    def planned(self, runs: int) -> None:
        self.eta.planned(runs)
        self.bar.update(self.task, total=runs)

    def builds_planned(self, seconds: float) -> None:
        self.eta.builds_planned(seconds)

    def building(self, variant: str) -> None:
        self.variant = variant
        self._update(f"building {variant}")

    def build_progress(self, what: str, done: int, total: int) -> None:
        if done == CACHED:  # one line: nothing to build
            self.bar.console.print(what, highlight=False)
            return
        steps = f" [{done}/{total}]" if total else ""
        self._update(f"building {self.variant}: {what}{steps}")

    def built(self, variant: str, cached: bool) -> None:
        if not cached:  # a cached program said so in its one line
            self.bar.console.print(f"built {variant}")

    def run_started(self, config: Config, repeat: int, repeats: int) -> None:
        self.eta.run_started()
        self.current = f"{config.label()} [{repeat}/{repeats}]"
        self._update(f"{self.current}: starting")

    def progress(self, progress: RunProgress) -> None:
        self._update(f"{self.current}: t={progress.t:.0f}s {progress.qps:,.1f} QPS")

    def run_done(self, run: RunRecord) -> None:
        self.eta.run_done()
        self.bar.console.print(done_line(self.current, run))
        self._update(self.current)


class PlainMonitor:
    def __init__(self, console: Console, options: RunOptions, every: float = HEARTBEAT_S) -> None:
        self.eta = SweepEta(options.warmup_s + options.duration_s + STARTUP_S)
        self.lines = PlainLines(console, every)
        self.current = ""
        self.variant = ""
        self.latest = ""

    def __enter__(self) -> PlainMonitor:
        self.lines.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.lines.__exit__(kind, exc, tb)

    def _where(self) -> str:
        return f"[{self.eta.done}/{self.eta.runs}, ETA {duration_text(self.eta.remaining_s())}]"

    def planned(self, runs: int) -> None:
        self.eta.planned(runs)
        building = f" (building included: {duration_text(self.eta.build_s)})" if self.eta.build_s else ""
        self.lines.say(
            f"bench: {runs} run{'s' if runs != 1 else ''}, about {duration_text(self.eta.remaining_s())}{building}"
        )

    def builds_planned(self, seconds: float) -> None:
        self.eta.builds_planned(seconds)

    def building(self, variant: str) -> None:
        self.variant = variant
        self.latest = f"building {variant}"
        self.lines.status(lambda: self.latest)

    def build_progress(self, what: str, done: int, total: int) -> None:
        if done == CACHED:  # one line: nothing to build
            self.lines.say(what)
            return
        steps = f" [{done}/{total}]" if total else ""
        starts = not self.latest.startswith(f"building {self.variant}: {what}")
        self.latest = f"building {self.variant}: {what}{steps}"
        if starts:
            self.lines.say(self.latest)

    def built(self, variant: str, cached: bool) -> None:
        if not cached:  # a cached program said so in its one line
            self.lines.say(f"built {variant}")
        self.lines.status(None)

    def run_started(self, config: Config, repeat: int, repeats: int) -> None:
        self.eta.run_started()
        self.current = f"{config.label()} [{repeat}/{repeats}]"
        self.latest = f"{self.current}: starting"
        self.lines.say(f"{self._where()} {self.latest}")
        self.lines.status(lambda: f"{self._where()} {self.latest}")

    def progress(self, progress: RunProgress) -> None:
        self.latest = f"{self.current}: t={progress.t:.0f}s {progress.qps:,.1f} QPS"

    def run_done(self, run: RunRecord) -> None:
        self.eta.run_done()
        self.lines.say(f"{self._where()} {done_line(self.current, run)}")
        self.lines.status(None)


def monitor_for(console: Console, options: RunOptions) -> LiveMonitor | PlainMonitor:
    return LiveMonitor(console, options) if console.is_terminal else PlainMonitor(console, options)
