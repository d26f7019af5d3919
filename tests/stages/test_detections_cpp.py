"""The detections kind's C++ unit tests (templates/stages/detections.h, tests/stages/detections.cpp):
built with the system C++ compiler, plain and under ASan+UBSan, and run group by group."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.serving.test_batcher import FLAGS, RUN_ENV, VARIANTS, _compiler

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=["plain", "asan"])
def detections_tests(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    binary = tmp_path_factory.mktemp(f"detections-{request.param}") / "detections_tests"
    includes = [f"-I{REPO / 'templates' / 'stages'}", f"-I{REPO / 'tests' / 'serving'}"]
    cmd = [_compiler(), *FLAGS, *VARIANTS[request.param], *includes, str(HERE / "detections.cpp"), "-o", str(binary)]
    build = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert build.returncode == 0, f"{' '.join(cmd)}\n{build.stdout}{build.stderr}"
    return binary


@pytest.mark.parametrize("group", ["iou", "nms", "yolov3", "yolo_raw", "checksum"])
def test_group(detections_tests: Path, group: str) -> None:
    run = subprocess.run(
        [str(detections_tests), group], capture_output=True, text=True, timeout=120,
        env={**os.environ, **RUN_ENV}, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 failed" in run.stderr
