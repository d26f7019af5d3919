"""Writes the text-line service's requests (pipelines/serving/textline_batched.yaml): synthetic
grey text lines already resized to the model's height of 32 pixels with their aspect ratio kept,
so each has its own width; raw uint8, row after row (source format raw, docs/serving.md).

Run from the repository root: python pipelines/data/make_text_lines.py
Deterministic: the same files every time (fixed seeds). Nothing downloaded.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
FOLDER = HERE / "text_lines"
HEIGHT = 32
# widths from a short word to a full line: pairs that the padding rule keeps apart (24 and 72:
# 1,536 padded elements more, and less than half kept) and pairs it merges (150 and 180)
WIDTHS = [24, 40, 56, 72, 96, 120, 150, 180, 210, 250, 290, 320]


def text_line(width: int, seed: int) -> np.ndarray:
    """Dark strokes ("glyphs" 6 to 14 pixels wide) on a light, slightly noisy background."""
    rng = np.random.default_rng(seed)
    line = np.clip(rng.normal(225, 6, size=(HEIGHT, width)), 0, 255)
    x = 2
    while x < width - 4:
        glyph = int(rng.integers(6, 15))
        top, bottom = int(rng.integers(4, 10)), int(rng.integers(22, 29))
        for _ in range(int(rng.integers(2, 5))):
            cx = x + int(rng.integers(0, glyph))
            line[top:bottom, cx : min(cx + 2, width)] = rng.integers(20, 70)
        x += glyph + int(rng.integers(1, 4))
    return line.astype(np.uint8)


def main() -> None:
    FOLDER.mkdir(exist_ok=True)
    for k, width in enumerate(WIDTHS):
        path = FOLDER / f"line_{k:02d}_{HEIGHT}x{width}.u8"
        path.write_bytes(text_line(width, 1000 + k).tobytes())
    print(f"wrote {len(WIDTHS)} text lines into {FOLDER}")


if __name__ == "__main__":
    main()
