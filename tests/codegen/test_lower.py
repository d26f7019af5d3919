"""Program IR decisions, tested without templates."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascgen.analysis import analyze_file, analyze_text
from ascgen.codegen.ir import Op, Program
from ascgen.codegen.lower import lower

PIPELINES = sorted(Path("pipelines").rglob("*.yaml"))
# Specs whose layout chains stages by events (per_thread orders everything on one stream).
PER_STAGE = [p for p in PIPELINES if "streams: per_thread" not in p.read_text()]


def program_of(path: Path) -> Program:
    spec, plan = analyze_file(path)
    return lower(spec, plan, path.as_posix())


def program_text(text: str) -> Program:
    spec, plan = analyze_text(text)
    return lower(spec, plan, "spec.yaml")


def readers(program: Program, pool: str) -> list[Op]:
    return [op for op in program.ops if op.src == pool]


@pytest.mark.parametrize("path", PER_STAGE, ids=lambda p: p.stem)
def test_every_reused_device_slot_waits_for_its_last_reader(path: Path) -> None:
    """For each pool a device op writes and another op reads, the writer waits, before reusing
    a slot, on the reader's event for the frame that last used that slot (per_stage)."""
    program = program_of(path)
    assert program.layout == "per_stage"
    pools = {p.name: p for p in program.pools}
    for op in program.ops:
        for reader in readers(program, op.dst):
            if reader.stream == op.stream:
                continue  # same stream: in order, no event needed
            # the first event recorded on the reader's stream once it has read the slot
            after = program.ops[program.ops.index(reader) :]
            event = next(o.record.event for o in after if o.stream == reader.stream and o.record)
            wait = [w for w in op.waits if w.event == event]
            assert wait, f"{op.stage} reuses {op.dst} without waiting for {reader.stage}"
            slots = f"t.{op.dst}.slots()"
            assert wait[0].index.endswith(f"- {slots}"), wait[0]
            assert slots in wait[0].guard
            ring = next(e for e in program.events if e.name == event)
            assert ring.slots == pools[op.dst].slots or ring.slots == "frame_slots"


@pytest.mark.parametrize("path", PER_STAGE, ids=lambda p: p.stem)
def test_every_op_waits_for_its_producer(path: Path) -> None:
    program = program_of(path)
    assert program.layout == "per_stage"
    for prev, op in zip(program.ops, program.ops[1:], strict=False):
        if prev.stream == op.stream or prev.record is None:
            continue
        assert any(w.event == prev.record.event and not w.guard for w in op.waits), op


def test_per_thread_layout_has_one_stream_and_no_events() -> None:
    program = program_of(Path("pipelines/ascend310/study_b1_per_thread.yaml"))
    assert program.streams == ["stream"]
    assert program.events == []
    assert all(not op.waits and op.record is None and not op.host_wait for op in program.ops)


def test_per_stage_layout_has_a_stream_per_device_stage() -> None:
    program = program_of(Path("pipelines/resnet50_b16.yaml"))
    assert program.streams == ["upload_stream", "decode_stream", "resize_stream", "infer_stream", "fetch_stream"]
    assert program.completion_stream == "fetch_stream"
    assert program.output_pool == "fetch_host"


def test_zero_copy_batching_writes_frames_into_the_model_input() -> None:
    program = program_of(Path("pipelines/resnet50_b16.yaml"))
    resize = next(op for op in program.ops if op.kind == "vpc_resize")
    model = next(op for op in program.ops if op.kind == "model")
    assert (resize.dst, resize.dst_offset, resize.dst_item) == ("resize_batch", "i * kFrameBytes", "i")
    assert model.src == "resize_batch"
    assert not any(op.kind == "d2d" for op in program.ops)
    assert program.batching == "zero_copy"


def test_copy_batching_adds_one_device_copy_per_frame() -> None:
    program = program_of(Path("pipelines/batch_copy.yaml"))
    kinds = [op.kind for op in program.ops]
    assert kinds == ["h2d", "jpeg_decode", "vpc_resize", "d2d", "model", "d2h"]
    resize, copy = program.ops[2], program.ops[3]
    assert resize.dst == "resize_out" and resize.record is None
    assert copy.src == "resize_out" and copy.dst == "resize_batch" and copy.dst_offset == "i * kFrameBytes"
    assert copy.record is not None and copy.record.event == "resize_done"
    assert program.resize_items == "1"


def test_host_input_slot_is_reused_only_after_its_copy() -> None:
    program = program_of(Path("pipelines/resnet50_b16.yaml"))
    upload = program.ops[0]
    assert "aclrtSynchronizeEvent(t.upload_done.at(f))" in upload.host_wait
    assert "f >= t.upload_host.slots()" in upload.host_wait


def test_batch_level_ops_run_at_batch_end() -> None:
    program = program_of(Path("pipelines/resnet50_b16.yaml"))
    assert [op.when for op in program.ops] == ["frame", "frame", "frame", "batch_end", "batch_end"]
    assert [op.dst_index for op in program.ops] == ["f", "f", "b", "b", "b"]


def test_crop_uses_the_crop_call_and_inclusive_roi() -> None:
    program = program_of(Path("pipelines/crop_910b.yaml"))
    assert any(op.kind == "vpc_crop" for op in program.ops)
    assert program.resize is not None
    consts = {c.name: c.value for c in program.resize.constants}
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
    slots = {p.name: p.slots for p in program.pools}
    assert slots == {"upload_host": "frame_slots", "upload_dev": "frame_slots", "decode_out": "9"}


def test_tensor_model_reads_inputs_filled_at_setup() -> None:
    program = program_text(
        """
name: m
source: {kind: tensor, bytes: 150528}
stages:
  - {name: infer, kind: model, path: m.om, reference: resnet50}
"""
    )
    assert program.model_fills_input
    assert program.ops[0].src == "infer_in"
    assert program.output_pool == ""
