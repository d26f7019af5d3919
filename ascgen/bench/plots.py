"""PNG plots (matplotlib, Agg: no display needed): QPS against the swept parameter with the
planner's roofline, latency percentiles against the same, and p99 latency against achieved
QPS; one series per stream layout (and per value of any other swept key). Each marks the
best point (the knee, ascgen.bench.report.best) and the spec's SLO where it has one
(slo.min_qps on the QPS axis, slo.max_p99_ms on the latency axis)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ascgen.bench.report import best
from ascgen.bench.schema import LOAD_KEYS, BenchResults, Summary
from ascgen.dsl.configure import LIMITS

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.lines import Line2D

AXIS_LABELS = {
    "threads": "host threads",
    "depth": "buffer depth (frames in flight per thread)",
    "batch": "batch (frames per model execution)",
    "sync_every": "sync_every (frames per stream synchronisation)",
    "clients": "clients (closed loop: requests outstanding)",
    "rate": "offered load (requests/s, open loop)",
}
LineStyle = Literal["-", "--", ":"]
PERCENTILES: tuple[tuple[str, LineStyle], ...] = (("p50", "-"), ("p90", "--"), ("p99", ":"))


def x_key(results: BenchResults) -> str:
    return next((k for k in results.swept if k in LIMITS or k in LOAD_KEYS), "threads")  # the numeric keys


def series_keys(results: BenchResults, x: str) -> list[str]:
    """streams first (always a series), then any other swept key."""
    return ["streams", *(k for k in results.swept if k not in (x, "streams"))]


def _series(results: BenchResults, x: str) -> dict[str, list[Summary]]:
    keys = series_keys(results, x)
    out: dict[str, list[Summary]] = {}
    for s in results.summary:
        label = ", ".join(str(getattr(s, k)) if k == "streams" else f"{k}={s.shown(k)}" for k in keys)
        out.setdefault(label, []).append(s)
    for points in out.values():
        points.sort(key=lambda s: float(getattr(s, x) or 0))
    return dict(sorted(out.items()))  # the same colour for the same series in every plot


def _fixed_note(results: BenchResults, x: str) -> str:
    """What every point shares: profile, backend, and the keys that are not swept."""
    varying = {x, *series_keys(results, x)}
    parts = []
    for key in ("threads", "depth", "batch", "sync_every", "clients", "rate"):
        values = {getattr(s, key) for s in results.summary} - {None}
        if key not in varying and len(values) == 1:
            suffix = " (per_thread)" if key == "sync_every" and "streams" in results.swept else ""
            parts.append(f"{key} {values.pop()}{suffix}")
    c = results.context
    runs = f"median of {c.repeat} runs" if c.repeat > 1 else "1 run"
    return ", ".join([f"{c.profile} on {c.backend or '?'}", *parts, f"{runs} per point, {c.duration_s:g} s each"])


def _server(results: BenchResults) -> bool:
    return any(s.serving is not None or s.clients is not None or s.rate is not None for s in results.summary)


def _per_second(results: BenchResults) -> str:
    """A server's throughput counts requests, a frame pipeline's frames."""
    return "requests/s" if _server(results) else "frames/s"


def _unit(results: BenchResults) -> str:
    return "requests/s" if _server(results) else "QPS"


def _title(results: BenchResults, what: str, x: str) -> str:
    note = "\n".join(textwrap.wrap(_fixed_note(results, x), width=90))
    return f"{Path(results.context.spec).name}: {what} vs {x}\n{note}"


def _style_x(ax: Axes, x: str, values: Sequence[float]) -> None:
    ticks = sorted(set(values))
    if x in ("batch", "sync_every") and len(ticks) > 1 and ticks[-1] / max(ticks[0], 1) >= 8:
        ax.set_xscale("log", base=2)
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.set_xlabel(AXIS_LABELS[x])
    ax.grid(True, alpha=0.3)


BEST_STYLE = {"marker": "*", "ms": 16, "color": "gold", "markeredgecolor": "black", "zorder": 5}
SLO_STYLE = {"color": "red", "linewidth": 1.2, "linestyle": "-.", "alpha": 0.8}


def _slo(results: BenchResults, slo: Mapping[str, float] | None) -> Mapping[str, float]:
    """The gates to draw: those given, else the ones the results recorded from the spec."""
    return results.slo if slo is None else slo


def _best_handle(top: Summary, what: str) -> Line2D:
    from matplotlib.lines import Line2D

    style = {k: v for k, v in BEST_STYLE.items() if k != "zorder"}
    return Line2D([], [], linestyle="none", label=f"best (knee), {what}:\n{top.label()}", **style)  # type: ignore[arg-type]


def _roofline_dashes(i: int, n: int) -> tuple[float, tuple[float, float]]:
    """Dashes that interleave: where several series share a roofline, every colour shows."""
    return (4.0 * i, (4.0, 4.0 * max(n - 1, 1)))


def plot_qps(results: BenchResults, path: Path, slo: Mapping[str, float] | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    x = x_key(results)
    fig, ax = plt.subplots(figsize=(10, 5), dpi=120)
    xs_all: list[float] = []
    handles: list[Line2D] = []
    series = _series(results, x)
    for i, (label, points) in enumerate(series.items()):
        color = f"C{i}"
        xs = [float(getattr(s, x)) for s in points]
        xs_all += xs
        med = [s.qps_median for s in points]
        err = [
            [m - s.qps_min for m, s in zip(med, points, strict=True)],
            [s.qps_max - m for m, s in zip(med, points, strict=True)],
        ]
        ax.errorbar(xs, med, yerr=err, color=color, marker="o", capsize=3)
        roofline = [s.roofline_qps for s in points]
        ax.plot(xs, roofline, color=color, linestyle=_roofline_dashes(i, len(series)), alpha=0.8)
        handles.append(Line2D([], [], color=color, marker="o", label=f"{label}: measured (median, min-max)"))
        handles.append(Line2D([], [], color=color, linestyle="--", alpha=0.8, label=f"{label}: roofline (plan)"))
    top = best(results.summary, results.slo_misses)
    if top is not None:
        ax.plot([float(getattr(top, x))], [top.qps_median], **BEST_STYLE)  # type: ignore[arg-type]
        handles.append(_best_handle(top, f"{top.qps_median:,.0f} {_unit(results)}"))
    gates = _slo(results, slo)
    if "min_qps" in gates:
        ax.axhline(gates["min_qps"], **SLO_STYLE)  # type: ignore[arg-type]
        handles.append(Line2D([], [], label=f"SLO: min_qps {gates['min_qps']:g}", **SLO_STYLE))  # type: ignore[arg-type]
    _style_x(ax, x, xs_all)
    ax.set_ylabel(f"throughput ({_per_second(results)})")
    ax.set_ylim(bottom=0)
    ax.set_title(_title(results, "throughput", x), fontsize=10)
    ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_latency(results: BenchResults, path: Path, slo: Mapping[str, float] | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    x = x_key(results)
    fig, ax = plt.subplots(figsize=(10, 5), dpi=120)
    xs_all: list[float] = []
    handles = []
    for i, (label, points) in enumerate(_series(results, x).items()):
        color = f"C{i}"
        xs = [float(getattr(s, x)) for s in points]
        xs_all += xs
        for name, style in PERCENTILES:
            ax.plot(xs, [getattr(s.latency_ms, name) for s in points], color=color, linestyle=style, marker="o", ms=3)
        handles.append(Line2D([], [], color=color, label=label))
    handles += [Line2D([], [], color="0.3", linestyle=style, label=name) for name, style in PERCENTILES]
    top = best(results.summary, results.slo_misses)
    if top is not None:
        ax.plot([float(getattr(top, x))], [top.latency_ms.p99], **BEST_STYLE)  # type: ignore[arg-type]
        handles.append(_best_handle(top, f"p99 {top.latency_ms.p99:,.1f} ms"))
    gates = _slo(results, slo)
    if "max_p99_ms" in gates:
        ax.axhline(gates["max_p99_ms"], **SLO_STYLE)  # type: ignore[arg-type]
        handles.append(Line2D([], [], label=f"SLO: max_p99_ms {gates['max_p99_ms']:g}", **SLO_STYLE))  # type: ignore[arg-type]
    _style_x(ax, x, xs_all)
    ax.set_ylabel("latency per frame, submit to completion (ms)")
    ax.set_ylim(bottom=0)
    ax.set_title(_title(results, "latency percentiles", x), fontsize=10)
    ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_p99_vs_qps(results: BenchResults, path: Path, slo: Mapping[str, float] | None = None) -> None:
    """p99 latency against achieved QPS (median), one line per series in the order of the swept
    parameter, each point labelled with its value: what each layout's throughput costs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    x = x_key(results)
    fig, ax = plt.subplots(figsize=(10, 5), dpi=120)
    handles: list[Line2D] = []
    for i, (label, points) in enumerate(_series(results, x).items()):
        color = f"C{i}"
        qps = [s.qps_median for s in points]
        p99 = [s.latency_ms.p99 for s in points]
        ax.plot(qps, p99, color=color, marker="o")
        for s, q, p in zip(points, qps, p99, strict=True):
            ax.annotate(f"{getattr(s, x)}", (q, p), textcoords="offset points", xytext=(4, 4), fontsize=7, color=color)
        handles.append(Line2D([], [], color=color, marker="o", label=f"{label} (points: {x})"))
    top = best(results.summary, results.slo_misses)
    if top is not None:
        ax.plot([top.qps_median], [top.latency_ms.p99], **BEST_STYLE)  # type: ignore[arg-type]
        handles.append(_best_handle(top, f"{top.qps_median:,.0f} QPS, p99 {top.latency_ms.p99:,.1f} ms"))
    gates = _slo(results, slo)
    if "min_qps" in gates:
        ax.axvline(gates["min_qps"], **SLO_STYLE)  # type: ignore[arg-type]
        handles.append(Line2D([], [], label=f"SLO: min_qps {gates['min_qps']:g}", **SLO_STYLE))  # type: ignore[arg-type]
    if "max_p99_ms" in gates:
        ax.axhline(gates["max_p99_ms"], **SLO_STYLE)  # type: ignore[arg-type]
        handles.append(Line2D([], [], label=f"SLO: max_p99_ms {gates['max_p99_ms']:g}", **SLO_STYLE))  # type: ignore[arg-type]
    ax.set_xlabel(f"achieved throughput, median of repeats ({_per_second(results)})")
    ax.set_ylabel("p99 latency per frame (ms)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.set_title(_title(results, "p99 latency", x).replace(f" vs {x}", " vs achieved QPS"), fontsize=10)
    ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


PLOTS = ("qps.png", "latency.png", "p99_vs_qps.png")


def write_plots(results: BenchResults, out_dir: Path, slo: Mapping[str, float] | None = None) -> list[str]:
    """The three plots into ``out_dir`` (the SLO: ``slo``, else the one the results recorded),
    and scaling.png and jitter.png where the results hold their data (plots_deployment), breakdown.png
    where they hold a graph program's latency breakdown (ascgen/bench/breakdown.py);
    returns their file names."""
    from ascgen.bench import breakdown
    from ascgen.bench import plots_deployment as more

    if not results.summary:
        return []
    plot_qps(results, out_dir / PLOTS[0], slo)
    plot_latency(results, out_dir / PLOTS[1], slo)
    plot_p99_vs_qps(results, out_dir / PLOTS[2], slo)
    names = list(PLOTS)
    if more.has_scaling(results):
        more.plot_scaling(results, out_dir / "scaling.png")
        names.append("scaling.png")
    if more.has_jitter(results):
        more.plot_jitter(results, out_dir / "jitter.png")
        names.append("jitter.png")
    if breakdown.has_breakdown(results):  # a graph program's latency by part
        breakdown.plot(results, out_dir / breakdown.PLOT)
        names.append(breakdown.PLOT)
    return names
