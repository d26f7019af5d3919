"""`ascgen init`: a commented example spec and the sample input it names, next to each other,
so that the spec validates, plans, builds and benches as it is written."""

from __future__ import annotations

from pathlib import Path

from ascgen.common.errors import UserError
from ascgen.common.fileio import check_can_write, write_atomic

_PACKAGE = Path(__file__).resolve().parents[1]  # the ascgen package
EXAMPLE = _PACKAGE / "example_spec.yaml"
SAMPLES = _PACKAGE / "sample"
INPUT_DIR = Path("data") / "images"  # as the example's source.path says


def write_example(path: Path, *, force: bool) -> list[Path]:
    """Write the example spec to ``path`` and the sample JPEGs to data/images/ beside it
    (existing images are kept); returns what was written."""
    if path.is_dir():
        raise UserError(f"{path} is a folder; name the spec file to write, e.g. {path / 'pipeline.yaml'}")
    if path.exists() and not force:
        raise UserError(f"{path} exists; pass --force to overwrite it")
    check_can_write(path)  # before anything is written: all or nothing
    written = []
    images = path.parent / INPUT_DIR
    for sample in sorted(SAMPLES.glob("*.jpg")):
        target = images / sample.name
        if not target.exists():
            write_atomic(target, sample.read_bytes())
            written.append(target)
    write_atomic(path, EXAMPLE.read_text(encoding="utf-8"))
    return [path, *written]
