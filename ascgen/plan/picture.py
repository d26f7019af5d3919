"""The plan's graph as a picture: an SVG document, drawn here (no Graphviz), the same bytes for
the same plan (`ascgen plan SPEC --svg FILE`; docs/graphs.md shows the examples').

Stages stand top to bottom in spec order under the source, each a box with its name, kind and
engine. A stage reading the one just above it hangs from it by a straight arrow labelled with
what flows; any other input (a crop's `image`) is an arc on the right, labelled with its port.
With a fan-out, the stages that work on a frame's objects sit in a dashed frame that says how
many objects a frame holds.
"""

from __future__ import annotations

from html import escape

from ascgen.plan.model import GraphEdge, Plan

ROW = 70  # pixels from one box's top to the next
BOX_W, BOX_H = 230, 44
LEFT, TOP = 40, 20
ARC_STEP = 36  # how far each arc reaches right of the boxes, one more step per arc
FILL = {"host": "#f3f3f3", "aicore": "#fde7d3"}
PICTURES = "#dcecfb"  # the DVPP engines that make pictures: decoders, VPC
COPIES = "#e8f5e1"  # h2d, d2h, d2d


def _node(y: int, title: str, note: str, fill: str) -> list[str]:
    return [
        f'<rect x="{LEFT}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="6" fill="{fill}" stroke="#555"/>',
        f'<text x="{LEFT + BOX_W // 2}" y="{y + 18}" text-anchor="middle" font-weight="bold">{escape(title)}</text>',
        f'<text x="{LEFT + BOX_W // 2}" y="{y + 35}" text-anchor="middle" font-size="11">{escape(note)}</text>',
    ]


def _straight(y_from: int, label: str) -> list[str]:
    x, y1, y2 = LEFT + BOX_W // 2, y_from + BOX_H, y_from + ROW
    return [
        f'<line x1="{x}" y1="{y1}" x2="{x}" y2="{y2 - 2}" stroke="#333" marker-end="url(#arrow)"/>',
        f'<text x="{x + 8}" y="{(y1 + y2) // 2 + 4}" font-size="11" fill="#333">{escape(label)}</text>',
    ]


def _arc(y_from: int, y_to: int, reach: int, label: str) -> list[str]:
    x = LEFT + BOX_W
    y1, y2 = y_from + BOX_H // 2, y_to + BOX_H // 2
    return [
        f'<path d="M {x} {y1} C {x + reach} {y1}, {x + reach} {y2}, {x + 2} {y2}" fill="none" stroke="#a33" '
        'stroke-dasharray="5 3" marker-end="url(#arrow)"/>',
        f'<text x="{x + reach * 3 // 4 + 4}" y="{(y1 + y2) // 2 + 4}" font-size="11" fill="#a33">'
        f"{escape(label)}</text>",
    ]


def _per_object(plan: Plan) -> set[str]:
    """The stages that work on a frame's objects: the crop, and what reads them on down."""
    if plan.fanout is None:
        return set()
    out = {plan.fanout.crop_stage}
    for name in plan.graph.nodes:
        if any(e.src in out for e in plan.graph.inputs_of(name) if e.port != "image"):
            out.add(name)
    return out


def graph_svg(plan: Plan) -> str:
    """The picture of ``plan``'s graph, an SVG document."""
    rows = {name: i + 1 for i, name in enumerate(plan.graph.nodes)}  # row 0: the source
    kinds = {s.name: (s.kind, s.engine) for s in plan.stages}
    pictures = {s.name for s in plan.stages if s.output is not None and s.output.is_picture}
    arcs: list[GraphEdge] = []
    body: list[str] = _node(TOP, "source", plan.source.kind, "#ffffff")
    for name in plan.graph.nodes:
        y = TOP + rows[name] * ROW
        kind, engine = kinds[name]
        fill = FILL.get(engine) or (PICTURES if name in pictures else COPIES)
        body += _node(y, name, f"{kind} · {engine}", fill)
        for e in plan.graph.inputs_of(name):
            above = rows.get(e.src, 0) if e.src is not None else 0
            if above == rows[name] - 1:
                body += _straight(TOP + above * ROW, e.flow)
            else:
                arcs.append(e)
    for k, e in enumerate(arcs):
        above = rows.get(e.src, 0) if e.src is not None else 0
        body += _arc(
            TOP + above * ROW,
            TOP + rows[e.dst] * ROW,
            ARC_STEP * (k + 2),
            e.port if e.port == e.flow else f"{e.port}: {e.flow}",
        )
    objects = _per_object(plan)
    if objects and plan.fanout is not None:
        first = min(rows[n] for n in objects)
        last = max(rows[n] for n in objects)
        counts = plan.fanout.objects_per_frame
        said = f"{counts[0]}" if len(set(counts)) == 1 else f"{min(counts)}..{max(counts)}"
        y0, y1 = TOP + first * ROW - 6, TOP + last * ROW + BOX_H + 8
        body += [
            f'<rect x="{LEFT - 16}" y="{y0}" width="{BOX_W + 32}" height="{y1 - y0}" fill="none" stroke="#777" '
            'stroke-dasharray="3 3"/>',
            f'<text x="{LEFT - 12}" y="{y1 + 14}" font-size="11" fill="#555">per object ({said} a frame, '
            f"{escape(plan.fanout.objects_from)})</text>",
        ]
    width = LEFT + BOX_W + ARC_STEP * (len(arcs) + 2) + 120
    height = TOP + len(rows) * ROW + BOX_H + 36
    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">',
        f"<title>{escape(plan.name)} ({escape(plan.profile)}): the graph of its stages</title>",
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#333"/></marker></defs>',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    return "\n".join([*head, *body, "</svg>"]) + "\n"
