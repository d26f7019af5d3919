"""The summary as rows of text (shared by the terminal table and the Markdown), and the Rich
table itself."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from ascgen.bench.schema import BenchResults, Config, SloMiss, Summary
from ascgen.bench.video import VIDEO_COLUMNS, capacity_line, video_cells

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


SERVING_COLUMNS = ("offered r/s", "rejected", "timed out", "queue p50/p99 ms", "mean batch", "gears", "predicted")


def _serving(summaries: Sequence[Summary]) -> bool:
    return any(s.serving is not None for s in summaries)


def columns(summaries: Sequence[Summary]) -> list[str]:
    cols = ["streams", "batch"]
    if any(s.sync_every is not None for s in summaries):
        cols.append("sync_every")
    cols += ["threads", "depth", *_loads(summaries), *_deployment(summaries), *_run_keys(summaries)]
    serving = _serving(summaries)
    cols += ["achieved r/s" if serving else "QPS", "min-max", "CV", "p50/p99 ms"]
    cols += [*SERVING_COLUMNS] if serving else []
    cols += [*VIDEO_COLUMNS] if _video(summaries) else []
    return [*cols, "roofline", "of roof", "bottleneck", "CPU s/1k fr", "dev MiB"]


def _video(summaries: Sequence[Summary]) -> bool:
    return any(s.video is not None for s in summaries)


def _run_keys(summaries: Sequence[Summary]) -> list[str]:
    """The arrival and time_scale columns, where some point sets them."""
    return [k for k in ("arrival", "time_scale") if any(getattr(s, k) is not None for s in summaries)]


def serving_cells(s: Summary) -> list[str]:
    """A server's columns (SERVING_COLUMNS): the load offered, the requests dropped, the queue,
    the batches and the plan's prediction (requests/s, p99 ms, mean batch) for this load."""
    v = s.serving
    if v is None:
        return ["-"] * len(SERVING_COLUMNS)
    gears = " ".join(f"{name}:{share:.0%}" for name, share in v.gear_shares) or "-"
    predicted = "-"
    if v.predicted_rps is not None:
        p99, batch = v.predicted_p99_ms or 0.0, v.predicted_mean_batch or 0.0
        predicted = f"{v.predicted_rps:,.1f} r/s, {p99:,.1f} ms, b {batch:.2f}"
        predicted += f", {v.predicted_rejected:.0%} rejected" if v.predicted_rejected else ""
    return [
        f"{v.offered_rps:,.1f}",
        f"{v.rejected:,} of {v.submitted:,}" if v.rejected else "0",
        f"{v.timed_out:,}",
        f"{v.queue_p50_ms:,.1f} / {v.queue_p99_ms:,.1f}",
        f"{v.mean_batch:.2f}",
        gears,
        predicted,
    ]


def row(
    s: Summary,
    with_sync: bool,
    loads: Sequence[str] = (),
    deployment: Sequence[str] = (),
    scale: float | None = None,
    run_keys: Sequence[str] = (),
    serving: bool = False,
    video: bool = False,
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
        *(s.shown(k) for k in run_keys),
        f"{s.qps_median:,.1f}",
        f"{s.qps_min:,.1f}-{s.qps_max:,.1f}" if s.repeats > 1 else "-",
        _pct(s.qps_cv),
        f"{s.latency_ms.p50:,.1f} / {s.latency_ms.p99:,.1f}",
        *(serving_cells(s) if serving else []),
        *(video_cells(s) if video else []),
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
    deployment, keys, serving = _deployment(summaries), _run_keys(summaries), _serving(summaries)
    video = _video(summaries)
    return [row(s, with_sync, loads, deployment, scaling(s, summaries), keys, serving, video) for s in summaries]


KNEE = 0.01  # configurations within 1 % of the top QPS count as tied


def failed(s: Summary, misses: Sequence[SloMiss] = ()) -> str | None:
    """Why a point cannot be the best: it dropped requests or missed an SLO; None when neither."""
    why = []
    if s.serving is not None and s.serving.rejected:
        why.append(f"rejected {s.serving.rejected:,} of {s.serving.submitted:,} requests")
    why += [m.what for m in misses if m.config == s.label()]
    return "; ".join(why) or None


def best(summaries: Sequence[Summary], misses: Sequence[SloMiss] = ()) -> Summary | None:
    """The knee among the points that dropped no request and met every SLO (``misses``): the
    cheapest configuration (fewest threads, then least depth and batch, then the lightest load
    of a server) whose median QPS is within KNEE of the highest; more threads (or clients) for
    the same throughput only add latency and host CPU. None when no point qualifies."""
    good = [s for s in summaries if failed(s, misses) is None]
    if not good:
        return None
    top = max(s.qps_median for s in good)
    tied = [s for s in good if s.qps_median >= (1 - KNEE) * top]
    return min(tied, key=lambda s: (s.threads, s.depth, s.batch, s.clients or 0, s.rate or 0, -s.qps_median))


def best_line(results: BenchResults) -> str:
    """Which point is best and why; a server's counts requests/s, and when every point dropped
    requests or missed an SLO, none is best."""
    if len(results.summary) < 2:
        return ""
    top = best(results.summary, results.slo_misses)
    if top is None:
        return "best: none: every point dropped requests or missed the SLO"
    unit = "requests/s" if top.serving is not None else "QPS"
    line = f"best: {top.label()}: {top.qps_median:,.1f} {unit}, {top.efficiency:.0%} of the roofline"
    out = sum(failed(s, results.slo_misses) is not None for s in results.summary)
    return line + (
        f" ({out} point{'s' if out != 1 else ''} left out: dropped requests or missed the SLO)" if out else ""
    )


def context_line(results: BenchResults) -> str:
    c = results.context
    commit = f"{c.git_commit[:10]}{' (dirty)' if c.git_dirty else ''}" if c.git_commit else "not in git"
    return (
        f"{c.spec} on {c.host} ({c.cpu_count} x {c.cpu_model}), backend {c.backend or '?'}, profile {c.profile}, "
        f"ascgen {c.ascgen_version} at {commit}; {c.repeat} x {c.duration_s:g} s after {c.warmup_s:g} s warm-up"
    )


# Columns a narrow terminal loses first (summary.md always has them all); configuration
# columns that hold one value for every row go after the first three.
OPTIONAL = ("dev MiB", "CPU s/1k fr", "min-max", "bottleneck", "CV", "of roof", "gears", "roofline", "predicted")
CONFIG_COLUMNS = (
    "streams", "batch", "sync_every", "depth", "threads", "clients", "rate", "devices", "deploy", "arrival",
    "time_scale",
)  # fmt: skip


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
    top = best(results.summary, results.slo_misses)
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
    if len(results.summary) > 1:
        console.print(best_line(results))
    capacity = capacity_line(results.summary)
    if capacity is not None:
        console.print(f"[bold]{capacity}[/]", highlight=False)
