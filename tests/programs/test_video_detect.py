"""A detector on video (issue 30, Deliver 7): pipelines/video/detect_1080p_310.yaml decodes the
1080p shapes clip (pipelines/data/make_clips.py: a make_shapes.py scene of its own per frame, its
truth in fhd_shapes_h264.json) with VDEC V1, letterboxes it and runs the simulator's detector.
--verify checks every picture's Y plane against the host decode and reports each picture's boxes;
each is compared here with the shapes drawn in that frame: their count, class and place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from program_harness import CLIPS, built, make_clips, run_program
from test_detections_truth import letterbox, near

pytestmark = pytest.mark.slow  # builds and runs C++

SPEC = Path("pipelines/video/detect_1080p_310.yaml")


def _truth() -> dict:  # type: ignore[type-arg]
    make_clips()  # kept once made
    return json.loads((CLIPS / "fhd_shapes_h264.json").read_text(encoding="utf-8"))


def _matches(found: list[list[float]], objects: list[dict], width: int, height: int) -> bool:  # type: ignore[type-arg]
    """Each shape drawn is found once, of its class, each edge within the tolerance once mapped
    back through the letterbox into the picture's pixels; nothing else is found."""
    return len(found) == len(objects) and all(len(near(found, obj, width, height)) == 1 for obj in objects)


def test_the_detector_finds_the_shapes_of_every_picture_of_the_clip(tmp_path: Path) -> None:
    result = built(SPEC)
    run = run_program(result.binary, "--frames", "24", "--warmup", "0", "--verify", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    report = run.report
    assert report is not None and report["verified"] is True
    assert report["frames"] >= 24 and report["threads"] == 2
    for s in report["video"]["per_stream"]:
        assert s["failed"] == 0 and s["skipped"] == 0 and s["dropped"] == 0
    truth = _truth()
    width, height, frames = truth["width"], truth["height"], truth["frames"]
    results = {r["picture"]: r["found"] for r in report["results"]}
    assert sorted(results) == list(range(len(frames)))  # every picture of the file, once
    wrong = [n for n, frame in enumerate(frames) if not _matches(results[n], frame["objects"], width, height)]
    assert not wrong, [(n, results[n], frames[n]["objects"]) for n in wrong[:2]]
    assert sum(len(f["objects"]) for f in frames) > 8  # scenes of 0 to 8 shapes, not one picture


def test_boxes_of_another_picture_or_shifted_fail_the_comparison() -> None:
    """The comparison above tells the pictures apart: frame 1's shapes are not frame 3's, and a
    box 3 model pixels off is not the shape."""
    truth = _truth()
    width, height, frames = truth["width"], truth["height"], truth["frames"]
    left, top, pw, ph = letterbox(width, height)
    boxes = [
        [o["class"], left + o["box"][0] * pw / width, top + o["box"][1] * ph / height,
         left + o["box"][2] * pw / width, top + o["box"][3] * ph / height, 0.9]
        for o in frames[1]["objects"]
    ]  # fmt: skip
    assert _matches(boxes, frames[1]["objects"], width, height)
    assert not _matches(boxes, frames[3]["objects"], width, height)
    shifted = [[b[0], b[1] + 3, *b[2:]] for b in boxes]
    assert not _matches(shifted, frames[1]["objects"], width, height)
