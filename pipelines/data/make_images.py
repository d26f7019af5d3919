"""Writes the example pipelines' input JPEGs (our own synthetic pictures; nothing downloaded).

Run from the repository root: python pipelines/data/make_images.py
Deterministic: the same files every time (fixed seeds, Pillow's baseline encoder).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

HERE = Path(__file__).parent
SETS = {  # folder: (width, height, count, JPEG quality)
    "images": (1024, 1536, 4, 78),
    "images_1080p": (1920, 1080, 2, 80),
    "images_4k": (3840, 2160, 2, 60),
}


def picture(width: int, height: int, seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    fx, fy = rng.uniform(2, 6, size=2)
    base = np.stack(
        [
            128 + 100 * np.sin(x / width * fx * np.pi + seed),
            128 + 100 * np.cos(y / height * fy * np.pi - seed),
            128 + 100 * np.sin((x + y) / (width + height) * 3 * np.pi),
        ],
        axis=-1,
    )
    base += rng.normal(0, 1.5, size=base.shape)
    img = Image.fromarray(np.clip(base, 0, 255).astype(np.uint8), "RGB")
    draw = ImageDraw.Draw(img)
    for _ in range(12):
        x0, y0 = int(rng.integers(0, width)), int(rng.integers(0, height))
        r = int(rng.integers(width // 40, width // 8))
        color = tuple(int(c) for c in rng.integers(0, 256, size=3))
        draw.ellipse([x0 - r, y0 - r, x0 + r, y0 + r], fill=color)
    return img


def main() -> None:
    for folder, (width, height, count, quality) in SETS.items():
        out = HERE / folder
        out.mkdir(exist_ok=True)
        for i in range(count):
            path = out / f"frame_{i:02d}.jpg"
            picture(width, height, seed=i + 1).save(
                path, "JPEG", quality=quality, optimize=False, progressive=False, subsampling="4:2:0"
            )
            print(f"{path}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
