"""``report.html`` of a bench: the sentence that says what won and by how much, QPS against p99
for the top configurations, the per-stage service times and the memory plan of the best (and
the spec's own) configuration, and the tables. Built from the results and the plans the bench
already made; drawn by ascgen.common.html."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ascgen.bench import report
from ascgen.bench.schema import BenchResults, Config, SloMiss, Summary
from ascgen.common import html
from ascgen.common.errors import UserError
from ascgen.plan.model import Plan

TOP = 10  # configurations in the throughput/latency chart
MIB = 1 << 20
PlanOf = Callable[[Config], Plan]


def config_of(point: Config) -> Config:
    """The configuration alone, of a summary or a run."""
    return Config.model_validate(point.model_dump(include=set(Config.model_fields)))


def same_config(a: Config, b: Config) -> bool:
    return config_of(a) == config_of(b)


def headline(
    summaries: Sequence[Summary],
    measurements: int,
    default: Config | None,
    unit: str = "QPS",
    misses: Sequence[SloMiss] = (),
) -> str:
    """model_analyzer's opening: in N measurements across M configurations, X is P % better
    than the default (the spec as written; the slowest point when that was not measured)."""
    top = report.best(summaries, misses)
    if top is None:
        return "Nothing was measured." if not summaries else "Every point dropped requests or missed the SLO."
    m = len(summaries)
    where = f"In {measurements} measurement{'s' if measurements != 1 else ''} across {m} configuration" + (
        "s" if m != 1 else ""
    )
    at = f"{top.qps_median:,.1f} {unit}, p99 {top.latency_ms.p99:,.1f} ms"
    if m == 1:
        return f"{where}, {top.label()} measured {at}."
    base = next((s for s in summaries if default is not None and same_config(s, default)), None)
    if base is top:
        return f"{where}, the default ({top.label()}) is the best: {at}."
    against = "the default"
    if base is None:
        base = min(summaries, key=lambda s: s.qps_median)
        against = "the slowest configuration (the spec's own was not measured)"
    gain = html.percent_better(top.qps_median, base.qps_median)
    figures = (
        f"{top.qps_median:,.1f} against {base.qps_median:,.1f} {unit}, p99 {top.latency_ms.p99:,.1f} "
        f"against {base.latency_ms.p99:,.1f} ms."
    )
    if round(gain) <= 0:  # the best is the knee: as fast within report.KNEE, with fewer threads or less depth
        return (
            f"{where}, {top.label()} is the best: as fast as {against} ({base.label()}) within "
            f"{report.KNEE:.0%} and cheaper: {figures}"
        )
    return f"{where}, {top.label()} is {gain:,.0f} % better than {against} ({base.label()}): {figures}"


def _mark(s: Summary, top: Summary | None, default: Config | None) -> str:
    if s is top:
        return "best"
    return "default" if default is not None and same_config(s, default) else ""


def throughput_chart(results: BenchResults, default: Config | None, unit: str = "QPS") -> html.XYChart:
    top = report.best(results.summary, results.slo_misses)
    chosen = sorted(results.summary, key=lambda s: -s.qps_median)[:TOP]
    chosen += [s for s in results.summary if _mark(s, top, default) and s not in chosen]
    series: dict[str, list[html.Point]] = {}
    for s in chosen:
        tip = f"{s.label()}: {s.qps_median:,.1f} {unit}, p50 {s.latency_ms.p50:,.1f} ms, p99 {s.latency_ms.p99:,.1f} ms"
        point = html.Point(s.latency_ms.p99, s.qps_median, tip, _mark(s, top, default))  # type: ignore[arg-type]
        series.setdefault(s.streams, []).append(point)
    rules = []
    if "max_p99_ms" in results.slo:
        rules.append(html.Rule("x", results.slo["max_p99_ms"], f"SLO p99 {results.slo['max_p99_ms']:g} ms"))
    if "min_qps" in results.slo:
        rules.append(html.Rule("y", results.slo["min_qps"], f"SLO {results.slo['min_qps']:g} {unit}"))
    n = min(TOP, len(results.summary))
    return html.XYChart(
        title=f"{unit} against p99 latency, the top {n} of {len(results.summary)} configurations by {unit}",
        x_label="p99 latency (ms, per frame, submit to completion)",
        y_label=f"{unit} (median over repeats)",
        series=[html.Series(k, v, line=False) for k, v in sorted(series.items())],
        rules=rules,
    )


def stage_parts(plans: Sequence[tuple[str, Plan]]) -> list[html.Chart | html.Table | str]:
    """The planned service time of each stage (one task on one engine unit), per plan."""
    first = plans[0][1]
    chart = html.BarChart(
        title="Per-stage service time of one task, as planned (a batch-level stage's task is a batch)",
        value_label="ms",
        categories=[s.name for s in first.stages],
        series=[(name, [s.service_us / 1000 for s in plan.stages]) for name, plan in plans],
    )
    rows = [
        [
            html.Cell(s.name), html.Cell(s.engine), html.Cell(str(s.frames_per_task), s.frames_per_task),
            html.number(s.service_us / 1000, ",.3f"), html.number(s.capacity_qps),
            html.Cell("bottleneck" if first.bottleneck.endswith(f"({s.name})") else ""),
        ]
        for s in first.stages
    ]  # fmt: skip
    header = ["stage", "engine", "frames per task", "service ms", "capacity QPS", ""]
    table = html.Table(f"Stages of {plans[0][0]}", header, rows, note=f"roofline {first.roofline_qps:,.1f} QPS")
    return [chart, table]


def memory_parts(name: str, plan: Plan) -> list[html.Chart | html.Table | str]:
    m = plan.memory
    rows = [
        [
            html.Cell(f"{p.ref.stage}.{p.ref.role}"), html.Cell(str(p.memory)), html.Cell(p.per),
            html.number(p.slot_bytes, ",d"), html.number(p.alloc_bytes, ",d"), html.Cell(str(p.slots), p.slots),
            html.Cell(str(p.threads), p.threads), html.number(p.total_bytes / MIB, ",.2f"),
        ]
        for p in plan.pools
    ]  # fmt: skip
    header = ["pool", "memory", "slot per", "slot bytes", "allocated", "slots/thread", "threads", "total MiB"]
    budget = (
        f"device {m.device_bytes / MIB:,.1f} of {m.device_budget_bytes / MIB:,.1f} MiB "
        f"(DVPP {m.dvpp_bytes / MIB:,.1f} of {m.dvpp_budget_bytes / MIB:,.1f} MiB, models {m.model_bytes / MIB:,.1f} "
        f"MiB); pinned host {m.host_pinned_bytes / MIB:,.1f} MiB"
    )
    chart = html.BarChart(
        title=f"Memory by pool, {name}",
        value_label="MiB",
        categories=[f"{p.ref.stage}.{p.ref.role}" for p in plan.pools],
        series=[(name, [p.total_bytes / MIB for p in plan.pools])],
    )
    return [budget, chart, html.Table(f"Pools of {name}", header, rows)]


NUMBER = re.compile(r"^-?[0-9][0-9,]*(\.[0-9]+)?")


def cell(text: str) -> html.Cell:
    """A table cell that sorts by its leading number (commas and a % allowed), else as text."""
    found = NUMBER.match(text)
    return html.Cell(text, float(found.group().replace(",", "")) if found else None)


def tables(results: BenchResults) -> list[html.Chart | html.Table | str]:
    top = report.best(results.summary, results.slo_misses)
    marked = {i for i, s in enumerate(results.summary) if s is top}
    summary = html.Table(
        "Configurations (click a column to sort)",
        report.columns(results.summary),
        [[cell(c) for c in row] for row in report.rows(results.summary)],
        marked=marked,
        note="QPS: median over repeats (frames/s); CV: across repeats; roofline: the planner's predicted ceiling.",
    )
    runs = html.Table(
        "Runs",
        ["configuration", "repeat", "QPS", "p50 ms", "p99 ms", "max ms", "window CV"],
        [
            [
                html.Cell(r.label()), html.Cell(str(r.repeat), r.repeat), html.number(r.qps),
                html.number(r.latency_ms.p50), html.number(r.latency_ms.p99), html.number(r.latency_ms.max),
                cell("-" if r.window_cv is None else f"{r.window_cv:.1%}"),
            ]
            for r in results.runs
        ],
    )  # fmt: skip
    return [summary, runs]


def plans_to_plan(named: Sequence[tuple[str, Config]], plan_of: PlanOf | None) -> list[tuple[str, Plan]]:
    """(name, plan) of each named configuration the planner still plans (the spec may have
    changed since the run: a point it refuses now has no plan to show)."""
    out: list[tuple[str, Plan]] = []
    if plan_of is None:
        return out
    for name, config in named:
        try:
            out.append((name, plan_of(config)))
        except UserError:
            continue
    return out


def plans_to_show(results: BenchResults, default: Config | None, plan_of: PlanOf | None) -> list[tuple[str, Plan]]:
    """The plans of the best configuration and of the default."""
    top = report.best(results.summary, results.slo_misses)
    named: list[tuple[str, Config]] = []
    if top is not None:
        named.append((f"best: {top.label()}", config_of(top)))
    if default is not None and (top is None or not same_config(top, default)):
        named.append((f"default: {default.label()}", default))
    return plans_to_plan(named, plan_of)


def unit_of(results: BenchResults) -> str:
    """What a point's throughput counts: requests of a server (clients or rate), else frames."""
    return "requests/s" if any(s.clients is not None or s.rate is not None for s in results.summary) else "QPS"


def page(results: BenchResults, default: Config | None = None, plan_of: PlanOf | None = None) -> html.Page:
    plans = plans_to_show(results, default, plan_of)
    unit = unit_of(results)
    sections = []
    if results.summary:
        sections.append(html.Section("Throughput against latency", [throughput_chart(results, default, unit)]))
    if plans:
        sections.append(html.Section("Per-stage latency breakdown", stage_parts(plans)))
        sections.append(html.Section("Memory plan", memory_parts(*plans[0])))
    sections.append(html.Section("Tables", tables(results)))
    misses = [f"SLO missed: {m.config}: {m.what}" for m in results.slo_misses]
    return html.Page(
        title=f"ascgen bench: {results.context.spec}",
        headline=headline(results.summary, len(results.runs), default, unit, results.slo_misses),
        context=report.context_line(results),
        sections=sections,
        warnings=[*misses, *results.warnings],
    )


def render(results: BenchResults, default: Config | None = None, plan_of: PlanOf | None = None) -> str:
    return html.render(page(results, default, plan_of))
