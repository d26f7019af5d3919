"""The summary as rows of text (shared by the terminal table and the Markdown), and the Rich
table itself."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from ascgen.bench.schema import BenchResults, Config, Summary

MIB = 1 << 20


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _loads(summaries: Sequence[Summary]) -> list[str]:
    """A server's load columns, where some point has one."""
    return [k for k in ("clients", "rate") if any(getattr(s, k) is not None for s in summaries)]


def _deployment(summaries: Sequence[Summary]) -> list[str]:
    """The devices and deploy columns, where some point sets them, and the scaling efficiency."""
    cols = [k for k in ("devices", "deploy") if any(getattr(s, k) is not None for s in summaries)]
    return [*cols, "scaling"] if "devices" in cols else cols


def scaling(s: Summary, summaries: Sequence[Summary]) -> float | None:
    """Aggregate QPS over (devices x the QPS of one device in the same configuration), or None
    when no one-device point was measured."""
    n = s.device_count
    if n is None:
        return None
    fields = set(Config.model_fields) - {"devices", "deploy"}  # the rest of the configuration
    key = s.model_dump(include=fields)
    one = [o for o in summaries if o.device_count == 1 and o.model_dump(include=fields) == key]
    return s.qps_median / (n * one[0].qps_median) if one and one[0].qps_median > 0 else None


def columns(summaries: Sequence[Summary]) -> list[str]:
    cols = ["streams", "batch"]
    if any(s.sync_every is not None for s in summaries):
        cols.append("sync_every")
    cols += ["threads", "depth", *_loads(summaries), *_deployment(summaries)]
    cols += ["QPS", "min-max", "CV", "p50/p99 ms", "roofline"]
    return [*cols, "of roof", "bottleneck", "CPU s/1k fr", "dev MiB"]


def row(
    s: Summary, with_sync: bool, loads: Sequence[str] = (), deployment: Sequence[str] = (), scale: float | None = None
) -> list[str]:
    cells = [s.streams, str(s.batch)]
    if with_sync:
        cells.append("-" if s.sync_every is None else str(s.sync_every))
    cells += [
        str(s.threads),
        str(s.depth),
        *(s.shown(k) for k in loads),
        *(s.shown(k) for k in deployment if k != "scaling"),
        *([_pct(scale)] if "scaling" in deployment else []),
        f"{s.qps_median:,.1f}",
        f"{s.qps_min:,.1f}-{s.qps_max:,.1f}" if s.repeats > 1 else "-",
        _pct(s.qps_cv),
        f"{s.latency_ms.p50:,.1f} / {s.latency_ms.p99:,.1f}",
        f"{s.roofline_qps:,.0f}",
        f"{s.efficiency:.0%}",
        s.bottleneck,
        "-" if s.host_cpu_s_per_1000_frames is None else f"{s.host_cpu_s_per_1000_frames:.2f}",
        f"{s.device_memory_bytes / MIB:,.0f}",
    ]
    return cells


def rows(summaries: Sequence[Summary]) -> list[list[str]]:
    with_sync = any(s.sync_every is not None for s in summaries)
    loads = _loads(summaries)
    deployment = _deployment(summaries)
    return [row(s, with_sync, loads, deployment, scaling(s, summaries)) for s in summaries]


KNEE = 0.01  # configurations within 1 % of the top QPS count as tied


def best(summaries: Sequence[Summary]) -> Summary | None:
    """The knee: the cheapest configuration (fewest threads, then least depth and batch, then
    the lightest load of a server) whose median QPS is within KNEE of the highest; more threads
    (or clients) for the same throughput only add latency and host CPU."""
    if not summaries:
        return None
    top = max(s.qps_median for s in summaries)
    tied = [s for s in summaries if s.qps_median >= (1 - KNEE) * top]
    return min(tied, key=lambda s: (s.threads, s.depth, s.batch, s.clients or 0, s.rate or 0, -s.qps_median))


def context_line(results: BenchResults) -> str:
    c = results.context
    commit = f"{c.git_commit[:10]}{' (dirty)' if c.git_dirty else ''}" if c.git_commit else "not in git"
    return (
        f"{c.spec} on {c.host} ({c.cpu_count} x {c.cpu_model}), backend {c.backend or '?'}, profile {c.profile}, "
        f"ascgen {c.ascgen_version} at {commit}; {c.repeat} x {c.duration_s:g} s after {c.warmup_s:g} s warm-up"
    )


# Columns a narrow terminal loses first (summary.md always has them all); configuration
# columns that hold one value for every row go after the first three.
OPTIONAL = ("dev MiB", "CPU s/1k fr", "min-max", "bottleneck", "CV", "of roof")
CONFIG_COLUMNS = ("streams", "batch", "sync_every", "depth", "threads", "clients", "rate", "devices", "deploy")


def constant_columns(results: BenchResults) -> dict[str, str]:
    """Configuration columns with the same value in every row: {name: value}."""
    names, body = columns(results.summary), rows(results.summary)
    out = {}
    for i, name in enumerate(names):
        if name in CONFIG_COLUMNS and len({r[i] for r in body}) == 1 and body:
            out[name] = body[0][i]
    return out


def table(results: BenchResults, drop: Sequence[str] = ()) -> Table:
    t = Table(title=f"ascgen bench: {results.context.spec}")
    names = columns(results.summary)
    keep = [i for i, name in enumerate(names) if name not in drop]
    for i in keep:
        left = names[i] in ("streams", "bottleneck")
        t.add_column(names[i], justify="left" if left else "right", no_wrap=True)
    top = best(results.summary)
    for s, cells in zip(results.summary, rows(results.summary), strict=True):
        t.add_row(*(cells[i] for i in keep), style="bold" if s is top and len(results.summary) > 1 else None)
    return t


def fitting_table(results: BenchResults, console: Console) -> tuple[Table, list[str]]:
    """The table with as many columns as the console's width allows, and the ones left out."""
    order = [*OPTIONAL[:3], *constant_columns(results), *OPTIONAL[3:]]
    for n in range(len(order) + 1):
        drop = order[:n]
        t = table(results, drop)
        if Measurement.get(console, console.options.update_width(100_000), t).maximum <= console.width:
            break
    return t, drop


def print_results(results: BenchResults, console: Console) -> None:
    t, dropped = fitting_table(results, console)
    console.print(t)
    same = constant_columns(results)
    if any(d in same for d in dropped):
        console.print("every row: " + ", ".join(f"{k} {v}" for k, v in same.items() if k in dropped))
    if any(d not in same for d in dropped):
        console.print(f"(too narrow for {', '.join(d for d in dropped if d not in same)}: see summary.md)")
    console.print(context_line(results))
    top = best(results.summary)
    if top is not None and len(results.summary) > 1:
        console.print(f"best: {top.label()}: {top.qps_median:,.1f} QPS, {top.efficiency:.0%} of the roofline")
