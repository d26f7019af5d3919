"""A graph's object part as the program's C++ names it (templates/runtime/ascgen_objects.h): the
crop, the model of objects, the copy of its scores and their top-k, submitted by the host as each
detector batch completes (docs/graphs.md, "Generating the graph").

The frame part is lowered as a straight pipeline up to the detections; this module merges what
each stage kind fixes of the object part (StageKind.object_part) into its configuration, and gives
the wait that holds each decoded picture's slot until the crops of its frame were submitted.

Under ``streams: per_stage`` the model of objects executes on the AI Core's one stream, the frames'
model's (shared by the workers, under its lock), with one instance every worker's part shares
(loaded in SharedResources): the AI Core never switches streams, only models.

Under ``streams: per_thread`` (the baseline: the study's hand-written style) the object part has no
thread and no stream of its own: the worker submits it on its one stream after the window's frames
synchronised, synchronises again and joins (ascgen_layouts.h, PerThread), so no picture is held."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ascgen.codegen.ir import ObjectsIR, RingRowIR, WaitIR
from ascgen.codegen.layouts import LAYOUTS
from ascgen.dsl.diagnostics import Diagnostic, Position, SpecError
from ascgen.plan.model import EventEdge, Plan, PoolRef
from ascgen.stages.registry import kind_of

HOLD = "objects"  # the Worker's object part (ascgen::objects::Part)
AICORE_RING = "ascgen::objects::kAiCoreRing"  # each way between the object stream and the AI Core's
# ascgen::objects::Config, in its order
FIELDS = (
    "crop", "classifier", "fetch", "labels", "region", "region_stride", "channel_modes", "interpolation", "rules",
    "batch", "gears", "gear_count", "scores_bytes", "k", "max_objects", "frames", "net_width", "net_height",
    "letterboxed", "paste_left_align", "post_process", "max_queue_delay_us",
)  # fmt: skip


def _parts(plan: Plan) -> dict[str, str]:
    """What the stages fix of the object part; "pools" in stage order, the first refusal."""
    out: dict[str, str] = {"frames": "program::kBatch", "k": "1"}
    pools: list[str] = []
    for sp in plan.stages:
        part = kind_of(sp.stage).object_part(sp, plan)
        if "pools" in part:
            pools.append(part.pop("pools"))
        if "refusal" in part and "refusal" in out:
            part.pop("refusal")
        out.update(part)
    out["pools"] = ", ".join(pools)
    out.setdefault("labels", out.get("fetch", ""))
    return out


def refuse(plan: Plan) -> None:
    """What the object part does not run yet: exit 2, naming the crop stage (the depth it needs is the
    crop kind's check_planned, reported by validate and plan too)."""
    crop = next((s for s in plan.stages if kind_of(s.stage).fans_out), None)
    if crop is None:
        return
    parts = _parts(plan)
    why = parts.get("refusal", "")
    if not why and "image" not in parts:
        why = "the crops are cut out of a decoded JPEG only (for now): 'image: <the JPEG decode stage>'"
    elif not why and (missing := [f for f in FIELDS if f not in parts]):
        why = f"the object part lacks {', '.join(missing)} (a model of objects, its copy to the host)"
    if why:
        raise SpecError([Diagnostic(plan.spec_path, Position(crop.line, 1), f"stage '{crop.name}': {why}")])


def object_event(plan: Plan, e: EventEdge) -> bool:
    """An event of the plan's straight chain that reaches into the object part (the host submits it)."""
    stages = {plan.steps[e.recorder].stage} | ({plan.steps[e.waiter].stage} if e.waiter >= 0 else set())
    return bool(stages & set(plan.object_stages))


def hold_wait(plan: Plan, dst: PoolRef, stream: str) -> list[WaitIR]:
    """Before a step writes the decoded picture's pool: the host waits until the crops of the
    slot's previous frame were submitted, then its stream waits for the event recorded after them."""
    if not plan.object_stages or plan.streams != "per_stage" or _parts(plan).get("image_pool") != dst.member:
        return []  # per_thread: a window's crops are done before its worker submits the next window
    slots = f"{dst.member}.slots()"
    why = f"{dst.member} slot is free once its previous frame's crops were cut (a host-side hold, then their event)"
    return [WaitIR(HOLD, f"f - {slots}", f"f >= {slots}", "wait_image", stream, why)]


def aicore_stream(plan: Plan) -> str:
    """The AI Core's one stream the model of objects executes on (per_stage: the frames' model's,
    shared by the workers, ``shared->detect_stream``), or "" (its part's own stream: per_thread, or
    a frames' model with an instance per thread)."""
    frames_model = plan.model.stage if plan.model is not None else ""
    if plan.streams != "per_stage" or frames_model not in plan.shared_stages:
        return ""
    return f"shared->{LAYOUTS[(plan.streams, plan.submit)].stream_of(frames_model)}"


def objects_ir(plan: Plan, postprocess_args: str, pool_specs: Mapping[str, str]) -> ObjectsIR | None:
    """The object part; ``pool_specs`` maps each pool's member to its PoolSpec constant (the
    start-up check counts the events over the decoded pictures' pool: ascgen_driver.cpp check_budget)."""
    if not plan.object_stages or plan.objects_model is None:
        return None
    parts = _parts(plan)
    stream = aicore_stream(plan)
    shared_model = bool(stream) and plan.objects_model.stage in plan.shared_stages
    frames_model = plan.model.stage if plan.model is not None else ""
    aicore = (
        f"{{{stream}, &shared->{frames_model}_mu, {'&shared->objects_model' if shared_model else 'nullptr'}}}"
        if stream
        else "{}"
    )
    # the rings the part creates itself (ascgen_objects.h): per_stage's hold on the decoded pictures
    # (crops_to_image, over their pool's slots), and the hand-over to and from the AI Core's stream
    rings = [] if plan.streams == "per_thread" else [_part_ring(pool_specs[parts["image_pool"]], "crops_to_image")]
    if stream:
        rings += [_part_ring(AICORE_RING, "crops_to_aicore"), _part_ring(AICORE_RING, "aicore_to_scores")]
    if rings:
        rings[0] = replace(rings[0], note="the object part's, which creates them itself (ascgen_objects.h)")
    return ObjectsIR(
        config=[(parts[f], f) for f in FIELDS], pools=f"{{{parts['pools']}}}", image_pool=parts["image_pool"],
        image=parts["image"], image_picture=parts["image_picture"], keep_args=postprocess_args, boxes=parts["boxes"],
        stream="stream" if plan.streams == "per_thread" else "",
        aicore=aicore, rings=rings, shared_model=shared_model,
    )  # fmt: skip


def _part_ring(spec: str, name: str) -> RingRowIR:
    return RingRowIR(spec, '"objects"', name, "nullptr")
