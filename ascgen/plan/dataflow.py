"""The Plan's data flow: the device steps of one frame in submission order, and, for the
per_stage layout, the event rings that chain them (one waiter per event).

Edges of a step S that writes pool X on its own stream:
- data: S's reader R (the next step, on another stream) waits for S's record of the same
  frame (or batch), then resets the event on its stream;
- reuse: before S writes slot n of X again, it waits for R's record of item n - slots
  ("R has read the previous contents"); a host staging pool is waited on by the host
  (aclrtSynchronizeEvent), which then resets the event on S's stream.
Steps on one stream are ordered by the stream: no event between them.
"""

from __future__ import annotations

from typing import Literal

from ascgen.plan.model import EventEdge, PoolPlan, PoolRef, StagePlan, Step
from ascgen.stages.registry import kind_of

Purpose = Literal["data", "reuse"]


def steps_of(stages: list[StagePlan], pools: list[PoolPlan], copy_batches: bool) -> list[Step]:
    """The device steps of one frame: each device stage's task, then, where frames are
    assembled into batches by copy, the copy of each frame into its batch."""
    owned = {p.ref for p in pools}
    out: list[Step] = []
    previous: PoolRef | None = None
    for sp in stages:
        kind = kind_of(sp.stage)
        if not kind.device:
            continue
        dst = kind.dst_pool(sp, pools)
        assert dst is not None and dst in owned, f"stage {sp.name} writes no pool of its own"
        src = kind.src_pool(sp, pools, previous)
        out.append(Step(stage=sp.name, action="stage", src=src, dst=dst, batch_level=sp.batch_level))
        previous = dst
        batch = PoolRef(sp.name, "batch")
        if copy_batches and kind.makes_frames and dst.role != "batch" and batch in owned:
            out.append(Step(stage=sp.name, action="assemble", src=dst, dst=batch, batch_level=False))
            previous = batch
    return out


def _edge(
    name: str, recorder: int, waiter: int, purpose: Purpose, pool: PoolRef, steps: list[Step], why: str
) -> EventEdge:
    rec = steps[recorder]
    wai = steps[waiter] if waiter >= 0 else rec
    batch_pool = rec.batch_level or wai.batch_level
    return EventEdge(
        name=name,
        recorder=recorder,
        waiter=waiter,
        purpose=purpose,
        pool=pool,
        index="b" if batch_pool else "f",
        at_batch_end=not rec.batch_level and wai.batch_level,
        at_batch_start=purpose == "reuse" and not wai.batch_level and rec.batch_level,
        why=why,
    )


def event_edges(
    steps: list[Step], pools: dict[PoolRef, PoolPlan], fed_by_source: frozenset[str] = frozenset()
) -> list[EventEdge]:
    """The per_stage layout's event rings. A step of a stage in ``fed_by_source`` (VDEC, or a task the
    host awaits: V2 VPC) has none: the host sees its result and only then submits the next step, and
    frees its slots with the batch."""
    out: list[EventEdge] = []
    for k, step in enumerate(steps):
        if step.stage in fed_by_source:
            continue
        if step.action == "stage" and PoolRef(step.stage, "host") in pools and step.src is None:
            host = PoolRef(step.stage, "host")
            out.append(
                _edge(
                    f"{step.stage}_to_host", k, -1, "reuse", host, steps,
                    f"{host.member} slot is free once the copy that last read it has finished",
                )
            )  # fmt: skip
        nxt = steps[k + 1] if k + 1 < len(steps) else None
        if nxt is None or nxt.stage == step.stage or nxt.src != step.dst:
            continue  # the last step, or the next one runs on the same stream
        out.append(
            _edge(
                f"{step.stage}_to_{nxt.stage}", k, k + 1, "data", step.dst, steps,
                f"{step.dst.member} holds what '{nxt.stage}' reads",
            )
        )  # fmt: skip
        if pools[step.dst].memory != "host_pinned":
            out.append(
                _edge(
                    f"{nxt.stage}_to_{step.stage}", k + 1, k, "reuse", step.dst, steps,
                    f"{step.dst.member} slot is free once '{nxt.stage}' has read its previous contents",
                )
            )  # fmt: skip
    return out
