"""The summary as rows of text (shared by the terminal table and the Markdown), and the Rich
table itself."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from ascgen.bench.schema import BenchResults, Summary

MIB = 1 << 20


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def columns(summaries: Sequence[Summary]) -> list[str]:
    cols = ["streams", "batch"]
    if any(s.sync_every is not None for s in summaries):
        cols.append("sync_every")
    cols += ["threads", "depth", "QPS", "min-max", "CV", "p50/p99 ms", "roofline"]
    return [*cols, "of roof", "bottleneck", "CPU s/1k fr", "dev MiB"]


def row(s: Summary, with_sync: bool) -> list[str]:
    cells = [s.streams, str(s.batch)]
    if with_sync:
        cells.append("-" if s.sync_every is None else str(s.sync_every))
    cells += [
        str(s.threads),
        str(s.depth),
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
    return [row(s, with_sync) for s in summaries]


def best(summaries: Sequence[Summary]) -> Summary | None:
    return max(summaries, key=lambda s: s.qps_median, default=None)


def context_line(results: BenchResults) -> str:
    c = results.context
    commit = f"{c.git_commit[:10]}{' (dirty)' if c.git_dirty else ''}" if c.git_commit else "not in git"
    return (
        f"{c.spec} on {c.host} ({c.cpu_count} x {c.cpu_model}), backend {c.backend or '?'}, profile {c.profile}, "
        f"ascgen {c.ascgen_version} at {commit}; {c.repeat} x {c.duration_s:g} s after {c.warmup_s:g} s warm-up"
    )


def table(results: BenchResults) -> Table:
    t = Table(title=f"ascgen bench: {results.context.spec}")
    for name in columns(results.summary):
        left = name in ("streams", "bottleneck")
        t.add_column(name, justify="left" if left else "right", no_wrap=True)
    top = best(results.summary)
    for s, cells in zip(results.summary, rows(results.summary), strict=True):
        t.add_row(*cells, style="bold" if s is top and len(results.summary) > 1 else None)
    return t


def print_results(results: BenchResults, console: Console) -> None:
    console.print(table(results))
    console.print(context_line(results))
    top = best(results.summary)
    if top is not None and len(results.summary) > 1:
        console.print(f"best: {top.label()}: {top.qps_median:,.1f} QPS, {top.efficiency:.0%} of the roofline")
