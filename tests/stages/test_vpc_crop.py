"""The vpc_crop kind's Python side: the region sizes its snapping keeps to (crop_limits), which
templates/stages/vpc_crop.h receives as its Rules."""

from __future__ import annotations

import pytest

from ascgen.dsl import profile as profiles
from ascgen.dsl.dsl_base import Size
from ascgen.stages.vpc_crop import crop_limits


@pytest.mark.parametrize(
    ("out", "smallest", "largest"),
    [
        ((224, 224), (14, 14), (4096, 4096)),  # 224 / 16 = 14; 224 x 32 = 7168, past the ROI range
        ((64, 32), (10, 6), (2048, 1024)),  # the ROI range's 10x6; 64 x 32 = 2048
        ((250, 90), (16, 6), (4096, 2880)),  # 250 / 16 = 15.6 -> even 16
    ],
)
def test_crop_limits_follow_the_roi_range_and_the_resize_ratio(
    out: tuple[int, int], smallest: tuple[int, int], largest: tuple[int, int]
) -> None:
    prof = profiles.load("ascend310")
    assert (prof.limits.resize_ratio.min, prof.limits.resize_ratio.max) == (1 / 32, 16)
    lo, hi = crop_limits(Size(width=out[0], height=out[1]), prof)
    assert (lo.width, lo.height) == smallest
    assert (hi.width, hi.height) == largest
    assert lo.width % 2 == lo.height % 2 == hi.width % 2 == hi.height % 2 == 0
