"""How a comparison of two results files looks on the terminal."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ascgen.bench.compare import Comparison

VERDICT_STYLE = {"faster": "green", "slower": "bold red", "within noise": "dim"}


def table(comparison: Comparison, old_name: str, new_name: str) -> Table:
    t = Table(title=f"{old_name} -> {new_name}")
    for name in ("configuration", "old QPS", "new QPS", "change", "threshold", "verdict", "old p99 ms", "new p99 ms"):
        t.add_column(name, justify="left" if name in ("configuration", "verdict") else "right")
    for r in comparison.rows:
        t.add_row(
            r.config.label(),
            f"{r.old.qps_median:,.1f}",
            f"{r.new.qps_median:,.1f}",
            f"{r.ratio - 1:+.1%}",
            f"±{r.threshold:.1%}",
            f"[{VERDICT_STYLE[r.verdict]}]{r.verdict}[/]",
            f"{r.old.latency_ms.p99:,.1f}",
            f"{r.new.latency_ms.p99:,.1f}",
        )
    return t


def print_comparison(comparison: Comparison, old_name: str, new_name: str, console: Console) -> None:
    if comparison.rows:
        console.print(table(comparison, old_name, new_name))
    else:
        console.print("no configuration was measured in both files")
    for c in comparison.only_old:
        console.print(f"missing in {new_name}: {c.label()}")
    for c in comparison.only_new:
        console.print(f"new in {new_name} (nothing to compare with): {c.label()}")
    if comparison.context_changes:
        console.print("context differs: " + "; ".join(comparison.context_changes))
    n = len(comparison.slower)
    faster = sum(r.verdict == "faster" for r in comparison.rows)
    console.print(
        f"{len(comparison.rows)} compared: {faster} faster, {n} slower, "
        f"{len(comparison.rows) - faster - n} within noise"
    )
