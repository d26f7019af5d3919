"""What a tune shows while it runs, on the bench's monitors (ascgen.bench.live): a Rich bar
with an ETA on a terminal, plain lines otherwise; plus one line per decision of the search."""

from __future__ import annotations

from ascgen.bench.live import LiveMonitor, PlainMonitor
from ascgen.bench.schema import Config
from ascgen.tune.report import trace_line
from ascgen.tune.search import Search, Step, short


class TuneListener:
    def __init__(self, monitor: LiveMonitor | PlainMonitor, repeat: int) -> None:
        self.monitor = monitor
        self.repeat = repeat
        self.search: Search | None = None  # set once the search exists, for the ETA

    def say(self, text: str) -> None:
        if isinstance(self.monitor, LiveMonitor):
            self.monitor.bar.console.print(text, highlight=False, soft_wrap=True)
        else:
            self.monitor.lines.say(text)

    def _replan(self) -> None:
        if self.search is not None:
            runs = (self.search.runs + self.search.runs_left()) * self.repeat
            if isinstance(self.monitor, LiveMonitor):
                self.monitor.planned(runs)
            else:
                self.monitor.eta.planned(runs)  # quietly: its planned() prints a line

    def planned(self, points: int, fitting: int) -> None:
        self.say(f"tune: {points} points in the space, {fitting} fit the device")
        self._replan()

    def deciding(self, config: Config, why: str) -> None:
        self.say(f"measuring {short(config)}: {why}")

    def step(self, step: Step) -> None:
        if step.action != "measured":
            self.say(trace_line(step))
        self._replan()
