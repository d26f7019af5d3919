"""Checks of a service's keys: ``source: {kind: requests}`` and ``batching`` (docs/serving.md).

What the C++ ``Batcher`` would refuse at start-up (templates/runtime/ascgen_batcher.h,
``validate``) is refused here first, with the spec's positions and a hint.
"""

from __future__ import annotations

from ascgen.dsl import spec as dsl
from ascgen.dsl.diagnostics import Diagnostic
from ascgen.dsl.yaml_loader import SourceMap

# Paddle Serving's padding rule's first condition (templates/runtime/ascgen_batcher.h:
# kPaddingAbsoluteElements): requests may merge when padding adds at most this many elements.
PADDING_ABSOLUTE_ELEMENTS = 1024


def _source(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    source = spec.source
    out = []
    # by value, not by fields set: ascgen.dsl.configure re-validates a dumped spec, every field set
    if source.kind != "requests" and source.format != "jpeg":
        out.append(smap.error(("source", "format"), "'format' says what a request carries: it is for kind requests"))
    if (
        source.kind == "requests"
        and source.format == "raw"
        and not any(getattr(s, "hw_gears", None) for s in spec.stages)
    ):
        out.append(
            smap.error(
                ("source", "format"),
                "raw requests have their own width: the model needs hw_gears to run them, e.g. "
                "hw_gears: [[32, 80], [32, 160], [32, 320]] (ATC --dynamic_image_size)",
            )
        )
    if source.kind != "requests":
        if source.inputs is not None:
            out.append(smap.error(("source", "inputs"), "'inputs' is for source kind requests; use path"))
        if spec.batching is not None:
            out.append(
                smap.error(
                    ("batching",),
                    "batching merges requests: it needs source: {kind: requests, inputs: ...} "
                    "(a frame source already runs at the spec's batch)",
                )
            )
        return out
    if source.path is not None:
        out.append(smap.error(("source", "path"), "a request source reads its files from 'inputs', not 'path'"))
    if source.bytes is not None:
        out.append(smap.error(("source", "bytes"), "a request carries its own file: use max_bytes, not bytes"))
    ids = spec.device.ids
    if ids == "all" or (ids is not None and len(ids) > 1) or spec.device.processes_per_device > 1:
        key = "ids" if ids is not None else "processes_per_device"
        out.append(
            smap.error(
                ("device", key),
                "a server runs in one process on one device (its clients and batcher share the process); "
                "deploy it once per device",
            )
        )
    if spec.streams != "per_stage":
        out.append(
            smap.error(
                ("streams",),
                "a request source needs streams: per_stage (a batch completes on its own, in a callback, "
                "while the next one is submitted)",
            )
        )
    return out


def _batching(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    b = spec.batching
    if spec.source.kind != "requests":
        return []
    if b is None:
        if spec.batch > 1:
            return [
                smap.error(
                    ("batch",),
                    f"batch {spec.batch} without batching: every request would run alone, padded to "
                    f"{spec.batch}; add batching: {{max_batch: {spec.batch}}} or set batch: 1",
                )
            ]
        return []
    out = []
    for i, p in enumerate(b.preferred):
        if p > b.max_batch:
            out.append(
                smap.error(
                    ("batching", "preferred", i),
                    f"preferred batch size {p} is above max_batch {b.max_batch}; it can never be reached",
                )
            )
    if b.max_batch == 1 and b.max_queue_delay_us > 0:
        out.append(
            smap.error(
                ("batching", "max_queue_delay_us"),
                "a queue delay without batching: max_batch is 1, so no request waits for another; "
                "raise max_batch or drop max_queue_delay_us",
            )
        )
    if b.max_batch > spec.batch:
        out.append(
            smap.error(
                ("batching", "max_batch"),
                f"max_batch {b.max_batch} needs a model compiled for batch {b.max_batch}, but batch is "
                f"{spec.batch} (partial batches are padded to the model's batch; it has no larger batch "
                f"gears): set batch: {b.max_batch} or max_batch: {spec.batch}",
            )
        )
    q = b.queue
    if q.action == "delay" and q.timeout_us == 0:
        out.append(
            smap.error(
                ("batching", "queue", "action"),
                "action: delay acts on requests that time out; give queue.timeout_us too",
            )
        )
    return out


def check_serving(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    return _source(spec, smap) + _batching(spec, smap)
