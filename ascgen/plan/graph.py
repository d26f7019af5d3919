"""The spec as a graph: what each stage reads (the stage it names, or by default the one written
before it) and what flows on each edge (a JPEG, a tensor, an image, boxes, labels).

`refs` reads the references as written, whether or not they hold (the checks judge them:
ascgen/checks/graph.py); `resolve` makes the plan's graph of a spec whose references hold.
"""

from __future__ import annotations

from dataclasses import dataclass

from ascgen.plan.model import Flow, GraphEdge, GraphPlan
from ascgen.stages.base import FROM, Port, SpecView
from ascgen.stages.registry import kind_of, ports_of

PORT = FROM.key  # the input every stage has unless its kind names its own
# What a stand-in for a stage that failed its schema holds for an input written but not as a
# name (ascgen/checks/partial.py): no reference, and not missing either (the schema error says it).
NOT_A_NAME = ""


@dataclass(frozen=True)
class Ref:
    """One input of stage ``stage`` (its index): the stage it names, and whether the spec names it."""

    stage: int
    port: str
    name: str | None  # the producing stage's name; None: the pipeline's source
    written: bool  # written in the spec (`from: decode`), else the stage before by default
    main: bool = True  # the kind's main input (the first of its ports)


def port_of(spec: SpecView, ref: Ref) -> Port:
    return next(p for p in ports_of(spec.stages[ref.stage]) if p.key == ref.port)


def refs(spec: SpecView) -> list[Ref]:
    """Every input of every stage; a required input left unwritten has none (the checks say so)."""
    out = []
    for i, stage in enumerate(spec.stages):
        for n, port in enumerate(ports_of(stage)):
            name = getattr(stage, port.field, None)
            if name == NOT_A_NAME:
                continue
            if name is not None:
                out.append(Ref(i, port.key, name, True, n == 0))
            elif n == 0 and not port.required:
                out.append(Ref(i, port.key, spec.stages[i - 1].name if i else None, False))
    return out


def missing(spec: SpecView) -> list[tuple[int, Port]]:
    """The required inputs left unwritten: (stage index, port)."""
    return [
        (i, port)
        for i, stage in enumerate(spec.stages)
        for port in ports_of(stage)
        if port.required and getattr(stage, port.field, None) is None
    ]


def first_index(spec: SpecView) -> dict[str, int]:
    """Each stage name's index (the first stage of that name, when names repeat)."""
    out: dict[str, int] = {}
    for i, stage in enumerate(spec.stages):
        out.setdefault(stage.name, i)
    return out


def source_flow(spec: SpecView) -> Flow:
    kind = spec.source.data_kind
    return "jpeg" if kind == "jpeg_files" else "video" if kind == "video" else "tensor"


def producer(ref: Ref, index: dict[str, int]) -> int | None:
    """The index of the stage ``ref`` reads when it is written before the reader; -1: the source;
    None: it names no stage, or one at or after the reader (the checks report those)."""
    if not ref.written:
        return ref.stage - 1  # the stage before (-1: the first stage reads the source)
    at = index.get(ref.name or "")
    return at if at is not None and at < ref.stage else None


def flows(spec: SpecView) -> list[Flow | None]:
    """What each stage outputs; None where it cannot be told (its input is a broken reference)."""
    index = first_index(spec)
    main = {ref.stage: ref for ref in refs(spec) if ref.main}
    out: list[Flow | None] = []
    for i, stage in enumerate(spec.stages):
        at = producer(main[i], index) if i in main else None
        given = None if at is None else source_flow(spec) if at < 0 else out[at]
        out.append(kind_of(stage).flow or given)
    return out


def per_object(spec: SpecView) -> list[bool]:
    """Whether each stage works on a frame's objects (a crop, and what reads it, and so on), not
    on the frame."""
    index = first_index(spec)
    main = {ref.stage: ref for ref in refs(spec) if ref.main}
    out: list[bool] = []
    for i, stage in enumerate(spec.stages):
        at = producer(main[i], index) if i in main else None
        out.append(kind_of(stage).fans_out or (at is not None and at >= 0 and out[at]))
    return out


def resolve(spec: SpecView) -> GraphPlan:
    """The graph of a spec whose references all hold (checked)."""
    index = first_index(spec)
    out = flows(spec)
    edges = []
    for ref in refs(spec):
        at = producer(ref, index)
        assert at is not None, f"stage {ref.stage}: unchecked reference {ref.name}"
        flow = source_flow(spec) if at < 0 else out[at]
        assert flow is not None
        edges.append(
            GraphEdge(src=ref.name, dst=spec.stages[ref.stage].name, port=ref.port, flow=flow, written=ref.written)
        )
    return GraphPlan(nodes=[s.name for s in spec.stages], edges=edges)
