"""``report.html`` of a transfer probe: the sentence that names the fastest transfer at the
largest block and by how much it beats the slowest there, bandwidth against block size (one
chart per topology and operation, one colour per column, the same in every chart) and the
tables, sortable. Drawn by ascgen.common.html from the rows the other reports use."""

from __future__ import annotations

from collections.abc import Sequence

from ascgen.common import html
from ascgen.transfers.probe import Row, columns, size_label
from ascgen.transfers.report import UNITS, group_title, groups, in_unit, table


def headline(rows: Sequence[Row], unit: str) -> str:
    ok = [r for r in rows if r.status == "ok" and r.GBps is not None]
    n, cols, sizes = len(rows), columns(rows), {r.block_bytes for r in rows}
    where = f"In {n} measurement{'s' if n != 1 else ''} across {len(cols)} transfers and {len(sizes)} block sizes"
    if not ok:
        return f"{where}, none succeeded."
    largest = max(r.block_bytes for r in ok)
    at = sorted((r for r in ok if r.block_bytes == largest), key=lambda r: -(r.GBps or 0.0))
    top, low = at[0], at[-1]
    speed = f"{in_unit(top.GBps or 0.0, unit):,.2f} {unit}/s"
    title = group_title(top.topology, top.op)
    if top is low:
        return f"{where}, {top.column} ({title}) moves {speed} at {size_label(largest)} blocks."
    gain = html.percent_better(top.GBps or 0.0, low.GBps or 0.0)
    return (
        f"{where}, {top.column} ({title}) is the fastest at {size_label(largest)} blocks: {speed}, {gain:,.0f} % "
        f"more than the slowest there ({low.column}, {in_unit(low.GBps or 0.0, unit):,.2f} {unit}/s)."
    )


def charts(rows: Sequence[Row], unit: str) -> list[html.Chart | html.Table | str]:
    out: list[html.Chart | html.Table | str] = []
    for (topology, op), members in groups(rows).items():
        series = []
        for col in columns(members):
            ok = sorted((r for r in members if r.column == col and r.GBps is not None), key=lambda r: r.block_bytes)
            points = [
                html.Point(r.block_bytes, in_unit(r.GBps or 0.0, unit),
                           f"{size_label(r.block_bytes)}: {in_unit(r.GBps or 0.0, unit):,.3f} {unit}/s")
                for r in ok
            ]  # fmt: skip
            if points:
                series.append(html.Series(col, points))
        if series:
            title = group_title(topology, op)
            names = {r.block_bytes: size_label(r.block_bytes) for r in members}
            out.append(html.XYChart(title, "block size (log scale)", f"{unit}/s", series, log_x=True, x_names=names))
    return out


def tables(rows: Sequence[Row], unit: str) -> list[html.Chart | html.Table | str]:
    out: list[html.Chart | html.Table | str] = []
    for title, header, body in table(rows, unit):
        cells = [
            [html.Cell(line[0], _bytes(line[0])), *(html.Cell(c, float(c) if _number(c) else None) for c in line[1:])]
            for line in body
        ]
        out.append(html.Table(title, header, cells))
    return out


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _bytes(label: str) -> float:
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(label[-1:], 1)
    return float(label[:-1]) * scale if scale > 1 else float(label)


def render(rows: Sequence[Row], title: str, context: str, unit: str = "GiB") -> str:
    sections = [
        html.Section("Bandwidth against block size", charts(rows, unit)),
        html.Section("Tables", [f"Bandwidth in {UNITS[unit][1]}; n/a: the case failed.", *tables(rows, unit)]),
    ]
    failed = [f"{r.column} {size_label(r.block_bytes)}: {r.reason or r.status}" for r in rows if r.status != "ok"]
    page = html.Page(title, headline(rows, unit), context, sections, warnings=failed[:20])
    return html.render(page)
