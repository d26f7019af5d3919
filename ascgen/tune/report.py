"""What a tune leaves behind: ``tune.json`` (settings, every step of the trace, the winner)
and ``summary.md`` (the winner, how it was found, every measured point with the Pareto
front marked, the trace, the Pareto plot and the winner's stages)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ascgen.bench.markdown_table import table_lines
from ascgen.tune.goal import pareto_front
from ascgen.tune.search import Outcome, Step, short

TUNE_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Settings:
    spec: str
    space: str
    budget_s: float
    duration_s: float
    warmup_s: float
    repeat: int
    tuned_spec: str | None = None  # where the winning spec was written
    time_scale: float | None = None  # the simulated device this many times slower (figures in model time)

    def runs(self) -> str:
        """How each point is measured: "2 runs of 5 s per point", and the simulator's time scale."""
        text = f"{self.repeat} run{'s' if self.repeat != 1 else ''} of {self.duration_s:g} s per point"
        if self.time_scale is not None:
            text += f", the simulated device {self.time_scale:g}x slower than the host (figures in its time)"
        return text


def trace_line(step: Step) -> str:
    """One line of the trace, as the tune prints it while it runs."""
    what = f"{step.action} {short(step.config)}: {step.why}"
    if step.measurement is not None:
        what += f": {step.measurement.qps:,.1f} QPS, p99 {step.measurement.p99_ms:,.1f} ms"
    return f"{what}: {step.detail}" if step.detail else what


def front_of(outcome: Outcome) -> list[Step]:
    measured = outcome.measured
    return [measured[i] for i in pareto_front([s.measurement for s in measured if s.measurement])]


def _step_doc(step: Step) -> dict[str, Any]:
    m = step.measurement
    return {
        "n": step.n,
        "at_s": round(step.at_s, 3),
        "config": step.config.model_dump(mode="json"),
        "action": step.action,
        "why": step.why,
        "detail": step.detail,
        "roofline_qps": step.roofline_qps,
        "qps": m.qps if m else None,
        "p99_ms": m.p99_ms if m else None,
        "host": m.host if m else None,
    }


def dumps(outcome: Outcome, settings: Settings) -> str:
    goal, winner = outcome.goal, outcome.winner
    doc = {
        "schema_version": TUNE_SCHEMA_VERSION,
        "settings": settings.__dict__,
        "objective": goal.objective,
        "slo": {"max_p99_ms": goal.max_p99_ms, "min_qps": goal.min_qps},
        "min_gain": goal.min_gain,
        "points": outcome.points,
        "fitting": outcome.fitting,
        "measured": len(outcome.measured),
        "stopped": outcome.stopped,
        "interrupted": outcome.interrupted,
        "winner": _step_doc(winner) if winner else None,
        "pareto_front": [s.n for s in front_of(outcome)],
        "steps": [_step_doc(s) for s in outcome.steps],
    }
    return json.dumps(doc, indent=2) + "\n"


def measured_rows(outcome: Outcome) -> list[list[str]]:
    front = {s.n for s in front_of(outcome)}
    winner = outcome.winner
    rows = []
    for s in sorted(outcome.measured, key=lambda s: -(s.measurement.qps if s.measurement else 0)):
        assert s.measurement is not None
        roofline = s.roofline_qps or 0.0
        mark = "**winner**" if winner is not None and s.n == winner.n else ("front" if s.n in front else "")
        rows.append([
            str(s.n), short(s.config), f"{s.measurement.qps:,.1f}", f"{s.measurement.p99_ms:,.1f}",
            f"{roofline:,.1f}", f"{s.measurement.qps / roofline:.0%}" if roofline else "",
            "yes" if outcome.goal.meets(s.measurement) else "no", mark,
        ])  # fmt: skip
    return rows


def _headline(outcome: Outcome) -> list[str]:
    winner, best = outcome.winner, outcome.best
    if winner is not None and winner.measurement is not None:
        m = winner.measurement
        return [f"**Winner:** {short(winner.config)}: **{m.qps:,.1f} QPS**, p99 {m.p99_ms:,.1f} ms (step {winner.n})."]
    if best is not None and best.measurement is not None:
        m = best.measurement
        closest = f"{short(best.config)}: {m.qps:,.1f} QPS, p99 {m.p99_ms:,.1f} ms"
        return [f"**No measured point meets the SLO.** Closest: {closest}."]
    return ["**Nothing was measured.**"]


def render(outcome: Outcome, settings: Settings, plots: list[str], stages: list[list[str]]) -> str:
    goal = outcome.goal
    lines = [f"### ascgen tune: `{settings.spec}`", ""]
    lines += [f"Objective {goal.objective}, SLO {goal.slo_text()}, space `{settings.space}`, "
              f"budget {settings.budget_s:,.0f} s, {settings.runs()}.", ""]  # fmt: skip
    lines += _headline(outcome)
    if settings.tuned_spec:
        lines += ["", f"Tuned spec: `{settings.tuned_spec}`."]
    skipped = sum(s.action == "skipped" for s in outcome.steps)
    failed = sum(s.action == "failed" for s in outcome.steps)
    lines += ["", f"Measured {len(outcome.measured)} of {outcome.points} points ({outcome.fitting} fit the device; "
              f"{skipped} skipped by the planner, {failed} failed). Stopped: {outcome.stopped}."]  # fmt: skip
    if outcome.measured:
        lines += ["", "#### Measured points", ""]
        header = ["step", "point", "QPS", "p99 ms", "roofline", "of roofline", "meets SLO", ""]
        lines += table_lines(header, measured_rows(outcome))
        lines += ["", "front: on the Pareto front of QPS against p99 (no other point has more QPS and less p99)."]
    for plot in plots:
        lines += ["", f"![Pareto front]({plot})"]
    if stages:
        lines += ["", "#### The winner's stages (plan)", ""]
        lines += table_lines(["stage", "engine", "service us", "capacity QPS", "frames measured"], stages)
    lines += ["", "#### Trace", ""]
    body = [[str(s.n), f"{s.at_s:,.0f}", short(s.config), s.action, s.why, detail(s)] for s in outcome.steps]
    lines += table_lines(["step", "done at (s)", "point", "action", "why", "result"], body)
    return "\n".join(lines) + "\n"


def detail(step: Step) -> str:
    m = step.measurement
    if m is not None:
        return f"{m.qps:,.1f} QPS, p99 {m.p99_ms:,.1f} ms" + (f" on {m.host}" if m.host else "")
    return step.detail.replace("|", "\\|")
