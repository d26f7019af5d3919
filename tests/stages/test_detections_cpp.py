"""The detections kind's C++ unit tests (templates/stages/detections.h, tests/stages/detections.cpp):
built with the system C++ compiler, plain and under ASan+UBSan, and run group by group."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.stages.header_tests import HEADER_VARIANTS, build_tests, run_group

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=HEADER_VARIANTS)
def detections_tests(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tests("detections.cpp", request.param, tmp_path_factory.mktemp(f"detections-{request.param}"))


@pytest.mark.parametrize("group", ["iou", "nms", "yolov3", "yolo_raw", "checksum", "describe"])
def test_group(detections_tests: Path, group: str) -> None:
    run_group(detections_tests, group)
