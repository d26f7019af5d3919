"""Checks of the graph a spec's stages make (ascgen/plan/graph.py): every reference names a stage
written before the reader, no loop, and each stage reads what its kind takes.

A stage reads the stage written before it unless it names another (`from: detect`); the
messages for those default edges are the stage-order messages of a straight pipeline.
"""

from __future__ import annotations

from ascgen.dsl.diagnostics import Diagnostic, did_you_mean, one_of
from ascgen.dsl.yaml_loader import SourceMap
from ascgen.plan.graph import PORT, Ref, first_index, flows, missing, port_of, producer, refs, source_flow
from ascgen.plan.model import Flow
from ascgen.stages.base import SpecView
from ascgen.stages.registry import kind_of, producers_of

SOURCE = "the source"
WORDS: dict[Flow, str] = {
    "jpeg": "a JPEG",
    "tensor": "a tensor",
    "image": "an image",
    "boxes": "boxes",
    "labels": "labels",
    "video": "a video",
}
NOT_YET = (
    "ascgen plans a chain of stages so far, each reading the one before it (branches and joins are not "
    "planned yet); name the stage just before"
)


def _where(ref: Ref) -> tuple[str | int, ...]:
    return ("stages", ref.stage, ref.port) if ref.written else ("stages", ref.stage, "name")


def _loops(spec: SpecView, index: dict[str, int]) -> list[list[int]]:
    """Each loop of references once, as the stages in reading order from its first stage."""
    reads = {r.stage: index[r.name] if r.written else r.stage - 1 for r in refs(spec) if r.main and r.name in index}
    done: set[int] = set()
    loops = []
    for start in range(len(spec.stages)):
        path: list[int] = []
        at: int | None = start
        while at is not None and at not in done and at not in path:
            path.append(at)
            at = reads.get(at)
        if at is not None and at in path:
            loop = path[path.index(at) :]
            first = loop.index(min(loop))
            loops.append(loop[first:] + loop[:first])
        done.update(path)
    return loops


def _loop_message(spec: SpecView, loop: list[int]) -> str:
    names = [spec.stages[i].name for i in loop]
    if len(names) == 1:
        said = f"'{names[0]}' reads itself"
    else:
        said = ", ".join(f"'{a}' reads '{b}'" for a, b in zip(names, names[1:] + names[:1], strict=True))
    return f"a cycle: {said}; a stage reads a stage written above it (or, without `from`, the one just before)"


def check_references(spec: SpecView, smap: SourceMap) -> list[Diagnostic]:
    """Every `from` names an earlier stage: not an unknown one, not a later one, no loop; every
    input a kind needs written (a crop's `image`) is."""
    index = first_index(spec)
    out = []
    for i, port in missing(spec):
        kind = kind_of(spec.stages[i])
        message = f"{kind.article} {kind.kind} stage needs '{port.key}: <stage>': {port.hint}"
        out.append(smap.error(("stages", i, "name"), message))
    looped: set[int] = set()
    for loop in _loops(spec, index):
        looped.update(loop)
        first_written = next(r for r in refs(spec) if r.stage in loop and r.written)
        out.append(smap.error(_where(first_written), _loop_message(spec, loop)))
    for ref in refs(spec):
        if not ref.written or ref.stage in looped or ref.name is None:
            continue
        at = index.get(ref.name)
        if at is None:
            hint = did_you_mean(ref.name, index) or f"; the stages are {one_of(index)}"
            out.append(smap.error(_where(ref), f"'{ref.port}: {ref.name}' names no stage{hint}"))
        elif at == ref.stage:  # not on the main input: that is a loop, reported above
            message = f"'{ref.port}: {ref.name}' names the stage itself; a stage reads a stage written above it"
            out.append(smap.error(_where(ref), message))
        elif at > ref.stage:
            message = (
                f"'{ref.port}: {ref.name}' names a later stage (stage {at + 1}); a stage reads a stage "
                f"written above it: move '{ref.name}' above '{spec.stages[ref.stage].name}'"
            )
            out.append(smap.error(_where(ref), message))
        elif at != ref.stage - 1 and not port_of(spec, ref).branch:
            before = spec.stages[ref.stage - 1].name
            out.append(smap.error(_where(ref), f"'{ref.port}: {ref.name}': {NOT_YET} ('{before}')"))
    return out


def check_inputs(spec: SpecView, smap: SourceMap) -> list[Diagnostic]:
    """Each stage reads what its kind takes: the kind of stage (or the source) it follows, and
    what flows (an image, a tensor, ...) where the kind asks for one."""
    index = first_index(spec)
    made = flows(spec)
    out = []
    for ref in refs(spec):
        at = producer(ref, index)
        if at is None:
            continue  # a broken reference: check_references reports it
        kind = kind_of(spec.stages[ref.stage])
        port = port_of(spec, ref)
        consumes = port.consumes or kind.consumes
        needs_flow = port.needs_flow or kind.needs_flow
        before = kind_of(spec.stages[at]) if at >= 0 else None
        produced = before.produces if before else "source"
        what = SOURCE if before is None else f"{before.article} {before.kind} stage"
        flow = source_flow(spec) if at < 0 else made[at]
        its = "its input" if ref.port == PORT else f"its {ref.port}"
        hint = f"; {port.hint}" if port.hint else ""
        if produced not in consumes:
            need = one_of(producers_of(consumes))
            if ref.written:
                gives = f" ({what}: {WORDS[flow]})" if flow and at >= 0 else ""
                as_port = "" if ref.port == PORT else f" as {its}"
                message = (
                    f"{kind.article} {kind.kind} stage cannot read '{ref.name}'{gives}{as_port}; it takes {its} "
                    f"from {need}{hint}"
                )
            else:
                message = f"{kind.article} {kind.kind} stage cannot come after {what}; it takes {its} from {need}{hint}"
            out.append(smap.error(("stages", ref.stage, ref.port if ref.written else "kind"), message))
        elif needs_flow and flow and flow != needs_flow:
            reads = f"'{ref.name}' ({what})" if ref.name else SOURCE
            as_port = "" if ref.port == PORT else f" as {its}"
            message = (
                f"{kind.article} {kind.kind} stage reads {WORDS[needs_flow]}{as_port}, but {reads} gives "
                f"{WORDS[flow]}{hint}"
            )
            out.append(smap.error(("stages", ref.stage, ref.port if ref.written else "kind"), message))
    return out
