"""The detections examples find the shapes pipelines/data/make_shapes.py draws: each program runs on
its VGA pictures (0, 1 and 8 objects) with --verify, and the boxes its detections stage kept for each
input in the reference run (the report's "results") are the true boxes, of their class, each within
a tolerance once mapped back through the letterbox into the picture's pixels, and no others.
detect_yolov3 reads its box count in the model's second output: without it no box is found."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from program_harness import REPO, built, run_program

SHAPES = ["shapes_vga_0obj", "shapes_vga_1obj", "shapes_vga_8obj"]
SIDE = 416  # the examples' letterbox: 416 x 416, paste left 16-aligned (templates/stages/vpc_letterbox.h)
LEFT_ALIGN = 16
TOLERANCE = 2.0  # pixels of the model input on each edge (the detector sees 2 x 2-pixel chroma samples)


@pytest.fixture(scope="module")
def pictures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shapes")
    script = REPO / "pipelines" / "data" / "make_shapes.py"
    made = subprocess.run(
        [sys.executable, str(script), "--out", str(out / "made"), "--only", *SHAPES],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    (out / "jpg").mkdir()  # the program's input folder: the pictures alone
    for name in SHAPES:
        shutil.copy(out / "made" / f"{name}.jpg", out / "jpg")
    return out


def letterbox(width: int, height: int) -> tuple[int, int, int, int]:
    """(left, top, pasted width, pasted height) of a picture in the model input, as
    ascgen::letterbox_area places it."""
    scale = min(SIDE / width, SIDE / height)
    pw = min(max(int(width * scale) & ~1, 10), SIDE)
    ph = min(max(int(height * scale) & ~1, 6), SIDE)
    return (SIDE - pw) // 2 // LEFT_ALIGN * LEFT_ALIGN, ((SIDE - ph) // 2) & ~1, pw, ph


def near(boxes: list[list[float]], obj: dict, width: int, height: int) -> list[list[float]]:  # type: ignore[type-arg]
    """The boxes (the model input's pixels) of the drawn object's class whose every edge, mapped back
    through the letterbox into the picture's pixels, lies within the tolerance of the object's."""
    left, top, pw, ph = letterbox(width, height)
    sx, sy = width / pw, height / ph
    x1, y1, x2, y2 = obj["box"]
    return [
        b for b in boxes
        if b[0] == obj["class"]
        and max(abs((b[1] - left) * sx - x1) / sx, abs((b[2] - top) * sy - y1) / sy,
                abs((b[3] - left) * sx - x2) / sx, abs((b[4] - top) * sy - y2) / sy) <= TOLERANCE
    ]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["detect_yolov3", "detect_yolo_raw"])
def test_the_detections_are_the_shapes_drawn(spec: str, pictures: Path, tmp_path: Path) -> None:
    result = built(Path(f"pipelines/{spec}.yaml"))
    run = run_program(
        result.binary, "--input", str(pictures / "jpg"), "--threads", "1", "--frames", "8", "--warmup", "0",
        "--verify", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.report is not None and run.report["verified"] is True
    found = {Path(r["input"]).name: r["found"] for r in run.report["results"]}
    assert sorted(found) == sorted(f"{name}.jpg" for name in SHAPES)
    for name in SHAPES:
        truth = json.loads((pictures / "made" / f"{name}.json").read_text())
        boxes = found[f"{name}.jpg"]
        assert len(boxes) == len(truth["objects"]), (name, boxes, truth["objects"])
        for obj in truth["objects"]:
            close = near(boxes, obj, truth["width"], truth["height"])
            assert len(close) == 1, (name, obj, boxes)
            assert 0.5 <= close[0][5] < 1.0  # the score: kept at the examples' threshold
