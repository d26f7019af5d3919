"""One self-contained HTML page per run (bench, tune, probe): a headline sentence, charts and
sortable tables. Everything is inline (CSS, the script that draws the charts as SVG and sorts
the tables, the data as JSON), so the file opens offline, from a mail or an archived CI job.

The page is built from plain values (``Page`` of ``Section`` of ``Chart``/``Table``/text); the
commands' own modules (ascgen.bench.html, ascgen.tune.html, ascgen.transfers.html) fill them
from the data their other reports use. The output is deterministic (no time, no random ids)."""

from __future__ import annotations

import html
import json
from dataclasses import asdict, dataclass, field
from typing import Literal

# Distinct colours, in the order series take them (a series keeps its colour in every chart
# that names it the same way).
PALETTE = (
    "#1f5fa6", "#d9480f", "#2b8a3e", "#862e9c", "#c92a2a", "#0b7285", "#e67700", "#5c940d", "#a61e4d", "#364fc7",
    "#495057", "#087f5b",
)  # fmt: skip


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    tip: str  # shown on hover
    mark: Literal["", "best", "default"] = ""


@dataclass(frozen=True)
class Series:
    name: str
    points: list[Point]
    line: bool = True  # joined in x order; False: scattered points


@dataclass(frozen=True)
class Rule:
    """A reference line: an SLO, a ceiling."""

    axis: Literal["x", "y"]
    value: float
    label: str


@dataclass(frozen=True)
class XYChart:
    title: str
    x_label: str
    y_label: str
    series: list[Series]
    log_x: bool = False
    rules: list[Rule] = field(default_factory=list)
    x_names: dict[int, str] = field(default_factory=dict)  # tick labels by x ("4K" for 4096)
    kind: Literal["xy"] = "xy"


@dataclass(frozen=True)
class BarChart:
    """Horizontal bars: one group per category, one bar per series in it."""

    title: str
    value_label: str
    categories: list[str]
    series: list[tuple[str, list[float]]]  # (name, a value per category)
    kind: Literal["bars"] = "bars"


Chart = XYChart | BarChart


@dataclass(frozen=True)
class Cell:
    text: str
    sort: float | str | None = None  # the key the column sorts by; None: the text


@dataclass(frozen=True)
class Table:
    caption: str
    header: list[str]
    rows: list[list[Cell]]
    marked: set[int] = field(default_factory=set)  # rows shown in bold (the best, the winner)
    note: str = ""


@dataclass(frozen=True)
class Section:
    heading: str
    parts: list[Chart | Table | str]  # a str is a paragraph


@dataclass(frozen=True)
class Page:
    title: str
    headline: str  # the sentence the page opens with
    context: str  # where and how it was measured
    sections: list[Section]
    warnings: list[str] = field(default_factory=list)


def number(value: float, fmt: str = ",.1f") -> Cell:
    return Cell(format(value, fmt), value)


def percent_better(new: float, old: float) -> float:
    return (new / old - 1) * 100 if old > 0 else 0.0


def _script_json(data: object) -> str:
    """JSON that cannot end the script element it sits in."""
    return json.dumps(data, separators=(",", ":"), sort_keys=True).replace("</", "<\\/")


def _table(t: Table, index: int) -> str:
    head = "".join(f'<th scope="col" data-col="{i}">{html.escape(h)}</th>' for i, h in enumerate(t.header))
    body = []
    for r, cells in enumerate(t.rows):
        tds = []
        for c in cells:
            key = c.text if c.sort is None else c.sort
            kind = "n" if isinstance(key, int | float) else "s"
            tds.append(f'<td data-{kind}="{html.escape(str(key))}">{html.escape(c.text)}</td>')
        cls = ' class="marked"' if r in t.marked else ""
        body.append(f"<tr{cls}>{''.join(tds)}</tr>")
    note = f'<p class="note">{html.escape(t.note)}</p>' if t.note else ""
    return (
        f'<table class="sortable" id="table-{index}"><caption>{html.escape(t.caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{note}"
    )


def render(page: Page) -> str:
    charts: list[dict[str, object]] = []
    tables = 0
    parts = []
    for section in page.sections:
        parts.append(f"<section><h2>{html.escape(section.heading)}</h2>")
        for part in section.parts:
            if isinstance(part, str):
                parts.append(f"<p>{html.escape(part)}</p>")
            elif isinstance(part, Table):
                parts.append(_table(part, tables))
                tables += 1
            else:
                parts.append(f'<figure class="chart" id="chart-{len(charts)}"></figure>')
                charts.append(asdict(part))
        parts.append("</section>")
    warnings = "".join(f"<li>{html.escape(w)}</li>" for w in page.warnings)
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{html.escape(page.title)}</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{CSS}</style></head>\n<body>'
        f"<h1>{html.escape(page.title)}</h1>"
        f'<p class="headline">{html.escape(page.headline)}</p>'
        f'<p class="context">{html.escape(page.context)}</p>'
        + (f'<ul class="warnings">{warnings}</ul>' if warnings else "")
        + "\n".join(parts)
        + f'\n<script type="application/json" id="charts">{_script_json(charts)}</script>'
        f'\n<script type="application/json" id="palette">{_script_json(PALETTE)}</script>'
        f"\n<script>{SCRIPT}</script>\n</body></html>\n"
    )


CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;padding:0 16px;color:#212529}
h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:28px 0 8px;border-bottom:1px solid #dee2e6}
.headline{font-size:17px;font-weight:600}.context{color:#495057}
.warnings{color:#a61e4d}.note{color:#495057;font-size:12px}
table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{border:1px solid #dee2e6;padding:3px 8px;text-align:right;white-space:nowrap}
th{background:#f1f3f5;cursor:pointer;user-select:none}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
td[data-s]{text-align:left}tr.marked td{font-weight:700}tbody tr:hover{background:#f8f9fa}
figure.chart{margin:8px 0}figcaption{font-weight:600}svg text{font:12px system-ui,sans-serif;fill:#212529}
svg .grid{stroke:#e9ecef}svg .axis{stroke:#868e96}svg .rule{stroke:#c92a2a;stroke-dasharray:4 3}
"""

# Draws each chart of the JSON block into its figure as SVG, and makes every table sortable
# (click a header: ascending, again: descending; numbers by value, text as text).
SCRIPT = """
"use strict";
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const palette = JSON.parse(document.getElementById("palette").textContent);
  const charts = JSON.parse(document.getElementById("charts").textContent);
  const colours = new Map();
  function colour(name) {
    if (!colours.has(name)) colours.set(name, palette[colours.size % palette.length]);
    return colours.get(name);
  }
  function el(parent, tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    parent.appendChild(node);
    return node;
  }
  function tip(node, text) { el(node, "title", {}, text); }
  function fmt(v, step) {
    const digits = Math.max(0, Math.min(6, -Math.floor(Math.log10(step || Math.abs(v) / 100 || 1))));
    return v.toLocaleString("en", {minimumFractionDigits: digits, maximumFractionDigits: digits});
  }
  function ticks(lo, hi, n) {
    const step0 = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(step0)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= step0);
    const out = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(t);
    out.step = step;
    return out;
  }
  function labels(ts) { return ts.map((t) => [t, fmt(t, ts.step)]); }
  // A chart's SVG: its plot area above, then the legend, a line per series.
  function frame(fig, title, height, names) {
    fig.appendChild(document.createElement("figcaption")).textContent = title;
    const full = height + 18 * names.length + 8;
    const svg = el(fig, "svg", {width: 900, height: full, viewBox: "0 0 900 " + full, role: "img"});
    names.forEach((name, i) => {
      el(svg, "rect", {x: 70, y: height + 4 + i * 18, width: 12, height: 12, fill: colour(name)});
      el(svg, "text", {x: 88, y: height + 14 + i * 18}, name);
    });
    return svg;
  }
  function xy(fig, c) {
    const W = 780, H = 360, L = 70, T = 16, svg = frame(fig, c.title, H + 64, c.series.map((s) => s.name));
    const pts = c.series.flatMap((s) => s.points);
    const xs = pts.map((p) => p.x).concat(c.rules.filter((r) => r.axis === "x").map((r) => r.value));
    const ys = pts.map((p) => p.y).concat(c.rules.filter((r) => r.axis === "y").map((r) => r.value));
    const fx = c.log_x ? Math.log2 : (v) => v;
    let x0 = Math.min(...xs.map(fx)), x1 = Math.max(...xs.map(fx));
    if (x0 === x1) { x0 -= 1; x1 += 1; }
    const pad = (x1 - x0) * 0.05; x0 -= pad; x1 += pad;
    const y1 = Math.max(...ys) * 1.08 || 1;
    const sx = (v) => L + ((fx(v) - x0) / (x1 - x0)) * W, sy = (v) => T + H - (v / y1) * H;
    for (const [t, text] of labels(ticks(0, y1, 6))) {
      el(svg, "line", {class: "grid", x1: L, x2: L + W, y1: sy(t), y2: sy(t)});
      el(svg, "text", {x: L - 6, y: sy(t) + 4, "text-anchor": "end"}, text);
    }
    const named = (t) => [t, c.x_names[t] || fmt(t, 1)];
    const xt = c.log_x ? [...new Set(pts.map((p) => p.x))].sort((a, b) => a - b).map(named)
                       : labels(ticks(x0 + pad, x1 - pad, 8));
    for (const [t, text] of xt) el(svg, "text", {x: sx(t), y: T + H + 16, "text-anchor": "middle"}, text);
    el(svg, "line", {class: "axis", x1: L, x2: L + W, y1: T + H, y2: T + H});
    el(svg, "line", {class: "axis", x1: L, x2: L, y1: T, y2: T + H});
    el(svg, "text", {x: L + W / 2, y: T + H + 36, "text-anchor": "middle"}, c.x_label);
    el(svg, "text", {x: 14, y: T + H / 2, transform: "rotate(-90 14 " + (T + H / 2) + ")",
                     "text-anchor": "middle"}, c.y_label);
    for (const r of c.rules) {
      const at = r.axis === "x" ? {x1: sx(r.value), x2: sx(r.value), y1: T, y2: T + H}
                                : {x1: L, x2: L + W, y1: sy(r.value), y2: sy(r.value)};
      tip(el(svg, "line", Object.assign({class: "rule"}, at)), r.label);
      el(svg, "text", {x: at.x2 - 4, y: at.y1 + 12, "text-anchor": "end", fill: "#c92a2a"}, r.label);
    }
    for (const s of c.series) {
      const col = colour(s.name), sorted = s.points.slice().sort((a, b) => a.x - b.x);
      if (s.line && sorted.length > 1) {
        const d = sorted.map((p, i) => (i ? "L" : "M") + sx(p.x).toFixed(1) + " " + sy(p.y).toFixed(1)).join(" ");
        el(svg, "path", {d: d, fill: "none", stroke: col, "stroke-width": 2, class: "series"});
      }
      for (const p of s.points) {
        const r = p.mark ? 7 : 4;
        const dot = el(svg, "circle", {cx: sx(p.x), cy: sy(p.y), r: r, fill: p.mark === "default" ? "#fff" : col,
                                       stroke: col, "stroke-width": 2, class: "point"});
        tip(dot, s.name + ": " + p.tip);
        if (p.mark) el(svg, "text", {x: sx(p.x) + 9, y: sy(p.y) - 8}, p.mark);
      }
    }
  }
  function bars(fig, c) {
    const n = c.series.length, band = Math.max(22, 10 * n + 12), L = 170, W = 680, T = 10;
    const H = band * c.categories.length, svg = frame(fig, c.title, H + 54, c.series.map((s) => s[0]));
    const top = Math.max(...c.series.flatMap((s) => s[1])) * 1.08 || 1, sx = (v) => L + (v / top) * W;
    for (const [t, text] of labels(ticks(0, top, 6))) {
      el(svg, "line", {class: "grid", x1: sx(t), x2: sx(t), y1: T, y2: T + H});
      el(svg, "text", {x: sx(t), y: T + H + 16, "text-anchor": "middle"}, text);
    }
    el(svg, "text", {x: L + W / 2, y: T + H + 36, "text-anchor": "middle"}, c.value_label);
    const h = (band - 8) / n;
    c.categories.forEach((cat, i) => {
      el(svg, "text", {x: L - 8, y: T + i * band + band / 2 + 4, "text-anchor": "end"}, cat);
      c.series.forEach(([name, values], j) => {
        const bar = el(svg, "rect", {x: L, y: T + i * band + 4 + j * h, width: Math.max(1, sx(values[i]) - L),
                                     height: h - 1, fill: colour(name), class: "bar"});
        tip(bar, cat + ", " + name + ": " + fmt(values[i], Math.abs(values[i]) / 1000) + " " + c.value_label);
      });
    });
  }
  charts.forEach((c, i) => {
    const fig = document.getElementById("chart-" + i);
    (c.kind === "bars" ? bars : xy)(fig, c);
    fig.dataset.drawn = "yes";
  });
  for (const table of document.querySelectorAll("table.sortable")) {
    const heads = table.querySelectorAll("th");
    heads.forEach((th) => th.addEventListener("click", () => {
      const col = Number(th.dataset.col), up = th.getAttribute("aria-sort") !== "ascending";
      heads.forEach((h) => h.removeAttribute("aria-sort"));
      th.setAttribute("aria-sort", up ? "ascending" : "descending");
      const key = (tr) => {
        const td = tr.children[col];
        return td.dataset.n !== undefined ? Number(td.dataset.n) : td.dataset.s;
      };
      const body = table.tBodies[0], rows = Array.from(body.rows);
      rows.sort((a, b) => {
        const ka = key(a), kb = key(b);
        const cmp = typeof ka !== typeof kb ? (typeof ka === "number" ? -1 : 1) : ka < kb ? -1 : ka > kb ? 1 : 0;
        return up ? cmp : -cmp;
      });
      rows.forEach((tr) => body.appendChild(tr));
    }));
  }
})();
"""
