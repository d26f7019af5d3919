"""The detections kind (ascgen/stages/detections.py): its schema and checks, each asserting the
message and the key it points at, its place in the graph and the plan, and the programs generated
with it (the simulated model a detector): for a raw YOLO head, and for YoloV3DetectionOutput,
whose box count, the model's second output, comes back with its boxes."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ascgen.cli import cli
from ascgen.dsl.diagnostics import SpecError
from ascgen.pipeline import analyze_text

# box_out at batch 4 with capacity 1024: 4 x 6 x 1024 x 4 bytes; box_out_num: 4 x 8 x 4
YOLOV3 = """\
name: detect
device: {profile: ascend310}
source: {kind: jpeg_files, path: data/images, max_bytes: 1MiB}
batch: 4
stages:
  - {name: upload, kind: h2d}
  - {name: decode, kind: jpeg_decode, max: {width: 1024, height: 1536}}
  - {name: fit, kind: vpc_letterbox, out: {width: 416, height: 416}, border: 114}
  - {name: detect, kind: model, path: models/yolov3.om, latency_ms: 30, output_bytes: 98304, extra_outputs: [128]}
  - {name: fetch, kind: d2h}
  - {name: boxes, kind: detections, format: yolov3_detection_output, score: 0.5, nms_iou: 0.45, max_objects: 32}
"""
# 10080000 bytes at batch 4: 2520000 a frame, not a whole number of 85-float rows (340 bytes)
RAW = YOLOV3.replace("output_bytes: 98304, extra_outputs: [128]", "output_bytes: 10080000").replace(
    "format: yolov3_detection_output", "format: yolo_raw, classes: 80"
)
LINE = 11  # the detections stage


def problems(text: str) -> list[tuple[int, str]]:
    with pytest.raises(SpecError) as err:
        analyze_text(text)
    return [(d.position.line, d.message) for d in err.value.sorted()]


def test_yolov3_detection_output_plans_as_a_host_stage_reading_the_model() -> None:
    _, plan = analyze_text(YOLOV3)
    boxes = plan.stages[-1]
    assert (boxes.kind, boxes.engine, boxes.output) == ("detections", "host", None)
    # what comes back: box_out (98304 bytes reserve 98336, next start 128-aligned) then box_out_num
    assert boxes.input is not None and boxes.input.bytes == 98432 + 128
    assert plan.graph.edges[-1].flow == "tensor"
    assert boxes.service_us > 0


def test_yolo_raw_rows_must_divide_the_output() -> None:
    (found,) = problems(RAW)
    assert found[0] == LINE
    assert found[1].startswith("a yolo_raw head of 80 classes has rows of 340 bytes, but model 'detect' gives ")
    ok = RAW.replace("output_bytes: 10080000", "output_bytes: 34272000")  # 4 x 25200 x 85 x 4
    analyze_text(ok)


def test_yolo_raw_needs_classes() -> None:
    text = RAW.replace(", classes: 80", "")
    assert (LINE, "a yolo_raw head needs 'classes' (its rows are 5 + classes floats)") in problems(text)


def test_box_out_must_match_the_capacity() -> None:
    text = YOLOV3.replace("max_objects: 32}", "max_objects: 32, capacity: 512}")
    (found,) = problems(text)
    assert "6 x capacity 512 float32 = 12288 bytes a frame" in found[1] and "set its output_bytes to 49152" in found[1]


def test_box_out_num_is_the_second_output() -> None:
    text = YOLOV3.replace(", extra_outputs: [128]", "")
    (found,) = problems(text)
    assert found[1].endswith("needs extra_outputs: [128] (batch 4), not none")


def test_class_filter_within_the_classes() -> None:
    text = YOLOV3.replace("max_objects: 32}", "max_objects: 32, classes: 80, keep_classes: [0, 2, 80, 2]}")
    found = [m for _, m in problems(text)]
    assert "keep_classes names a class twice" in found
    assert "keep_classes [80] outside the class ids 0..79" in found


def test_more_objects_than_box_out_holds() -> None:
    text = YOLOV3.replace("max_objects: 32}", "max_objects: 64, capacity: 16}").replace("98304", "1536")
    assert (LINE, "max_objects 64 is more than the 16 boxes box_out holds") in problems(text)


def test_an_image_is_not_a_detector_output() -> None:
    text = YOLOV3.replace("  - {name: detect, kind: model, path: models/yolov3.om, latency_ms: 30, "
                          "output_bytes: 98304, extra_outputs: [128]}\n", "").replace("batch: 4\n", "")  # fmt: skip
    assert [m for _, m in problems(text)] == [
        "a detections stage reads a tensor, but 'fetch' (a d2h stage) gives an image"
    ]


def test_score_and_iou_are_fractions() -> None:
    text = YOLOV3.replace("score: 0.5, nms_iou: 0.45", "score: 1.5, nms_iou: -0.1")
    assert [m for _, m in problems(text)] == [
        "stage 'boxes' score: input should be less than or equal to 1",
        "stage 'boxes' nms_iou: input should be greater than or equal to 0",
    ]


def test_yolov3_detection_output_is_generated_reading_the_second_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """box_out_num follows box_out in the model's output slot (128-aligned), the d2h returns both,
    and the frame function reads each frame's count in the second output."""
    text = YOLOV3.replace("max_objects: 32}", "max_objects: 32, capacity: 32}").replace("98304", "3072")
    (tmp_path / "detect.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["generate", "detect.yaml", "--out", "out"], prog_name="ascgen")
    assert result.exit_code == 0, result.output
    main = (tmp_path / "out" / "detect" / "main.cpp").read_text()
    # 3072 bytes reserve ALIGN_UP(3072, 32) + 32 = 3104, so the count starts at 3200, 128 bytes long
    for line in ("constexpr size_t kOutputOffsets[] = {0, 3200};", "constexpr size_t kOutputItemBytes[] = {768, 32};",
                 "constexpr ascgen::PoolSpec kOutPool = {ascgen::Memory::kDevice, 3328,",
                 "constexpr ascgen::PoolSpec kHostPool = {ascgen::Memory::kHostPinned, 3328,",
                 "constexpr size_t kItemBytes = 768;", "constexpr int kRows = 32;",
                 "uint64_t boxes_frame(const uint8_t* item, const uint8_t* count) const {",
                 "return boxes_frame(item, output_item(b, 1, i));",
                 "ascgen::detections::decode_yolov3_detection_output("):  # fmt: skip
        assert line in " ".join(main.split()), line
    assert "decode_yolo_raw" not in main
    descriptor = (tmp_path / "out" / "detect" / "sim" / "yolov3.om.acl_sim_model").read_text()
    assert "outputs=2\noutput.0.bytes=3072\noutput.1.bytes=128\n" in descriptor
    assert "detector=yolov3_detection_output\n" in descriptor and "detector.max_boxes=32\n" in descriptor


def test_a_raw_head_is_generated_with_a_simulated_detector(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 32 candidates of 5 + 6 classes a frame at batch 4: 4 x 32 x 11 x 4 bytes
    raw = YOLOV3.replace("output_bytes: 98304, extra_outputs: [128]", "output_bytes: 5632").replace(
        "format: yolov3_detection_output,", "format: yolo_raw, classes: 6, keep_classes: [0, 3],"
    )
    (tmp_path / "detect.yaml").write_text(raw, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["generate", "detect.yaml", "--out", "out"], prog_name="ascgen")
    assert result.exit_code == 0, result.output
    main = (tmp_path / "out" / "detect" / "main.cpp").read_text()
    for line in ("constexpr int kRows = 32;", "constexpr int kClasses = 6;", "constexpr float kScore = 0.5f;",
                 "constexpr float kNmsIou = 0.45f;", "constexpr int kKeep[] = {0, 3};",
                 "return boxes_frame(item);"):  # fmt: skip
        assert line in main, line
    assert "output_item(" not in main
    descriptor = (tmp_path / "out" / "detect" / "sim" / "yolov3.om.acl_sim_model").read_text()
    assert descriptor.endswith(
        "detector=yolo_raw\ndetector.classes=6\ndetector.width=416\ndetector.height=416\n"
        "detector.max_boxes=32\ndetector.width_stride=416\ndetector.height_stride=416\n"
    )
