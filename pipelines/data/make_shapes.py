"""Writes detector test images: coloured shapes on a textured background, with their true boxes.

    python pipelines/data/make_shapes.py --out DIR [--only NAME ...] [--seed N]

Our own synthetic pictures (nothing downloaded, nothing committed): made at test time, the same
bytes for the same seed (numpy's PCG64, Pillow's baseline encoder). For each image NAME it writes
into DIR:
  NAME.jpg    baseline JPEG, 4:2:0, quality 90
  NAME.json   {"file", "width", "height", "objects": [{"box": [x1, y1, x2, y2], "class",
              "name", "shape"}], "palette": [{"class", "name", "rgb"}]}
  NAME.txt    the same boxes for C++ tests: a line "width height count", then per object
              "class x1 y1 x2 y2"
Boxes are in the image's pixels, x2/y2 exclusive (a 10-pixel-wide shape at x=4 is [4, 14)).

The background is grey texture (luma varies, chroma stays within a few levels of neutral); each
object is a filled rectangle or ellipse in one saturated palette colour, its class. Objects do
not overlap or touch (a gap of a 48th of the width, at least 12 pixels) so that each stays one
connected component after a resize to a detector's input.
The simulated detector (simulator/src/model/model_detector.cpp) finds them by chroma and names
the class by the nearest palette colour: PALETTE here and kPalette there must agree (the ctest
sim.detector compares its classes with NAME.txt).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

PALETTE = (  # class id = position; saturated colours, far apart in chroma (U, V)
    ("red", (255, 0, 0)),
    ("green", (0, 200, 0)),
    ("blue", (0, 0, 255)),
    ("yellow", (255, 220, 0)),
    ("magenta", (255, 0, 255)),
    ("cyan", (0, 200, 255)),
)
MIN_GAP = 12  # pixels between objects (and from the image's edges), at least


def gap(width: int) -> int:
    """Pixels between objects: a 48th of the width (40 at 1080p), so that shapes stay apart,
    several chroma samples, after a detector's resize to ~416 pixels."""
    return max(MIN_GAP, width // 48)


@dataclass(frozen=True)
class Shot:
    name: str
    width: int
    height: int
    objects: int


# 0, 1 and 8 objects at 1080p, 720p and VGA: the counts the graph tests measure at.
SHOTS = tuple(
    Shot(f"shapes_{label}_{n}obj", w, h, n)
    for label, w, h in (("1080p", 1920, 1080), ("720p", 1280, 720), ("vga", 640, 480))
    for n in (0, 1, 8)
)


def background(width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    fx, fy, phase = rng.uniform(3, 9), rng.uniform(3, 9), rng.uniform(0, 2 * np.pi)
    grey = 128 + 45 * np.sin(x / width * fx * np.pi + phase) * np.cos(y / height * fy * np.pi)
    grey += rng.normal(0, 6, size=grey.shape)  # grain: texture, not flat colour
    tint = rng.uniform(-4, 4, size=3)  # a faint cast: chroma near neutral
    rgb = grey[..., None] + tint[None, None, :]
    return np.clip(rgb, 0, 255).astype(np.uint8)


def place(width: int, height: int, count: int, rng: np.random.Generator) -> list[tuple[int, int, int, int]]:
    """Boxes [x1, y1, x2, y2) at even coordinates, gap(width) apart and inside the frame."""
    short = min(width, height)
    space = gap(width)
    boxes: list[tuple[int, int, int, int]] = []
    for _ in range(count):
        for _attempt in range(1000):
            w = int(rng.integers(short // 12, short // 5)) // 2 * 2
            h = int(rng.integers(short // 12, short // 5)) // 2 * 2
            x1 = int(rng.integers(space, width - space - w)) // 2 * 2
            y1 = int(rng.integers(space, height - space - h)) // 2 * 2
            box = (x1, y1, x1 + w, y1 + h)
            if all(
                box[0] >= o[2] + space or o[0] >= box[2] + space or box[1] >= o[3] + space or o[1] >= box[3] + space
                for o in boxes
            ):
                boxes.append(box)
                break
        else:
            raise RuntimeError(f"cannot place {count} objects in {width}x{height}")
    return boxes


def draw(shot: Shot, seed: int) -> tuple[Image.Image, list[dict[str, object]]]:
    rng = np.random.default_rng([seed, shot.width, shot.height, shot.objects])
    img = Image.fromarray(background(shot.width, shot.height, rng), "RGB")
    pen = ImageDraw.Draw(img)
    objects: list[dict[str, object]] = []
    for i, (x1, y1, x2, y2) in enumerate(place(shot.width, shot.height, shot.objects, rng)):
        cls = (i + int(rng.integers(0, len(PALETTE)))) % len(PALETTE)
        shape = "ellipse" if rng.integers(0, 2) else "rectangle"
        corners = [x1, y1, x2 - 1, y2 - 1]  # Pillow's corners are inclusive
        colour = PALETTE[cls][1]
        if shape == "ellipse":
            pen.ellipse(corners, fill=colour)
        else:
            pen.rectangle(corners, fill=colour)
        objects.append({"box": [x1, y1, x2, y2], "class": cls, "name": PALETTE[cls][0], "shape": shape})
    return img, objects


def write(shot: Shot, out: Path, seed: int) -> None:
    img, objects = draw(shot, seed)
    img.save(out / f"{shot.name}.jpg", "JPEG", quality=90, optimize=False, progressive=False, subsampling="4:2:0")
    doc = {
        "file": f"{shot.name}.jpg",
        "width": shot.width,
        "height": shot.height,
        "seed": seed,
        "objects": objects,
        "palette": [{"class": i, "name": name, "rgb": list(rgb)} for i, (name, rgb) in enumerate(PALETTE)],
    }
    (out / f"{shot.name}.json").write_text(json.dumps(doc, indent=1) + "\n")
    lines = [f"{shot.width} {shot.height} {len(objects)}"]
    lines += [f"{o['class']} {' '.join(str(v) for v in o['box'])}" for o in objects]  # type: ignore[attr-defined]
    (out / f"{shot.name}.txt").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the images")
    parser.add_argument("--only", nargs="*", default=None, help="image names (default: all)")
    parser.add_argument("--seed", type=int, default=29, help="the same seed gives the same images")
    args = parser.parse_args(argv)
    names = {shot.name for shot in SHOTS}
    unknown = sorted(set(args.only or ()) - names)
    if unknown:
        print(f"make_shapes: unknown image {', '.join(unknown)}; known: {', '.join(sorted(names))}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    for shot in SHOTS:
        if args.only is None or shot.name in args.only:
            write(shot, args.out, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
