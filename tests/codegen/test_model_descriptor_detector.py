"""model_descriptor.detector_lines: the keys that make a simulated model a detector."""

from __future__ import annotations

import pytest

from ascgen.codegen.model_descriptor import detector_lines


def test_keys_in_the_simulators_names() -> None:
    assert detector_lines("yolov3_detection_output", 6, 416, 416, 32) == [
        "detector=yolov3_detection_output",
        "detector.classes=6",
        "detector.width=416",
        "detector.height=416",
        "detector.max_boxes=32",
    ]
    lines = detector_lines("yolo_raw", 80, 410, 410, 100, width_stride=416, height_stride=410)
    assert lines[-2:] == ["detector.width_stride=416", "detector.height_stride=410"]


def test_unknown_layout_is_refused() -> None:
    with pytest.raises(ValueError, match="want one of yolov3_detection_output, yolo_raw"):
        detector_lines("ssd", 6, 416, 416, 32)
