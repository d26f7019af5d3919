"""A graph program's latency breakdown in ``ascgen bench``: where a frame's latency goes, part by
part (the program's ``latency_breakdown_ms``: a stage's name where the part is one; docs/graphs.md,
the latency breakdown), and each object's latency (``object_latency_ms``). A run's record keeps
both; a configuration's summary the mean of each part and the median of each percentile over its
repeats; the console and summary.md show the best configuration's, breakdown.png every
configuration's as stacked bars."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ascgen.bench.markdown_table import table_lines
from ascgen.bench.report import best
from ascgen.bench.schema import BenchResults, Breakdown, ObjectLatency, ProgramReport, Summary

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

PLOT = "breakdown.png"


def of_report(report: ProgramReport, scale: float) -> Breakdown | None:
    """A run's breakdown, in the device's time (milliseconds / the time scale)."""
    parts = report.latency_breakdown_ms
    if not parts:
        return None
    objects = None
    if (o := report.object_latency_ms) is not None:
        objects = ObjectLatency(
            objects=o.objects,
            from_crop_p50=o.from_crop.p50 / scale,
            from_crop_p99=o.from_crop.p99 / scale,
            from_arrival_p50=o.from_arrival.p50 / scale,
            from_arrival_p99=o.from_arrival.p99 / scale,
        )
    return Breakdown(parts_ms={k: v / scale for k, v in parts.items()}, objects=objects)


def summary(runs: Sequence[Breakdown]) -> Breakdown | None:
    """A configuration's: each part's mean over its repeats (the parts of the first; a part a run
    lacks counts 0), its objects' percentiles the median, their count summed."""
    if not runs:
        return None
    names = list(dict.fromkeys(k for r in runs for k in r.parts_ms))
    parts = {k: statistics.fmean(r.parts_ms.get(k, 0.0) for r in runs) for k in names}
    timed = [r.objects for r in runs if r.objects is not None]
    objects = None
    if timed:
        keys = ("from_crop_p50", "from_crop_p99", "from_arrival_p50", "from_arrival_p99")
        objects = ObjectLatency(
            objects=sum(o.objects for o in timed),
            **{k: statistics.median(getattr(o, k) for o in timed) for k in keys},
        )
    return Breakdown(parts_ms=parts, objects=objects)


def _shown(results: BenchResults) -> Summary | None:
    """The configuration whose breakdown is shown: the best one, else the first that has one."""
    top = best(results.summary, results.slo_misses)
    if top is not None and top.breakdown is not None:
        return top
    return next((s for s in results.summary if s.breakdown is not None), None)


def rows(b: Breakdown) -> list[list[str]]:
    """(part, mean ms, share of the sum) per part, then the total."""
    total = sum(b.parts_ms.values())
    out = [[k, f"{v:,.2f}", f"{100 * v / total:.1f} %" if total > 0 else "-"] for k, v in b.parts_ms.items()]
    return [*out, ["total", f"{total:,.2f}", "100 %" if total > 0 else "-"]]


def objects_line(b: Breakdown) -> str | None:
    o = b.objects
    if o is None or o.objects == 0:
        return None if o is None else "per object: no objects"
    return (
        f"per object ({o.objects:,} objects): from its crop call to its scores p50 {o.from_crop_p50:,.2f} ms, "
        f"p99 {o.from_crop_p99:,.2f} ms; from its frame's arrival p50 {o.from_arrival_p50:,.2f} ms, "
        f"p99 {o.from_arrival_p99:,.2f} ms"
    )


def _title(s: Summary) -> str:
    return f"where a frame's latency goes ({s.label()}, mean over {s.repeats} repeat(s))"


def table(s: Summary) -> Table:
    from rich.table import Table

    assert s.breakdown is not None
    t = Table(title="where a frame's latency goes")
    t.add_column("stage", justify="left", no_wrap=True)
    for name in ("mean ms", "share"):
        t.add_column(name, justify="right", no_wrap=True)
    for cells in rows(s.breakdown):
        t.add_row(*cells, style="bold" if cells[0] == "total" else None)
    return t


def print_breakdown(results: BenchResults, console: Console) -> None:
    """The best configuration's breakdown and objects (nothing for a program without one)."""
    s = _shown(results)
    if s is None or s.breakdown is None:
        return
    console.print(table(s))
    console.print(f"breakdown of {s.label()}, mean over {s.repeats} repeat(s)", highlight=False)
    line = objects_line(s.breakdown)
    if line is not None:
        console.print(line, highlight=False)


def markdown_lines(results: BenchResults) -> list[str]:
    s = _shown(results)
    if s is None or s.breakdown is None:
        return []
    lines = ["", f"Breakdown: {_title(s)}; the parts are the program's `latency_breakdown_ms` (docs/graphs.md).", ""]
    lines += table_lines(["stage", "mean ms", "share"], rows(s.breakdown))
    line = objects_line(s.breakdown)
    return lines + (["", line[0].upper() + line[1:] + "."] if line else [])


def plot(results: BenchResults, path: Path) -> None:
    """One horizontal bar per configuration with a breakdown, its parts stacked in order."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [s for s in results.summary if s.breakdown is not None]
    names = list(dict.fromkeys(k for s in shown for k in (s.breakdown.parts_ms if s.breakdown else {})))
    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.5 * len(shown)), dpi=120)
    labels = [s.label() for s in shown]
    left = [0.0] * len(shown)
    for i, name in enumerate(names):
        widths = [s.breakdown.parts_ms.get(name, 0.0) if s.breakdown else 0.0 for s in shown]
        ax.barh(labels, widths, left=left, color=f"C{i % 10}", hatch="//" if i >= 10 else None, label=name)
        left = [a + w for a, w in zip(left, widths, strict=True)]
    ax.set_xlabel("mean latency per frame, by part (ms)")
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=7)
    ax.set_title(f"{results.context.spec}: where a frame's latency goes", fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def has_breakdown(results: BenchResults) -> bool:
    return any(s.breakdown is not None for s in results.summary)
