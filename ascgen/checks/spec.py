"""Semantic checks of a Spec against a device profile, before planning.

Each check returns diagnostics (never raises) so that every problem of a file is reported
in one go. What a stage kind checks of itself lives in its module (ascgen/stages/).
"""

from __future__ import annotations

from ascgen.checks.graph import check_inputs, check_references
from ascgen.checks.serving import check_serving as _serving
from ascgen.checks.video import check_video
from ascgen.dsl import profile as profiles
from ascgen.dsl import spec as dsl
from ascgen.dsl.diagnostics import Diagnostic, did_you_mean, one_of
from ascgen.dsl.profile import Profile
from ascgen.dsl.yaml_loader import SourceMap
from ascgen.plan.graph import per_object
from ascgen.stages.registry import context, decoders_of, kind_of, producers_of

SOURCE = "the source"


def check_profile(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    names = profiles.available()
    if spec.device.profile in names:
        return []
    hint = did_you_mean(spec.device.profile, names) or f"; available: {one_of(names)}"
    return [smap.error(("device", "profile"), f"unknown device profile '{spec.device.profile}'{hint}")]


def _names(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    seen: dict[str, int] = {}
    for i, stage in enumerate(spec.stages):
        if stage.name in seen:
            message = f"duplicate stage name '{stage.name}' (first used by stage {seen[stage.name] + 1})"
            out.append(smap.error(("stages", i, "name"), message))
        seen.setdefault(stage.name, i)
    for name in spec.buffers.per_stage:
        if name not in seen:
            out.append(smap.error(("buffers", "per_stage", name), f"no stage named '{name}'{did_you_mean(name, seen)}"))
    return out


def _source(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    out = []
    source = spec.source
    kinds = [kind_of(s) for s in spec.stages]
    decoders = decoders_of(source.data_kind)
    only_uploads = all(k.moves_whole_batches for k in kinds)
    if decoders and source.kind != "video" and not only_uploads and not any(k in decoders for k in kinds):
        after = one_of(producers_of(decoders[0].consumes))
        out.append(smap.error(("source", "kind"), f"JPEG input needs a {decoders[0].kind} stage after {after}"))
    for k in kinds:
        if k.decodes is not None and k.decodes != source.data_kind:
            out.append(smap.error(("source", "kind"), f"a {k.kind} stage needs source kind {k.decodes}"))
    if source.kind == "tensor" and source.bytes is None:
        out.append(smap.error(("source",), "a tensor source needs 'bytes' (the size of one input)"))
    if source.data_kind == "jpeg_files" and source.bytes is not None:
        out.append(smap.error(("source", "bytes"), "'bytes' is for tensor sources; use max_bytes"))
    return out


def _layout(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    if spec.streams == "per_stage" and spec.sync_every is not None:
        return [
            smap.error(
                ("sync_every",),
                "sync_every applies to streams: per_thread (per_stage streams never synchronise the whole stream)",
            )
        ]
    if spec.streams == "per_stage" and spec.submit == "by_step":
        return [
            smap.error(
                ("submit",),
                "submit: by_step applies to streams: per_thread (per_stage streams overlap the steps of "
                "different frames by themselves)",
            )
        ]
    if spec.streams == "per_thread" and spec.frames_per_sync % spec.batch:
        loc = ("sync_every",) if spec.sync_every is not None else ("batch",)
        message = (
            f"sync_every {spec.frames_per_sync} must be a multiple of batch {spec.batch} "
            "(a stream sync completes whole batches)"
        )
        return [smap.error(loc, message)]
    return []


def _batch_stages(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    """One model of frames, and one of a frame's objects (after a crop); only the latter has a
    batch of its own (the spec's `batch` is the frames')."""
    objects = per_object(spec)
    batchers = [i for i, s in enumerate(spec.stages) if kind_of(s).takes_batches]
    of_frames = [i for i in batchers if not objects[i]]
    of_objects = [i for i in batchers if objects[i]]
    out = []
    if spec.batch > 1 and not of_frames:
        out.append(smap.error(("batch",), "batch > 1 needs a model stage (batches are model inputs)"))
    if len(of_frames) > 1:
        message = (
            "one model of frames per pipeline; a second model runs on a frame's objects: put a detections and a "
            "vpc_crop stage before it"
        )
        out.append(smap.error(("stages", of_frames[1], "kind"), message))
    if len(of_objects) > 1:
        out.append(smap.error(("stages", of_objects[1], "kind"), "one model of a frame's objects per pipeline"))
    for i in of_frames:
        if getattr(spec.stages[i], "batch", None) is not None:
            message = "a model of frames takes the spec's batch: move 'batch' to the top level of the spec"
            out.append(smap.error(("stages", i, "batch"), message))
        if getattr(spec.stages[i], "max_queue_delay_us", None) is not None:
            message = (
                "max_queue_delay_us is how long a model of objects waits for the next frames' objects; a model of "
                "frames takes its frames in the spec's batch: drop it (a service waits with "
                "batching.max_queue_delay_us)"
            )
            out.append(smap.error(("stages", i, "max_queue_delay_us"), message))
    for i in of_objects:
        stage = spec.stages[i]
        if getattr(stage, "max_queue_delay_us", None) and spec.streams != "per_stage":
            message = (
                "the baseline layout (streams: per_thread) submits each batch's objects as its window is synchronised, "
                "never waiting for the next batch's: drop max_queue_delay_us, or use streams: per_stage"
            )
            out.append(smap.error(("stages", i, "max_queue_delay_us"), message))
        elif getattr(stage, "max_queue_delay_us", None) and (getattr(stage, "batch", None) or 1) == 1:
            message = (
                "a model of objects with batch 1 runs each object alone: waiting for more objects cannot fill an "
                "execution; give it a 'batch' above 1 or drop max_queue_delay_us"
            )
            out.append(smap.error(("stages", i, "max_queue_delay_us"), message))
    return out


def _expect(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    """`expect` sets a graph's fan-out: it needs a stage that fans out (a crop)."""
    if spec.expect is None or any(kind_of(s).fans_out for s in spec.stages):
        return []
    message = (
        "expect.objects_per_frame sets how many crops a frame makes, but no stage crops the frame's objects; "
        "add a detections and a vpc_crop stage, or remove expect"
    )
    return [smap.error(("expect", "objects_per_frame"), message)]


# the parts of a graph's latency breakdown that are no stage (the report's latency_breakdown_ms names
# the others after their stages: templates/runtime/ascgen_objects.h, breakdown_json)
BREAKDOWN_PARTS = ("queue", "handoff", "objects_queue", "join")


def _breakdown_names(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    """A graph's stage named like a part of its latency breakdown would name two of its parts."""
    if not any(kind_of(s).fans_out for s in spec.stages):
        return []
    return [
        smap.error(
            ("stages", i, "name"),
            f"stage '{s.name}': a graph's latency breakdown has a part of that name (one of "
            f"{', '.join(BREAKDOWN_PARTS)}: docs/graphs.md), so the report would name two parts alike; "
            f"rename the stage, e.g. '{s.name}_stage'",
        )
        for i, s in enumerate(spec.stages)
        if s.name in BREAKDOWN_PARTS
    ]


def check_structure(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    """Stage names, the graph (references, stage order and format compatibility), top-level consistency."""
    return (
        _names(spec, smap)
        + check_references(spec, smap)
        + check_inputs(spec, smap)
        + _source(spec, smap)
        + _layout(spec, smap)
        + _batch_stages(spec, smap)
        + _expect(spec, smap)
        + _breakdown_names(spec, smap)
        + _serving(spec, smap)
        + check_video(spec, smap)
    )


def check_stages(spec: dsl.Spec, prof: Profile, smap: SourceMap) -> list[Diagnostic]:
    """Each stage's own checks against the profile (geometry, limits, references)."""
    out: list[Diagnostic] = []
    if spec.batch > prof.limits.max_batch:
        out.append(smap.error(("batch",), f"batch {spec.batch} exceeds the device's {prof.limits.max_batch}"))
    for i, stage in enumerate(spec.stages):
        out += kind_of(stage).check(context(spec, prof, i, smap))
    return out
