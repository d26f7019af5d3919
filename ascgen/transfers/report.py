"""Probe results in HIXL's layout: for each (topology, operation) a table of bandwidth with one row
per block size and one column per transfer; JSON and CSV like ``ascgen bench``; a plot of
bandwidth against block size per column.

Rows carry GB/s of 10**9 bytes (JSON, CSV). Tables and plots are in a chosen unit: ``GiB`` (2**30
bytes per second, what HIXL's tables call "GB/s", so they read against its page; the default) or
``GB``."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from ascgen.transfers.probe import Row, columns, size_label

# A unit's bytes, and its label in a table's title.
UNITS: dict[str, tuple[float, str]] = {
    "GiB": (float(1 << 30), 'GiB/s, HIXL\'s "GB/s"'),
    "GB": (1e9, "GB/s, 10^9 bytes"),
}

GROUP_TITLES = {
    ("local", "copy"): "copies on one device (aclrtMemcpy)",
    ("one_host", "write"): "one host, write",
    ("one_host", "read"): "one host, read",
    ("two_hosts", "write"): "two hosts, write",
    ("two_hosts", "read"): "two hosts, read",
}


def groups(rows: Sequence[Row]) -> dict[tuple[str, str], list[Row]]:
    out: dict[tuple[str, str], list[Row]] = {}
    for r in rows:
        out.setdefault((r.topology, r.op), []).append(r)
    return out


def in_unit(gbps: float, unit: str) -> float:
    """``gbps`` (10**9 bytes per second) in ``unit`` (a key of UNITS) per second."""
    return gbps * 1e9 / UNITS[unit][0]


def _cell(r: Row | None, unit: str) -> str:
    if r is None:
        return ""
    if r.status != "ok" or r.GBps is None:
        return "n/a"
    return f"{in_unit(r.GBps, unit):.3f}"


def table(rows: Sequence[Row], unit: str = "GiB") -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, body) per group: rows by block size, a column per transfer; the title
    ends with the unit."""
    out = []
    for (topology, op), members in groups(rows).items():
        cols = columns(members)
        sizes = sorted({r.block_bytes for r in members})
        by = {(r.column, r.block_bytes): r for r in members}
        body = [[size_label(s), *(_cell(by.get((c, s)), unit) for c in cols)] for s in sizes]
        title = GROUP_TITLES.get((topology, op), f"{topology}, {op}")
        out.append((f"{title} ({UNITS[unit][1]})", ["block", *cols], body))
    return out


def markdown(rows: Sequence[Row], heading: str = "###", unit: str = "GiB") -> str:
    parts = []
    for title, header, body in table(rows, unit):
        parts.append(f"{heading} {title}\n")
        parts.append("| " + " | ".join(header) + " |")
        parts.append("|" + "---|" * len(header))
        parts += ["| " + " | ".join(line) + " |" for line in body]
        parts.append("")
    return "\n".join(parts)


CSV_FIELDS = [
    "topology", "op", "column", "block_bytes", "status", "GBps", "GBps_min", "GBps_max", "repeat", "seconds", "bytes",
    "reason",
]  # fmt: skip


def to_csv(rows: Sequence[Row]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for r in rows:
        d = asdict(r)
        writer.writerow({k: "" if d[k] is None else d[k] for k in CSV_FIELDS})
    return buf.getvalue()


def to_json(rows: Sequence[Row], meta: dict[str, object]) -> str:
    data = {**meta, "rows": [asdict(r) for r in rows]}
    return json.dumps(data, indent=2, sort_keys=False) + "\n"


def plot(rows: Sequence[Row], path: Path, title: str, unit: str = "GiB") -> None:
    """Bandwidth in ``unit`` against block size (log scale), a line per column, a panel per group."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grouped = [(k, v) for k, v in groups(rows).items() if any(r.status == "ok" for r in v)]
    if not grouped:
        return
    fig, axes = plt.subplots(1, len(grouped), figsize=(4.6 * len(grouped), 4.2), squeeze=False, sharey=False)
    for ax, ((topology, op), members) in zip(axes[0], grouped, strict=True):
        for col in columns(members):
            ok = [r for r in members if r.column == col and r.GBps is not None]
            pts = sorted((r.block_bytes, in_unit(r.GBps or 0.0, unit)) for r in ok)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=col)
        ax.set_xscale("log", base=2)
        sizes = sorted({r.block_bytes for r in members})
        ax.set_xticks(sizes, [size_label(s) for s in sizes])
        ax.set_xlabel("block size")
        ax.set_ylabel(f"{unit}/s")
        ax.set_title(GROUP_TITLES.get((topology, op), f"{topology}, {op}"), fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
