"""pipelines/data/make_clips.py: a clip is kept only while the recipe that made it is unchanged."""

from __future__ import annotations

import dataclasses
import importlib.util
import shutil
import sys
import types
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "pipelines" / "data"
sys.path.insert(0, str(DATA))  # make_clips imports paff_h264 beside it
_spec = importlib.util.spec_from_file_location("make_clips", DATA / "make_clips.py")
assert _spec is not None and _spec.loader is not None
clips = importlib.util.module_from_spec(_spec)
sys.modules["make_clips"] = clips  # its dataclass looks its module up
_spec.loader.exec_module(clips)

pytestmark = pytest.mark.skipif(shutil.which("ffmpeg") is None or shutil.which("ffprobe") is None, reason="ffmpeg")

TINY = next(c for c in clips.CLIPS if c.name == "tiny_h264")  # 96 x 96, 4 frames: cheap to encode


def _stamps(out: Path) -> dict[str, int]:
    return {f.name: f.stat().st_mtime_ns for f in sorted(out.glob(f"{TINY.name}.*"))}


def test_a_clip_is_kept_while_its_recipe_holds_and_remade_when_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert clips.main(["--out", str(tmp_path), "--only", TINY.name]) == 0
    key = (tmp_path / f"{TINY.name}.recipe").read_text().strip()
    assert key == clips.recipe_key(TINY)
    made = _stamps(tmp_path)
    assert set(made) == {f"{TINY.name}.{ext}" for ext in ("h264", "index", "nv12", "txt", "recipe")}

    assert clips.main(["--out", str(tmp_path), "--only", TINY.name]) == 0
    assert _stamps(tmp_path) == made  # same recipe: nothing written

    changed = dataclasses.replace(TINY, gop=2)  # a key frame every 2 frames: another stream
    assert clips.recipe_key(changed) != key
    monkeypatch.setattr(clips, "CLIPS", (changed,))
    assert clips.main(["--out", str(tmp_path), "--only", TINY.name]) == 0
    assert (tmp_path / f"{TINY.name}.recipe").read_text().strip() == clips.recipe_key(changed)
    assert all(_stamps(tmp_path)[name] != stamp for name, stamp in made.items())


def test_a_clip_without_its_recipe_key_is_remade(tmp_path: Path) -> None:
    """A clip made before keys (or whose making failed half way) has no NAME.recipe: made again."""
    assert clips.main(["--out", str(tmp_path), "--only", TINY.name]) == 0
    sidecar = tmp_path / f"{TINY.name}.recipe"
    sidecar.unlink()
    (tmp_path / f"{TINY.name}.txt").write_text("1 1 1\n")  # what a stale clip would say
    assert clips.main(["--out", str(tmp_path), "--only", TINY.name]) == 0
    assert sidecar.read_text().strip() == clips.recipe_key(TINY)
    assert (tmp_path / f"{TINY.name}.txt").read_text() == f"{TINY.width} {TINY.height} {TINY.frames}\n"


def _load(folder: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, folder / "make_clips.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_the_key_follows_the_parameters_and_the_scripts_source(tmp_path: Path) -> None:
    """A parameter changes the key, and so does an encoder setting inside the script (the shapes
    clip re-made at another qp); a copy of the same scripts elsewhere gives the same keys."""
    fields = next(c for c in clips.CLIPS if c.fields)
    assert clips.recipe_key(fields) != clips.recipe_key(dataclasses.replace(fields, frames=fields.frames + 1))
    assert len({clips.recipe_key(c) for c in clips.CLIPS}) == len(clips.CLIPS)
    for folder, qp in (("same", "30"), ("other_qp", "20")):
        (tmp_path / folder).mkdir()
        for script in ("make_clips.py", "paff_h264.py", "make_shapes.py"):
            text = (DATA / script).read_text()
            if script == "make_clips.py":
                assert '"-qp", "30"' in text
                text = text.replace('"-qp", "30"', f'"-qp", "{qp}"')
            (tmp_path / folder / script).write_text(text)
    same = _load(tmp_path / "same", "make_clips_same")
    other = _load(tmp_path / "other_qp", "make_clips_other_qp")
    for clip in clips.CLIPS:
        assert same.recipe_key(clip) == clips.recipe_key(clip)
        assert other.recipe_key(clip) != clips.recipe_key(clip)  # the script is part of every recipe
