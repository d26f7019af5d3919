"""The terminal while a bench runs: a Rich progress bar over every run of the sweep, with the
current run's live QPS (from the program's progress lines) in its description."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ascgen.bench.runner import Progress as RunProgress
from ascgen.bench.schema import Config, RunRecord


class LiveMonitor:
    def __init__(self, console: Console) -> None:
        self.console = console
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(bar_width=24),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self.task = self.bar.add_task("planning", total=None)
        self.current = ""
        self.variant = ""

    def __enter__(self) -> LiveMonitor:
        self.bar.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.bar.stop()

    def planned(self, runs: int) -> None:
        self.bar.update(self.task, total=runs)

    def building(self, variant: str) -> None:
        self.variant = variant
        self.bar.update(self.task, description=f"building {variant}")

    def build_progress(self, what: str, done: int, total: int) -> None:
        self.bar.update(self.task, description=f"building {self.variant}: {what} [{done}/{total}]")

    def built(self, variant: str, cached: bool) -> None:
        self.bar.console.print(f"built {variant}{' (cached)' if cached else ''}")

    def run_started(self, config: Config, repeat: int, repeats: int) -> None:
        self.current = f"{config.label()} [{repeat}/{repeats}]"
        self.bar.update(self.task, description=f"{self.current}: starting")

    def progress(self, progress: RunProgress) -> None:
        self.bar.update(self.task, description=f"{self.current}: t={progress.t:.0f}s {progress.qps:,.1f} QPS")

    def run_done(self, run: RunRecord) -> None:
        self.bar.console.print(
            f"{self.current}: {run.qps:,.1f} QPS, p99 {run.latency_ms.p99:,.1f} ms, {run.efficiency:.0%} of roofline"
        )
        self.bar.advance(self.task)
