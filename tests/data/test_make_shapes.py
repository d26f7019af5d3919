"""pipelines/data/make_shapes.py: the detector's test images and their true boxes."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

SCRIPT = Path(__file__).resolve().parents[2] / "pipelines" / "data" / "make_shapes.py"
_spec = importlib.util.spec_from_file_location("make_shapes", SCRIPT)
assert _spec is not None and _spec.loader is not None
shapes = importlib.util.module_from_spec(_spec)
sys.modules["make_shapes"] = shapes  # its dataclass looks its module up
_spec.loader.exec_module(shapes)

SMALL = ["shapes_vga_0obj", "shapes_vga_1obj", "shapes_vga_8obj"]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shapes")
    assert shapes.main(["--out", str(out), "--only", *SMALL]) == 0
    return out


def test_counts_are_0_1_and_8_at_every_size() -> None:
    counts: dict[tuple[int, int], list[int]] = {}
    for shot in shapes.SHOTS:
        counts.setdefault((shot.width, shot.height), []).append(shot.objects)
    assert (1920, 1080) in counts and all(sorted(c) == [0, 1, 8] for c in counts.values())


def test_same_seed_same_bytes_other_seed_other_picture(made: Path, tmp_path: Path) -> None:
    assert shapes.main(["--out", str(tmp_path / "a"), "--only", SMALL[2]]) == 0
    assert (tmp_path / "a" / f"{SMALL[2]}.jpg").read_bytes() == (made / f"{SMALL[2]}.jpg").read_bytes()
    assert shapes.main(["--out", str(tmp_path / "b"), "--only", SMALL[2], "--seed", "7"]) == 0
    assert (tmp_path / "b" / f"{SMALL[2]}.jpg").read_bytes() != (made / f"{SMALL[2]}.jpg").read_bytes()


def test_sidecars_agree_and_boxes_hold_their_colour(made: Path) -> None:
    for name in SMALL:
        doc = json.loads((made / f"{name}.json").read_text())
        lines = (made / f"{name}.txt").read_text().split("\n")
        assert lines[0] == f"{doc['width']} {doc['height']} {len(doc['objects'])}"
        pixels = np.asarray(Image.open(made / doc["file"]).convert("RGB"), dtype=np.int32)
        assert pixels.shape == (doc["height"], doc["width"], 3)
        for line, obj in zip(lines[1:], doc["objects"], strict=False):
            x1, y1, x2, y2 = obj["box"]
            assert line == f"{obj['class']} {x1} {y1} {x2} {y2}"
            rgb = np.array(doc["palette"][obj["class"]]["rgb"])
            centre = pixels[(y1 + y2) // 2, (x1 + x2) // 2]
            assert np.abs(centre - rgb).max() < 40, (name, obj, centre)
            # just outside the box: the grey background (channels close together), not the colour
            outside = pixels[y1 - 3, (x1 + x2) // 2]
            assert np.ptp(outside) < 40, (name, obj, outside)


def test_objects_keep_their_gap(made: Path) -> None:
    doc = json.loads((made / f"{SMALL[2]}.json").read_text())
    boxes = [o["box"] for o in doc["objects"]]
    assert len(boxes) == 8
    space = shapes.gap(doc["width"])
    assert space == 13 and shapes.gap(1920) == 40
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart_x = a[0] >= b[2] + space or b[0] >= a[2] + space
            apart_y = a[1] >= b[3] + space or b[1] >= a[3] + space
            assert apart_x or apart_y, (a, b)


def test_unknown_name_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert shapes.main(["--out", str(tmp_path), "--only", "shapes_nope"]) == 2
    assert "unknown image shapes_nope" in capsys.readouterr().err
