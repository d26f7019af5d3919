"""Program IR decisions, tested without templates."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from ascgen.codegen.ir import OpIR, Program
from ascgen.codegen.lower import lower
from ascgen.dsl.diagnostics import SpecError
from ascgen.pipeline import analyze_file, analyze_text

PIPELINES = sorted(Path("pipelines").rglob("*.yaml"))
# Specs whose layout chains stages by events (per_thread orders everything on one stream).
PER_STAGE = [p for p in PIPELINES if "streams: per_thread" not in p.read_text()]
OUT = Path("generated/x")


def program_of(path: Path) -> Program:
    return lower(analyze_file(path)[1], OUT)


def program_text(text: str) -> Program:
    return lower(analyze_text(text)[1], OUT)


def reader_of(program: Program, op: OpIR) -> OpIR | None:
    """The next op, if it reads what ``op`` writes."""
    k = program.ops.index(op)
    nxt = program.ops[k + 1] if k + 1 < len(program.ops) else None
    return nxt if nxt is not None and nxt.src == op.dst else None


def test_lower_takes_the_plan_alone() -> None:
    # besides the plan, only where the folder lies: its path, and whether its runtime is its own
    assert list(inspect.signature(lower).parameters) == ["plan", "out_dir", "shared_runtime"]


@pytest.mark.parametrize("path", PER_STAGE, ids=lambda p: p.stem)
def test_every_reused_device_slot_waits_for_its_last_reader(path: Path) -> None:
    """Before a writer reuses a slot that a reader on another stream reads, it waits on an event
    that reader recorded for the item that last used the slot. (A task the host awaits, on no
    stream: a V2 VPC task, frees its slots with the batch, as the video feeder waits for it.)"""
    program = program_of(path)
    host_pools = {p.member for p in program.pools if p.memory == "kHostPinned"}
    for op in program.ops:
        reader = reader_of(program, op)
        if reader is None or reader.stream == op.stream or op.dst in host_pools or not op.stream:
            continue
        recorded = {r.event for r in reader.records}
        waits = [w for w in op.waits if w.event in recorded]
        assert waits, f"{op.stage} reuses {op.dst} without waiting for {reader.stage}"
        slots = f"{op.dst}.slots()"
        assert waits[0].index.endswith(f"- {slots}") and slots in waits[0].guard, waits[0]


@pytest.mark.parametrize("path", PER_STAGE, ids=lambda p: p.stem)
def test_every_op_waits_for_its_producer(path: Path) -> None:
    program = program_of(path)
    for prev, op in zip(program.ops, program.ops[1:], strict=False):
        if prev.stream == op.stream or not prev.stream:  # no stream: the host awaited its task
            continue
        recorded = {r.event for r in prev.records}
        assert any(w.event in recorded and not w.guard for w in op.waits), op


@pytest.mark.parametrize("path", PER_STAGE, ids=lambda p: p.stem)
def test_every_event_has_one_recorder_and_one_waiter(path: Path) -> None:
    """Classic events: Record, then one Wait (and its Reset) before the next Record (ACL_FACTS 1.4)."""
    program = program_of(path)
    for event in program.events:
        waits = [w for op in program.ops for w in op.waits if w.event == event.member]
        records = [r for op in program.ops for r in op.records if r.event == event.member]
        assert len(waits) == 1 and len(records) == 1, event.member
        if waits[0].call == "wait":  # a stream waits, and resets the event on that stream
            waiter = next(op for op in program.ops if waits[0] in op.waits)
            assert waits[0].stream == waiter.stream


def test_per_thread_layout_has_one_stream_and_no_events() -> None:
    program = program_of(Path("pipelines/ascend310/study_b1_per_thread.yaml"))
    assert [s.member for s in program.streams] == ["stream"]
    assert program.events == []
    assert all(not op.waits and not op.records for op in program.ops)
    assert program.layout_driver == "ascgen::PerThreadLayout"
    assert {op.channel for op in program.ops if op.template in ("jpeg_decode", "vpc_resize")} == {"channel"}


def test_per_stage_layout_has_a_stream_per_device_stage() -> None:
    program = program_of(Path("pipelines/resnet50_b16.yaml"))
    assert [s.member for s in program.streams] == [
        "upload_stream", "decode_stream", "resize_stream", "infer_stream", "fetch_stream",
    ]  # fmt: skip
    assert program.completion_stream == "fetch_stream"
    assert program.output_pool == "fetch_host"
    assert program.layout_driver == "ascgen::PerStageLayout"


def test_each_stream_that_runs_dvpp_work_has_its_own_channel() -> None:
    program = program_of(Path("pipelines/resnet50_b16.yaml"))
    channels = {s.member: s.channel for s in program.streams}
    assert channels["decode_stream"] == "decode_channel" and channels["resize_stream"] == "resize_channel"
    assert channels["upload_stream"] == "" and channels["infer_stream"] == ""
    ops = {op.template: op for op in program.ops}
    assert ops["jpeg_decode"].channel == "decode_channel" and ops["vpc_resize"].channel == "resize_channel"


def test_channel_modes_where_the_profile_has_them() -> None:
    modes = {s.member: s.channel_modes for s in program_of(Path("pipelines/resnet50_310p.yaml")).streams}
    assert modes["decode_stream"] == "DVPP_CHNMODE_JPEGD" and modes["resize_stream"] == "DVPP_CHNMODE_VPC"
    assert {s.channel_modes for s in program_of(Path("pipelines/resnet50_b16.yaml")).streams} == {"0"}


def test_copy_batching_adds_one_device_copy_per_frame() -> None:
    program = program_of(Path("pipelines/batch_copy.yaml"))
    assert [op.template for op in program.ops] == ["h2d", "jpeg_decode", "vpc_resize", "assemble", "model", "d2h"]
    resize, copy, model = program.ops[2], program.ops[3], program.ops[4]
    assert resize.dst == "resize_out" and copy.src == "resize_out" and copy.dst == "resize_batch"
    assert model.src == "resize_batch"
    # the copy of the batch's last frame tells the model that the batch is whole
    (to_model,) = [r for r in copy.records if any(w.event == r.event for w in model.waits)]
    assert to_model.index == "b" and to_model.guard == "i == program::kBatch - 1"
    # the first frame of a batch waits until the model has read the slot's previous batch
    (reuse,) = copy.waits
    assert reuse.guard == "i == 0 && b >= resize_batch.slots()"


def test_host_input_slot_is_reused_only_after_its_copy() -> None:
    program = program_of(Path("pipelines/resnet50_b16.yaml"))
    (host,) = [w for w in program.ops[0].waits if w.call == "host_wait"]
    assert host.event == "upload_to_host" and host.guard == "f >= upload_host.slots()"
    assert host.stream == "upload_stream"  # reset on the recording stream, before its next record


def test_batch_level_ops_run_at_batch_end() -> None:
    program = program_of(Path("pipelines/resnet50_b16.yaml"))
    assert [op.per_batch for op in program.ops] == [False, False, False, False, True, True]
    assert [op.dst_index for op in program.ops] == ["f", "f", "f", "b", "b", "b"]


@pytest.mark.parametrize("path", sorted(Path("pipelines").rglob("*.yaml")), ids=lambda p: p.stem)
def test_the_steps_once_per_batch_come_last(path: Path) -> None:
    """The runtime submits a frame through Worker::kSteps and stops at the first step that runs
    once per batch unless the frame closes its batch (ascgen_driver.h, submit_steps): that is
    each step's order only if the per-batch steps are the list's tail."""
    flags = [op.per_batch for op in program_of(path).ops]
    assert flags == sorted(flags), flags


def test_crop_uses_the_crop_call_and_inclusive_roi() -> None:
    program = program_of(Path("pipelines/crop_910b.yaml"))
    crop = next(s for s in program.stages if s.kind == "vpc_resize")
    assert crop.flags == {"has_crop": True, "v2": False}  # a JPEG program: V1 on every device
    consts = {c.name: c.value for c in crop.constants}
    assert (consts["kCropLeft"], consts["kCropRight"]) == ("960", "2879")
    assert (consts["kCropTop"], consts["kCropBottom"]) == ("540", "1619")


def test_per_stage_depth_override_sizes_that_pool_only() -> None:
    program = program_text(
        """
name: o
source: {kind: jpeg_files, max_bytes: 1MiB}
threads: 1
buffers: {depth: 4, per_stage: {decode: 9}}
stages:
  - {name: upload, kind: h2d}
  - {name: decode, kind: jpeg_decode, max: {width: 640, height: 480}}
"""
    )
    rules = {p.member: p.rule for p in program.pools}
    assert rules == {"upload_host": "{1, 1, 0}", "upload_dev": "{1, 1, 0}", "decode_out": "{1, 1, 9}"}


def test_tensor_model_reads_inputs_filled_at_setup() -> None:
    program = program_text(
        """
name: m
source: {kind: tensor, bytes: 150528}
stages:
  - {name: infer, kind: model, path: m.om, reference: resnet50}
"""
    )
    (model,) = program.stages
    assert model.flags["fills_input"] and model.src == "infer_in"
    assert program.ops[0].src == "infer_in"
    assert program.output_pool == ""


def test_the_studys_program_submits_step_by_step() -> None:
    program = program_of(Path("pipelines/ascend310/study_b16_per_thread.yaml"))
    assert program.layout_driver == "ascgen::PerThreadByStepLayout"
    assert [op.function for op in program.ops] == [
        "upload_step", "decode_step", "resize_step", "resize_assemble", "infer_step", "fetch_step",
    ]  # fmt: skip


def test_step_by_step_submission_needs_per_thread_streams() -> None:
    with pytest.raises(SpecError) as info:
        analyze_text(Path("pipelines/resnet50_b16.yaml").read_text().replace("streams: per_stage", "submit: by_step"))
    assert "submit: by_step applies to streams: per_thread" in str(info.value)


def test_a_shared_model_instance_is_one_stream_every_thread_takes_turns_on() -> None:
    program = program_of(Path("pipelines/resnet50_b16.yaml"))  # instances: auto -> shared
    shared = [s for s in program.streams if s.shared]
    assert [s.member for s in shared] == ["infer_stream"]
    infer = next(op for op in program.ops if op.stage == "infer")
    assert infer.stream == "shared->infer_stream" and infer.owner == "shared->"
    assert infer.lock == "shared->infer_mu"  # waits to records, one thread at a time
    assert all(w.stream == "shared->infer_stream" for w in infer.waits)
    assert all(not op.lock for op in program.ops if op.stage != "infer")
