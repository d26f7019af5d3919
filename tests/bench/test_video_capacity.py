"""docs/video.md's measured capacity section (tools/video_capacity), from recorded results (no program
runs here): what it says follows the figures, and the page holds the section of its results file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tools.video_capacity import report

REPO = Path(__file__).resolve().parents[2]
CONTEXT = {"host": "vm", "cpu_count": 2, "cpu_model": "AMD EPYC", "ascgen_version": "0.1.0", "git_commit": "abc"}


def point(streams: int, held: bool, qps: float) -> dict[str, Any]:
    return {"streams": streams, "held": held, "min_fps": 30.0 if held else 27.5, "dropped": 0 if held else 9,
            "late": 0, "qps": qps, "qps_min": qps, "qps_max": qps}  # fmt: skip


def study(name: str, points: list[dict[str, Any]], asap: float, documented: float, predicted: float) -> dict[str, Any]:
    return {"name": name, "width": 1, "height": 1, "time_scale": 4.0, "documented_fps": documented,
            "predicted_fps": predicted, "predicted_streams": 16, "channels": 32, "points": points,
            "asap": point(int(documented // 30), True, asap), "context": CONTEXT}  # fmt: skip


DATA = {
    "duration_s": 5.0,
    "warmup_s": 2.0,
    "repeat": 2,
    "studies": [
        study("1080p", [point(15, True, 450), point(16, True, 480), point(17, False, 481)], 480.2, 480, 480),
        study("720p", [point(30, True, 900), point(32, True, 960)], 1019.0, 960, 1020.4),
    ],
}


def test_the_capacity_is_the_most_streams_that_held_beside_the_documented_figure() -> None:
    assert report.capacity(DATA["studies"][0]) == 16
    text = report.render(DATA)
    assert "| 1080p | 480 | 16 streams: 480.0 frames/s (+0.0 %) | 480.2 at 16 streams (+0.0 %) | 480.0 (fitted) |" in (
        text
    )
    # 720p: every channel held, the decoder flat out is the model's prediction, 6 % above the docs
    assert "32 streams, all 32 channels: 960.0 frames/s (+0.0 %) | 1,019.0 at 32 streams (+6.1 %)" in text
    assert "1,020.4 (predicted, not fitted)" in text
    assert "720p streams stop at the 310's 32 VDEC channels before the decoder does" in text
    assert "1080p streams stop" not in text
    assert "| 1080p | 17 | **no** | 27.5 | 0 | 9 |" in text


def test_no_point_held_is_said_as_zero_streams() -> None:
    data = json.loads(json.dumps(DATA))
    for p in data["studies"][0]["points"]:
        p["held"] = False
    assert report.capacity(data["studies"][0]) == 0
    assert "| 1080p | 480 | 0 streams: 0.0 frames/s (-100.0 %)" in report.render(data)


def test_the_section_is_replaced_in_place_and_added_once() -> None:
    page = "# Video\n\ntext\n\n## Not yet\n\nmore\n"
    once = report.splice(page, report.render(DATA))
    assert once.index(report.BEGIN) < once.index("## Not yet") and once.endswith("more\n")
    assert report.splice(once, report.render(DATA)) == once
    other = report.splice(once, report.render({**DATA, "repeat": 3}))
    assert other.count(report.BEGIN) == 1 and "3 x 5 s per point" in other


def test_docs_video_holds_the_section_of_its_results() -> None:
    """`python -m tools.video_capacity --render-only` would change nothing."""
    results = json.loads((REPO / "docs" / "video" / "capacity.json").read_text())
    page = (REPO / "docs" / "video.md").read_text()
    assert report.splice(page, report.render(results)) == page


DETECTOR = {
    "spec": "pipelines/video/detect_1080p_310.yaml", "duration_s": 5.0, "warmup_s": 2.0, "repeat": 2,
    "time_scale": 2.0, "fps": 30.0, "predicted_streams": 3,
    "predicted_bound": "aicore (detect) (105 frames/s for 120 asked)",
    "roofline_fps": 105.2, "points": [point(2, True, 60), point(3, True, 90), point(4, False, 104)], "context": CONTEXT,
}  # fmt: skip


def test_the_detector_section_says_the_streams_that_held_beside_the_plan() -> None:
    text = report.render_detector(DETECTOR)
    assert "Capacity: 3 streams measured (as predicted); `ascgen plan` predicts 3,\none more refused by aicore" in text
    assert "| 4 | **no** | 27.5 | 0 | 9 | 104.0 (104-104) |" in text
    fewer = json.loads(json.dumps(DETECTOR))
    fewer["points"][1]["held"] = False
    assert "Capacity: 2 streams measured (-1 on the plan)" in report.render_detector(fewer)
    # its own markers: the decode-only section stays as it was
    page = report.splice("# Video\n\n## Not yet\n", report.render(DATA))
    both = report.splice(page, text, report.DETECTOR_MARKERS)
    assert report.render(DATA).rstrip("\n") in both and both.count(report.DETECTOR_MARKERS[0]) == 1
    assert report.splice(both, text, report.DETECTOR_MARKERS) == both


def test_docs_video_holds_the_detector_section_of_its_results() -> None:
    """`python -m tools.video_capacity --detector --render-only` would change nothing."""
    results = json.loads((REPO / "docs" / "video" / "detector_capacity.json").read_text())
    page = (REPO / "docs" / "video.md").read_text()
    assert report.splice(page, report.render_detector(results), report.DETECTOR_MARKERS) == page
