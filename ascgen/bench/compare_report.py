"""How a comparison of two results files looks: on the terminal, as JSON and as Markdown (for CI)."""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table

from ascgen.bench.compare import Comparison, Row
from ascgen.bench.markdown_table import table_lines

VERDICT_STYLE = {"faster": "green", "slower": "bold red", "within noise": "dim"}
COLUMNS = (
    "configuration", "old QPS", "new QPS", "change", "threshold", "verdict",
    "old p99 ms", "new p99 ms", "p99 change", "p99 threshold", "p99 verdict",
)  # fmt: skip
JSON_VERSION = 1  # of the document `ascgen compare --json` writes


def columns(comparison: Comparison) -> list[str]:
    """COLUMNS named in the unit of what was compared: requests/s when every row is a server's
    load (clients or rate), frames' QPS when none is, "throughput" for a mix."""
    servers = [r.config.clients is not None or r.config.rate is not None for r in comparison.rows]
    unit = "req/s" if servers and all(servers) else "throughput" if any(servers) else "QPS"
    return [c.replace("QPS", unit) for c in COLUMNS]


def _change(ratio: float) -> str:
    return f"{ratio - 1:+.1%}" if ratio != float("inf") else "from 0"


def cells(r: Row) -> list[str]:
    """One compared configuration as plain text, in COLUMNS' order."""
    return [
        r.config.label(),
        f"{r.old.qps_median:,.1f}",
        f"{r.new.qps_median:,.1f}",
        _change(r.ratio),
        f"±{r.threshold:.1%}",
        r.verdict,
        f"{r.old.latency_ms.p99:,.1f}",
        f"{r.new.latency_ms.p99:,.1f}",
        _change(r.p99_ratio),
        f"±{r.p99_threshold:.1%}",
        r.p99_verdict,
    ]


def table(comparison: Comparison, old_name: str, new_name: str) -> Table:
    """The configuration column is never cut: it is as wide as its longest label, and the
    figures wrap instead."""
    t = Table(title=f"{old_name} -> {new_name}")
    widest = max((len(r.config.label()) for r in comparison.rows), default=len(COLUMNS[0]))
    for name in columns(comparison):
        if name == "configuration":
            t.add_column(name, justify="left", no_wrap=True, min_width=widest)
        else:
            t.add_column(name, justify="left" if name.endswith("verdict") else "right")
    for r in comparison.rows:
        text = cells(r)
        text[5] = f"[{VERDICT_STYLE[r.verdict]}]{r.verdict}[/]"
        text[10] = f"[{VERDICT_STYLE[r.p99_verdict]}]{r.p99_verdict}[/]"
        t.add_row(*text)
    return t


def counts_line(comparison: Comparison) -> str:
    rows = comparison.rows
    n = sum(r.verdict == "slower" for r in rows)
    faster = sum(r.verdict == "faster" for r in rows)
    p99_slower = sum(r.p99_verdict == "slower" for r in rows)
    baseline = len(rows) + len(comparison.only_old)
    return (
        f"{len(rows)} compared ({len(rows)} of the baseline's {baseline} matched): {faster} faster, {n} slower, "
        f"{len(rows) - faster - n} within noise; p99 latency slower in {p99_slower}"
    )


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
    console.print(counts_line(comparison))
    for r in comparison.rows:
        if r.p99_verdict == "slower":
            console.print(
                f"p99 regression: {r.config.label()}: {r.old.latency_ms.p99:,.1f} -> {r.new.latency_ms.p99:,.1f} ms "
                f"({_change(r.p99_ratio)}, threshold ±{r.p99_threshold:.1%})"
            )


def to_json(comparison: Comparison, old_name: str, new_name: str, failures: list[str]) -> str:
    """The comparison for CI: every compared configuration with both sides' figures and
    verdicts, the unmatched ones, and whether the gate passed (``failures``: why not)."""
    rows = [
        {
            "configuration": r.config.model_dump(mode="json", exclude_none=True),
            "label": r.config.label(),
            "old_qps": r.old.qps_median,
            "new_qps": r.new.qps_median,
            "qps_ratio": None if r.ratio == float("inf") else r.ratio,
            "qps_threshold": r.threshold,
            "verdict": r.verdict,
            "old_p99_ms": r.old.latency_ms.p99,
            "new_p99_ms": r.new.latency_ms.p99,
            "p99_ratio": None if r.p99_ratio == float("inf") else r.p99_ratio,
            "p99_threshold": r.p99_threshold,
            "p99_verdict": r.p99_verdict,
        }
        for r in comparison.rows
    ]
    doc = {
        "schema_version": JSON_VERSION,
        "old": old_name,
        "new": new_name,
        "passed": not failures,
        "failures": failures,
        "matched": comparison.matched,
        "rows": rows,
        "only_old": [c.label() for c in comparison.only_old],
        "only_new": [c.label() for c in comparison.only_new],
        "context_changes": comparison.context_changes,
    }
    return json.dumps(doc, indent=2) + "\n"


def markdown(comparison: Comparison, old_name: str, new_name: str, failures: list[str]) -> str:
    """The comparison as Markdown, fit for a pull request comment."""
    verdict = "**failed**: " + "; ".join(failures) if failures else "passed"
    lines = [f"### ascgen compare: `{old_name}` -> `{new_name}`", "", f"Gate {verdict}.", ""]
    if comparison.rows:
        body = [[f"`{r.config.label()}`", *cells(r)[1:]] for r in comparison.rows]
        lines += [*table_lines(columns(comparison), body), ""]
    lines += [f"- missing in `{new_name}`: `{c.label()}`" for c in comparison.only_old]
    lines += [f"- new in `{new_name}` (nothing to compare with): `{c.label()}`" for c in comparison.only_new]
    if comparison.context_changes:
        lines.append("- context differs: " + "; ".join(comparison.context_changes))
    lines += ["", counts_line(comparison) + "."]
    return "\n".join(lines) + "\n"
