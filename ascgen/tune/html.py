"""``report.html`` of a tune: the sentence that says what won and by how much against the
spec's own values, QPS against p99 of every measured point with the Pareto front, the
winner's planned stages and memory, and the tables (measured points, trace). Drawn by
ascgen.common.html; the stage and memory parts are the bench report's."""

from __future__ import annotations

from ascgen.bench.html import PlanOf, cell, memory_parts, plans_to_plan, same_config, stage_parts
from ascgen.bench.schema import Config
from ascgen.common import html
from ascgen.tune import report
from ascgen.tune.goal import Goal, Measurement
from ascgen.tune.search import Outcome, Step, short


def _gain(goal: Goal, won: Measurement, base: Measurement, default: str) -> str:
    """How the winner beats the default, as the reader should hear it: meeting the SLO the
    default misses, a gain in the objective, or a tie on it within rounding (never "-0 % more
    QPS"; a tie is decided by the other measure, see Goal.better)."""
    if not goal.meets(base):
        return f"meets the SLO ({goal.slo_text()}), which the default ({default}) misses"
    if goal.objective == "min_p99":
        cut = (1 - won.p99_ms / base.p99_ms) * 100 if base.p99_ms > 0 else 0.0
        if round(cut) > 0:
            return f"has a {cut:,.0f} % lower p99 than the default ({default})"
        return f"is within 1 % of the default's p99 ({default})"
    more = html.percent_better(won.qps, base.qps)
    if round(more) > 0:
        return f"gives {more:,.0f} % more QPS than the default ({default})"
    return f"is within 1 % of the default's QPS ({default})"


def headline(outcome: Outcome, measurements: int, default: Config | None) -> str:
    measured = outcome.measured
    m = len(measured)
    where = f"In {measurements} measurement{'s' if measurements != 1 else ''} across {m} configuration" + (
        "s" if m != 1 else ""
    )
    winner = outcome.winner
    if winner is None or winner.measurement is None:
        return f"{where}, none meets the SLO ({outcome.goal.slo_text()})." if m else "Nothing was measured."
    won = winner.measurement
    at = f"{won.qps:,.1f} QPS, p99 {won.p99_ms:,.1f} ms"
    base = next((s for s in measured if default is not None and same_config(s.config, default)), None)
    if base is None or base.measurement is None:
        return f"{where}, {short(winner.config)} wins: {at} (the spec's own values were not measured)."
    if base is winner:
        return f"{where}, the default ({short(winner.config)}) wins: {at}."
    b = base.measurement
    gain = _gain(outcome.goal, won, b, short(base.config))
    return f"{where}, {short(winner.config)} {gain}: {at}, against {b.qps:,.1f} QPS, p99 {b.p99_ms:,.1f} ms."


def _point(s: Step, mark: str) -> html.Point:
    assert s.measurement is not None
    m = s.measurement
    tip = f"step {s.n}, {short(s.config)}: {m.qps:,.1f} QPS, p99 {m.p99_ms:,.1f} ms"
    return html.Point(m.p99_ms, m.qps, tip, mark)  # type: ignore[arg-type]


def pareto_chart(outcome: Outcome, default: Config | None) -> html.XYChart:
    winner = outcome.winner
    front = {s.n for s in report.front_of(outcome)}

    def mark(s: Step) -> str:
        if winner is not None and s.n == winner.n:
            return "best"
        return "default" if default is not None and same_config(s.config, default) else ""

    measured = [s for s in outcome.measured if s.n not in front]
    series = [html.Series("Pareto front", [_point(s, mark(s)) for s in report.front_of(outcome)])]
    if measured:
        series.append(html.Series("measured", [_point(s, mark(s)) for s in measured], line=False))
    goal = outcome.goal
    rules = []
    if goal.max_p99_ms is not None:
        rules.append(html.Rule("x", goal.max_p99_ms, f"SLO p99 {goal.max_p99_ms:g} ms"))
    if goal.min_qps is not None:
        rules.append(html.Rule("y", goal.min_qps, f"SLO {goal.min_qps:g} QPS"))
    return html.XYChart(
        title=f"QPS against p99 of every measured point ({len(outcome.measured)})",
        x_label="p99 latency (ms, per frame)",
        y_label="QPS (frames/s, median of the point's runs)",
        series=series,
        rules=rules,
    )


def tables(outcome: Outcome) -> list[html.Chart | html.Table | str]:
    rows = report.measured_rows(outcome)
    measured = html.Table(
        "Measured points (click a column to sort)",
        ["step", "point", "QPS", "p99 ms", "roofline", "of roofline", "meets SLO", ""],
        [[cell(c.replace("*", "")) for c in row] for row in rows],
        marked={i for i, row in enumerate(rows) if "winner" in row[-1]},
        note="front: on the Pareto front of QPS against p99 (no other point has more QPS and less p99).",
    )
    trace = html.Table(
        "Trace",
        ["step", "done at (s)", "point", "action", "why", "result"],
        [
            [cell(str(s.n)), html.number(s.at_s, ",.0f"), html.Cell(short(s.config)), html.Cell(s.action),
             html.Cell(s.why), html.Cell(report.detail(s) if s.measurement else s.detail)]
            for s in outcome.steps
        ],
    )  # fmt: skip
    return [measured, trace]


def page(
    outcome: Outcome,
    settings: report.Settings,
    measurements: int,
    default: Config | None = None,
    plan_of: PlanOf | None = None,
) -> html.Page:
    goal = outcome.goal
    context = (
        f"Objective {goal.objective}, SLO {goal.slo_text()}, space {settings.space}, budget "
        f"{settings.budget_s:,.0f} s, {settings.runs()}; {outcome.points} points planned, "
        f"{outcome.fitting} fit the device. "
        f"Stopped: {outcome.stopped}."
    )
    sections = []
    if outcome.measured:
        sections.append(html.Section("Throughput against latency", [pareto_chart(outcome, default)]))
    winner = outcome.winner
    named: list[tuple[str, Config]] = []
    if winner is not None:
        named.append((f"winner: {short(winner.config)}", winner.config))
    if default is not None and (winner is None or not same_config(winner.config, default)):
        named.append((f"default: {short(default)}", default))
    plans = plans_to_plan(named, plan_of)
    if plans:
        sections.append(html.Section("Per-stage latency breakdown", stage_parts(plans)))
        sections.append(html.Section("Memory plan", memory_parts(*plans[0])))
    sections.append(html.Section("Tables", tables(outcome)))
    warnings = ["interrupted: what was measured before Ctrl-C"] if outcome.interrupted else []
    if settings.tuned_spec:
        sections[0].parts.insert(0, f"Tuned spec: {settings.tuned_spec}")
    return html.Page(
        title=f"ascgen tune: {settings.spec}",
        headline=headline(outcome, measurements, default),
        context=context,
        sections=sections,
        warnings=warnings,
    )


def render(
    outcome: Outcome,
    settings: report.Settings,
    measurements: int,
    default: Config | None = None,
    plan_of: PlanOf | None = None,
) -> str:
    return html.render(page(outcome, settings, measurements, default, plan_of))
