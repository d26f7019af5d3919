"""How a comparison of two results files looks on the terminal."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ascgen.bench.compare import Comparison

VERDICT_STYLE = {"faster": "green", "slower": "bold red", "within noise": "dim"}
COLUMNS = (
    "configuration", "old QPS", "new QPS", "change", "threshold", "verdict",
    "old p99 ms", "new p99 ms", "p99 change", "p99 threshold", "p99 verdict",
)  # fmt: skip


def _change(ratio: float) -> str:
    return f"{ratio - 1:+.1%}" if ratio != float("inf") else "from 0"


def table(comparison: Comparison, old_name: str, new_name: str) -> Table:
    t = Table(title=f"{old_name} -> {new_name}")
    for name in COLUMNS:
        t.add_column(name, justify="left" if name in ("configuration", "verdict", "p99 verdict") else "right")
    for r in comparison.rows:
        t.add_row(
            r.config.label(),
            f"{r.old.qps_median:,.1f}",
            f"{r.new.qps_median:,.1f}",
            _change(r.ratio),
            f"±{r.threshold:.1%}",
            f"[{VERDICT_STYLE[r.verdict]}]{r.verdict}[/]",
            f"{r.old.latency_ms.p99:,.1f}",
            f"{r.new.latency_ms.p99:,.1f}",
            _change(r.p99_ratio),
            f"±{r.p99_threshold:.1%}",
            f"[{VERDICT_STYLE[r.p99_verdict]}]{r.p99_verdict}[/]",
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
    rows = comparison.rows
    n = sum(r.verdict == "slower" for r in rows)
    faster = sum(r.verdict == "faster" for r in rows)
    p99_slower = sum(r.p99_verdict == "slower" for r in rows)
    console.print(
        f"{len(rows)} compared: {faster} faster, {n} slower, {len(rows) - faster - n} within noise; "
        f"p99 latency slower in {p99_slower}"
    )
    for r in rows:
        if r.p99_verdict == "slower":
            console.print(
                f"p99 regression: {r.config.label()}: {r.old.latency_ms.p99:,.1f} -> {r.new.latency_ms.p99:,.1f} ms "
                f"({_change(r.p99_ratio)}, threshold ±{r.p99_threshold:.1%})"
            )
