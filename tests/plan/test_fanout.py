"""A graph's fan-out in the plan (ascgen/plan/fanout.py): objects per frame from `expect`, the
ground truth beside the inputs, or max_objects; each engine's busy time per frame with the crops
and the model of objects (numbers worked by hand from the profile's figures); the bottleneck; the
detector batches whose objects join in the object queue within max_queue_delay_us."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ascgen.dsl import profile as profiles
from ascgen.pipeline import analyze_text
from ascgen.plan.fanout import MAX_TRUTH_BYTES
from ascgen.plan.planner import sub_buffer_stride

GRAPH = """\
name: graph
device: {profile: ascend310}
source: {kind: jpeg_files, path: shots, max_bytes: 1MiB}
batch: 4
stages:
  - {name: upload, kind: h2d}
  - {name: decode, kind: jpeg_decode, max: {width: 1920, height: 1088}}
  - {name: fit, kind: vpc_letterbox, out: {width: 416, height: 416}}
  - {name: detect, kind: model, path: m/yolo.om, latency_ms: {1: 9.5, 4: 31.0}, output_bytes: 98304,
     extra_outputs: [128]}
  - {name: fetch, kind: d2h}
  - {name: boxes, kind: detections, format: yolov3_detection_output, max_objects: 5}
  - {name: crops, kind: vpc_crop, image: decode, out: {width: 224, height: 224}}
  - {name: classify, kind: model, path: m/cls.om, latency_ms: {1: 2.0, 2: 3.0, 4: 5.0, 8: 9.0}, batch: 8,
     gears: [1, 2, 4, 8]}
  - {name: labels, kind: d2h}
"""
SWITCH = 0.14  # ascend310 engines.aicore.switch_fraction
# a model's weights read again after the other model ran (model_switch_weight_share 1): without
# memory_bytes or a reference, an instance is 128 MiB and its weights half of it, at 48 GB/s
RELOAD_US = (128 << 20) // 2 / 48e3
DETECT_US = 31000 / 4  # batch 4 at 31 ms, per frame
# per_stage: both models on the AI Core's one stream (the detector's), so a switch between them
# reloads the weights and changes no stream; per_thread: each thread's stream, and the first
# execution after another stream's pays the stream switch too
DETECT_SWITCH_US = RELOAD_US / 4  # after the classifier, once per detector batch (per frame)
FRAMES = 4  # a detector batch: its frames' objects share the classifier's executions


def plan_with(objects: int | None, path: str = "spec.yaml", streams: str = "per_stage"):  # type: ignore[no-untyped-def]
    text = GRAPH + (f"expect: {{objects_per_frame: {objects}}}\n" if objects is not None else "")
    return analyze_text(text.replace("batch: 4\n", f"batch: 4\nstreams: {streams}\n", 1), path)[1]


def test_the_profile_figures_the_expectations_use() -> None:
    prof = profiles.load("ascend310")
    assert prof.engines.aicore.switch_fraction == SWITCH and prof.engines.aicore.switch_us == 0
    assert prof.engines.aicore.model_switch_weight_share == 1.0 and prof.memory.bandwidth_GBps == 48
    assert (prof.engines.vpc.base_us, prof.engines.vpc.per_roi_us, prof.engines.vpc.per_mpixel_us) == (300, 60, 1196)


@pytest.mark.parametrize(
    ("objects", "runs_ms", "aicore_us"),
    [  # a detector batch's executions (its 4 frames' objects), one switch each way per batch
        (0, [], DETECT_US),  # no objects: no classifier, no switch
        # 12 objects: a full execution, then 4 at gear 4
        (3, [9.0, 5.0], DETECT_US + 14000 / 4 + RELOAD_US / 4 + DETECT_SWITCH_US),
        (8, [9.0] * 4, DETECT_US + 9000 + RELOAD_US / 4 + DETECT_SWITCH_US),
        # 44 objects: 5 full executions, then 4 at gear 4
        (11, [9.0] * 5 + [5.0], DETECT_US + 50000 / 4 + RELOAD_US / 4 + DETECT_SWITCH_US),
    ],
)
def test_the_ai_core_runs_both_models_and_their_switches(objects: int, runs_ms: list[float], aicore_us: float) -> None:
    plan = plan_with(objects)
    fan = plan.fanout
    assert fan is not None
    assert fan.objects_per_frame == [objects] and fan.objects_from == "expect.objects_per_frame"
    assert fan.executions_per_frame == len(runs_ms) / FRAMES
    assert fan.engine_us_per_frame["aicore"] == pytest.approx(aicore_us)
    aicore = next(b for b in plan.bounds if b.name == "aicore (detect, classify)")
    assert aicore.qps == pytest.approx(1e6 / aicore_us)


@pytest.mark.parametrize("objects", [0, 3, 8])
def test_per_thread_streams_also_pay_the_stream_switch(objects: int) -> None:
    """The baseline's streams carry both models, each thread's its own: the first execution of each
    model after the other's pays the stream switch besides the reload (one thread here: its
    detector's instance does not switch with another thread's)."""
    one = plan_with(objects).fanout
    per_thread = plan_with(objects, streams="per_thread").fanout
    assert one is not None and per_thread is not None
    # the first execution after the detector's is a full one (9 ms), the detector's batch 31 ms
    switches = (SWITCH * 9000 + SWITCH * 31000) / 4 if objects else 0.0
    assert per_thread.engine_us_per_frame["aicore"] == pytest.approx(one.engine_us_per_frame["aicore"] + switches)


def test_vpc_is_shared_by_the_letterbox_and_the_crops() -> None:
    # a detector batch's calls, regions a call as many as objects: 12 and 44 objects
    for objects, calls in ((0, []), (3, [8, 4]), (11, [8] * 5 + [4])):
        crops = sum(300 + 60 * (r - 1) + r * 1196 * 224 * 224 / 1e6 for r in calls) / FRAMES
        plan = plan_with(objects)
        fit = next(s.service_us for s in plan.stages if s.name == "fit")  # its own, as in a straight pipeline
        fan = plan.fanout
        assert fan is not None
        assert fan.engine_us_per_frame["vpc"] == pytest.approx(fit + crops)


def test_the_bottleneck_is_named_and_each_stage_bound_is_replaced() -> None:
    plan = plan_with(8)
    names = [b.name for b in plan.bounds]
    assert plan.bottleneck == "aicore (detect, classify)"
    assert plan.roofline_qps == pytest.approx(min(b.qps for b in plan.bounds))
    assert "vpc (fit, crops)" in names and "d2h (fetch, labels)" in names
    assert not {"aicore (detect)", "aicore (classify)", "vpc (crops)"} & set(names)


def test_the_model_of_objects_has_its_own_batch_and_sizes() -> None:
    plan = plan_with(3)
    classify = next(s for s in plan.stages if s.name == "classify")
    assert classify.input is not None and classify.input.bytes == 8 * 224 * 224 * 3 // 2
    crops = {p.ref.role: p.slot_bytes for p in plan.pools if p.ref.stage == "crops"}
    # each region its own picture at the DVPP sub-buffer stride; back to back in the model's input
    assert crops == {"out": 8 * sub_buffer_stride(75264, profiles.load("ascend310")), "batch": 8 * 75264}


def test_objects_are_counted_in_the_ground_truth_beside_the_inputs(tmp_path: Path) -> None:
    shots = tmp_path / "shots"
    shots.mkdir()
    for name, count in (("a", 0), ("b", 1), ("c", 8)):
        (shots / f"{name}.jpg").write_bytes(b"\xff\xd8")
        objects = [{"box": [0, 0, 10, 10], "class": 0}] * count
        (shots / f"{name}.json").write_text(json.dumps({"objects": objects}))
    fan = plan_with(None, str(tmp_path / "spec.yaml")).fanout
    assert fan is not None
    assert fan.objects_per_frame == [0, 1, 8]
    assert fan.objects_from.startswith("counted in the ground truth of 3 input(s)")
    assert fan.executions_per_frame == pytest.approx((1 / 4 + 1) / 3)  # a batch: none, one at gear 4, 4 of 8
    (shots / "c.json").unlink()  # one input without ground truth: the detections' most
    fan = plan_with(None, str(tmp_path / "spec.yaml")).fanout
    assert fan is not None and fan.objects_per_frame == [5] and "max_objects" in fan.objects_from


def test_a_linear_spec_has_no_fanout() -> None:
    text = GRAPH.split("  - {name: boxes")[0]
    assert analyze_text(text)[1].fanout is None


def test_the_stages_after_the_crop_sustain_frames_at_the_objects_they_hold() -> None:
    capacity = {s.name: s.capacity_qps for s in plan_with(8).stages}
    crops_us = 300 + 60 * 7 + 8 * 1196 * 224 * 224 / 1e6  # one call of 8 regions a frame
    assert capacity["crops"] == pytest.approx(1e6 / crops_us)
    assert capacity["classify"] == pytest.approx(1e6 / (9000 + RELOAD_US / 4))
    idle = {s.name: s.capacity_qps for s in plan_with(0).stages}
    assert idle["crops"] == idle["classify"] == float("inf")
    assert idle["fit"] == capacity["fit"]  # a stage of frames does not depend on the objects


def test_memory_traffic_and_copies_count_the_objects() -> None:
    none, eight = plan_with(0), plan_with(8)
    assert none.fanout is not None and eight.fanout is not None
    crop = 224 * 224 * 3 // 2  # 75,264 bytes a region's picture
    # per region: its area read, its picture written, copied into the model's input (read + write);
    # one execution at batch 8 (no reference: no traffic besides its input and output); its fetch
    per_frame = 8 * 4 * crop + (8 * crop + 8 * 4000) + 8 * 4000
    assert eight.ddr_bytes_per_frame - none.ddr_bytes_per_frame == pytest.approx(per_frame)
    memory = next(b for b in eight.bounds if b.name == "ddr bandwidth")
    assert memory.qps == pytest.approx(48e9 / eight.ddr_bytes_per_frame)
    d2d = profiles.load("ascend310").engines.d2d
    copies = eight.fanout.engine_us_per_frame["d2d"] - none.fanout.engine_us_per_frame["d2d"]
    assert copies == pytest.approx(8 * d2d.service_us(crop))
    assert [b.name for b in eight.bounds].count("d2d (batch assembly, crops into the model's input)") == 1
    assert "d2d (batch assembly)" not in [b.name for b in eight.bounds]


def test_ground_truth_that_could_hang_or_flood_is_not_read(tmp_path: Path) -> None:
    """A FIFO, an oversized file, deep nesting or a broken file: no count from the inputs (the
    detections' most instead), and nothing blocks or raises."""
    shots = tmp_path / "shots"
    shots.mkdir()
    (shots / "a.jpg").write_bytes(b"\xff\xd8")
    truth = shots / "a.json"
    cases = {
        "fifo": lambda: os.mkfifo(truth),
        "huge": lambda: truth.write_bytes(b" " * (MAX_TRUTH_BYTES + 1)),
        "deep": lambda: truth.write_text("[" * 100_000 + "]" * 100_000),
        "not json": lambda: truth.write_text("{objects"),
        "not a list": lambda: truth.write_text('{"objects": 3}'),
    }
    for name, make in cases.items():
        make()
        fan = plan_with(None, str(tmp_path / "spec.yaml")).fanout
        assert fan is not None and fan.objects_per_frame == [5], name
        truth.unlink()


@pytest.mark.parametrize(
    ("delay_us", "depth", "joined"),
    [
        (0, 8, 1),  # no wait: a detector batch's 4 objects at gear 4
        (1000, 8, 1),  # the next batch comes later than 1 ms
        (1_000_000, 8, 2),  # it comes within 1 s: two batches fill an execution of 8
        (1_000_000, 6, 1),  # but 6 frames in flight cannot hold two batches' pictures
    ],
)
def test_the_next_batches_join_within_the_queue_delay(delay_us: int, depth: int, joined: int) -> None:
    text = GRAPH.replace("batch: 8,", f"batch: 8, max_queue_delay_us: {delay_us},")
    plan = analyze_text(text + f"buffers: {{depth: {depth}}}\nexpect: {{objects_per_frame: 1}}\n", "spec.yaml")[1]
    fan = plan.fanout
    assert fan is not None and fan.max_queue_delay_us == delay_us and fan.batches_joined == joined
    assert fan.executions_per_frame == pytest.approx(1 / (FRAMES * joined))
    runs = [9.0] if joined == 2 else [5.0]  # 8 objects at gear 8, or 4 at gear 4
    aicore = DETECT_US + (sum(runs) * 1000 + RELOAD_US) / (FRAMES * joined)
    assert fan.engine_us_per_frame["aicore"] == pytest.approx(aicore + DETECT_SWITCH_US / joined)
    # the first batch's objects wait for the second: a worker's batch every 4 frames at the roofline
    wait_us = 0.0 if joined == 1 else FRAMES * 1e6 / plan.roofline_qps
    assert fan.queue_wait_us == pytest.approx(wait_us)
    assert ("waits up to" in fan.why) == (delay_us > 0)


def test_a_graph_worker_counts_the_events_its_program_creates() -> None:
    """Events of a per_stage graph's worker, as the program's start-up check counts them
    (tests/programs/test_graphs.py: 112 at depth 16 for the 310 example): the frame part's rings
    and one ring over the decoded pictures' pool, recorded after each frame's crops. The object
    part's own steps run on one stream after the host hands it the batch: no ring between them;
    its executions go on the AI Core's one stream and back: two rings of two events."""
    text = Path("pipelines/graphs/detect_classify_310.yaml").read_text(encoding="utf-8")
    text = text.replace("buffers: {depth: 6}", "buffers: {depth: 16}")
    plan = analyze_text(text, "pipelines/graphs/detect_classify_310.yaml")[1]
    # upload_host 16, upload_dev 2 x 16, decode_out 2 x 16, fit_batch 2 x 4, detect_out 2 x 4; the hold
    # 16; to and from the AI Core's stream 2 x 2
    assert plan.events_per_thread == 16 + 32 + 32 + 8 + 8 + 16 + 4
