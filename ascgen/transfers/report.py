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
from typing import TYPE_CHECKING, Literal

from ascgen.transfers.probe import Row, columns, size_label

if TYPE_CHECKING:
    from matplotlib.figure import Figure

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
        title = group_title(topology, op)
        out.append((f"{title} ({UNITS[unit][1]})", ["block", *cols], body))
    return out


def _width(header: Sequence[str], body: Sequence[Sequence[str]]) -> int:
    """Characters of a boxed terminal table: each column its widest line plus 3, and 1."""
    widest = [max(len(line) for line in h.split("\n")) for h in header]
    for cells in body:
        widest = [max(w, len(c)) for w, c in zip(widest, cells, strict=True)]
    return sum(w + 3 for w in widest) + 1


def fitted_header(header: Sequence[str], body: Sequence[Sequence[str]], width: int) -> tuple[list[str], list[str]]:
    """Headers that fit ``width`` without cutting a name: as they are when they fit; else each
    wrapped at its underscores (every letter kept); else short labels (A, B, ...) and a legend
    line per column naming it in full."""
    if _width(header, body) <= width:
        return list(header), []
    wrapped = [header[0], *(h.replace("_", "_\n") for h in header[1:])]
    if _width(wrapped, body) <= width:
        return wrapped, []
    short = [header[0], *(_label(i) for i in range(len(header) - 1))]
    return short, [f"{s}: {h}" for s, h in zip(short[1:], header[1:], strict=True)]


def _label(i: int) -> str:
    return chr(ord("A") + i) if i < 26 else f"C{i + 1}"


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


LINE_STYLES: tuple[Literal["-", "--", ":", "-."], ...] = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D", "v")


def plot(rows: Sequence[Row], path: Path, title: str, unit: str = "GiB") -> None:
    """The figure (see ``figure``) as a PNG; nothing when no case succeeded."""
    import matplotlib.pyplot as plt

    fig = figure(rows, title, unit)
    if fig is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def figure(rows: Sequence[Row], title: str, unit: str = "GiB") -> Figure | None:
    """One plot: bandwidth in ``unit`` against block size (log scale); a colour per column (the
    same column the same colour in every group), a line style and marker per group (topology
    and operation); two legends beside the plot say which is which. Each line's label is
    ``_column|group`` (hidden from the legends)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    grouped = [(k, v) for k, v in groups(rows).items() if any(r.status == "ok" for r in v)]
    if not grouped:
        return None
    cols = columns([r for _, members in grouped for r in members])
    cmap = plt.get_cmap("tab10" if len(cols) <= 10 else "tab20")
    colour = {c: cmap(i % cmap.N) for i, c in enumerate(cols)}
    fig, ax = plt.subplots(figsize=(11, 6), dpi=110)
    styles = []
    for g, ((topology, op), members) in enumerate(grouped):
        style, marker = LINE_STYLES[g % len(LINE_STYLES)], MARKERS[g % len(MARKERS)]
        styles.append(Line2D([], [], color="0.3", linestyle=style, marker=marker, label=group_title(topology, op)))
        for col in columns(members):
            pts = sorted((r.block_bytes, in_unit(r.GBps, unit)) for r in members if r.column == col and r.GBps)
            if pts:
                xs, ys = [p[0] for p in pts], [p[1] for p in pts]
                label = f"_{col}|{group_title(topology, op)}"
                ax.plot(xs, ys, color=colour[col], linestyle=style, marker=marker, label=label)
    sizes = sorted({r.block_bytes for r in rows})
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [size_label(s) for s in sizes])
    ax.set_xlabel("block size")
    ax.set_ylabel(f"bandwidth ({UNITS[unit][1]})")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    swatches = [Line2D([], [], color=colour[c], linewidth=3, label=c) for c in cols]
    first = ax.legend(handles=swatches, title="column", fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.add_artist(first)
    if len(grouped) > 1:
        ax.legend(handles=styles, title="where", fontsize=8, loc="lower left", bbox_to_anchor=(1.01, 0.0))
    ax.set_title(title, fontsize=11)
    fig.tight_layout()
    return fig


def group_title(topology: str, op: str) -> str:
    return GROUP_TITLES.get((topology, op), f"{topology}, {op}")
