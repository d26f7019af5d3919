"""The VDEC time model: fitted on the documented 4K and 1080p capacities of the 310 only, it
predicts 720p (documented 960 frames/s) within 10 %, and the shipped profile holds the fit."""

from __future__ import annotations

import pytest

from ascgen.dsl.profile import load
from tools.vdec_fit import FHD, FITTED, HD, UHD, fit, rounded


def test_the_fit_uses_4k_and_1080p_only() -> None:
    assert FITTED == (UHD, FHD)
    assert HD not in FITTED


def test_the_fit_reproduces_its_two_points() -> None:
    f = fit(units=4, block=64)
    assert f.capacity_fps(UHD.width, UHD.height) == pytest.approx(120, rel=1e-9)
    assert f.capacity_fps(FHD.width, FHD.height) == pytest.approx(480, rel=1e-9)


def test_720p_is_predicted_within_10_percent() -> None:
    f = fit(units=4, block=64)
    assert f.capacity_fps(HD.width, HD.height) == pytest.approx(HD.fps, rel=0.10)
    assert f.channel_bytes(HD.width, HD.height) / (1 << 20) == pytest.approx(HD.channel_mb, rel=0.10)


def test_more_cores_do_not_change_the_totals() -> None:
    # Capacity is units / time per frame; the per-core time scales with the cores.
    a, b = fit(units=4, block=64), fit(units=8, block=64)
    assert a.capacity_fps(HD.width, HD.height) == pytest.approx(b.capacity_fps(HD.width, HD.height))


def test_the_310_profile_holds_the_fit() -> None:
    vdec = load("ascend310").engines.vdec
    assert vdec is not None
    f = rounded(fit(vdec.units, vdec.block))
    assert (vdec.frame_us, vdec.per_block_us) == (f.frame_us, f.per_block_us)
    assert (vdec.channel_fixed_bytes, vdec.channel_frames) == (f.channel_fixed_bytes, f.channel_frames)
    # The profile's own formula gives the same prediction.
    assert vdec.units * 1e6 / vdec.service_us(HD.width, HD.height) == pytest.approx(HD.fps, rel=0.10)
