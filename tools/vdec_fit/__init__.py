"""The VDEC time and memory model fitted on the documented Ascend 310 figures.

CANN documents the 310's VDEC capacity per chip as 4K: 120 frames/s in total, 1080p: 480,
720p and below: 960, and about 182 / 56 / 35 MB of memory per H.265 channel (HIA en
canncommercial/800 aclcppdevg_03_0374, aclpythondevg_01_0347; 5046 aclcppdevg_03_0184).

Model (simulator/docs/vdec_time.md): `units` decoder cores, each decoding one frame at a time
for ``frame_us + per_block_us * blocks`` where blocks counts the block x block tiles that cover
the picture (a partial tile costs a whole one: the decoder works on whole coding-tree blocks).
A channel holds ``channel_fixed_bytes + channel_frames * NV12 bytes of one tile-aligned frame``.

Both are fitted on 4K and 1080p ONLY; 720p is then a prediction, checked against the
documented 960 frames/s (tests/simulator/test_vdec_fit.py).
"""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1 << 20


@dataclass(frozen=True)
class Point:
    name: str
    width: int
    height: int
    fps: float  # documented total capacity of one 310
    channel_mb: float  # documented memory per H.265 channel


UHD = Point("4K", 3840, 2160, 120.0, 182.0)
FHD = Point("1080p", 1920, 1080, 480.0, 56.0)
HD = Point("720p", 1280, 720, 960.0, 35.0)
FITTED = (UHD, FHD)


@dataclass(frozen=True)
class Fit:
    units: int
    block: int
    frame_us: float
    per_block_us: float
    channel_fixed_bytes: int
    channel_frames: float

    def blocks(self, width: int, height: int) -> int:
        return -(-width // self.block) * -(-height // self.block)

    def service_us(self, width: int, height: int) -> float:
        return self.frame_us + self.per_block_us * self.blocks(width, height)

    def capacity_fps(self, width: int, height: int) -> float:
        return self.units * 1e6 / self.service_us(width, height)

    def frame_bytes(self, width: int, height: int) -> int:
        w = -(-width // self.block) * self.block
        h = -(-height // self.block) * self.block
        return w * h * 3 // 2

    def channel_bytes(self, width: int, height: int) -> float:
        return self.channel_fixed_bytes + self.channel_frames * self.frame_bytes(width, height)


def _solve(x1: float, y1: float, x2: float, y2: float) -> tuple[float, float]:
    """Intercept and slope of the line through (x1, y1) and (x2, y2)."""
    slope = (y2 - y1) / (x2 - x1)
    return y1 - slope * x1, slope


def fit(units: int, block: int, points: tuple[Point, Point] = FITTED) -> Fit:
    """The model through the two documented points (intercepts below zero clamp to zero)."""
    probe = Fit(units, block, 0.0, 0.0, 0, 0.0)
    a, b = points
    frame_us, per_block_us = _solve(
        probe.blocks(a.width, a.height), units * 1e6 / a.fps,
        probe.blocks(b.width, b.height), units * 1e6 / b.fps,
    )  # fmt: skip
    fixed, frames = _solve(
        probe.frame_bytes(a.width, a.height), a.channel_mb * MIB,
        probe.frame_bytes(b.width, b.height), b.channel_mb * MIB,
    )  # fmt: skip
    return Fit(units, block, max(frame_us, 0.0), per_block_us, max(round(fixed), 0), frames)


def rounded(f: Fit) -> Fit:
    """The figures as the profile writes them."""
    return Fit(
        f.units, f.block, round(f.frame_us, 1), round(f.per_block_us, 2),
        int(round(f.channel_fixed_bytes, -4)), round(f.channel_frames, 2),
    )  # fmt: skip
