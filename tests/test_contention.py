"""The contended roofline (ascgen/contention.py)."""

from __future__ import annotations

import pytest

from ascgen import profile
from ascgen.contention import (
    DDR_BOTTLENECK,
    StageLoad,
    contended_roofline,
    copy_bytes,
    jpegd_bytes,
    model_bytes,
    vpc_bytes,
)


def test_engines_bound_when_ddr_is_free() -> None:
    r = contended_roofline([StageLoad("decode", 2630.0, 1, 2, 2.4e6), StageLoad("infer", 21780.0, 16, 1, 330e6)], 48.0)
    assert r.bottleneck == "infer"
    assert r.qps == pytest.approx(16e6 / 21780.0)
    assert r.qps == r.uncontended_qps and r.stretch == 1.0
    assert r.ddr_bytes_per_frame == pytest.approx(2.4e6 + 330e6 / 16)


def test_ddr_bound_stretches_every_engine() -> None:
    # 1000 frames/s on the engines alone, 100 MB per frame: 100 GB/s asked of 48.
    r = contended_roofline([StageLoad("a", 1000.0, 1, 1, 100e6)], 48.0)
    assert r.bottleneck == DDR_BOTTLENECK
    assert r.qps == pytest.approx(480.0)
    assert r.stretch == pytest.approx(1000.0 / 480.0)
    assert r.ddr_GBps == pytest.approx(48.0)


def test_no_traffic_no_bound() -> None:
    r = contended_roofline([StageLoad("a", 10.0, 1, 1, 0.0)], 1.0)
    assert r.qps == pytest.approx(1e5) and r.bottleneck == "a" and r.ddr_GBps == 0.0


def test_rejects_empty_and_non_positive() -> None:
    with pytest.raises(ValueError):
        contended_roofline([], 48.0)
    with pytest.raises(ValueError):
        contended_roofline([StageLoad("a", 0.0, 1, 1, 1.0)], 48.0)
    with pytest.raises(ValueError):
        contended_roofline([StageLoad("a", 1.0, 1, 1, 1.0)], 0.0)


def test_bytes_as_the_simulator_counts_them() -> None:
    assert copy_bytes("h2d", 100) == 100 and copy_bytes("d2h", 100) == 100
    assert copy_bytes("d2d", 100) == 200
    assert jpegd_bytes(75825, 2359296) == 75825 + 2359296
    assert vpc_bytes(2359296, 75264) == 2359296 + 75264
    assert model_bytes(16 * 75264, 64000, 16, 1000, 10) == 16 * 75264 + 64000 + 1000 + 160


def test_seed_pipeline_is_not_ddr_bound_on_ascend310() -> None:
    """The seed workload at batch 16 asks ~24 MB per frame of DDR: the 310's 48 GB/s carries
    ~2000 frames/s, well above the AI Core's 734: the contended roofline is the uncontended one."""
    p = profile.load("ascend310")
    ref = p.models["resnet50"]
    e = p.engines
    decoded, resized, jpeg = 1536 * 1024 * 3 // 2, 224 * 224 * 3 // 2, 75825
    stages = [
        StageLoad("upload", e.h2d.service_us(jpeg), 1, 1, copy_bytes("h2d", jpeg)),
        StageLoad("decode", e.jpegd.service_us(1536 * 1024), 1, 2, jpegd_bytes(jpeg, decoded)),
        StageLoad("resize", e.vpc.service_us(224 * 224), 1, 4, vpc_bytes(decoded, resized)),
        StageLoad(
            "infer",
            ref.latency_ms[16] * 1000,
            16,
            1,
            model_bytes(16 * resized, 16 * 4000, 16, ref.traffic_bytes_fixed, ref.traffic_bytes_per_item),
        ),
    ]
    r = contended_roofline(stages, p.memory.bandwidth_GBps)
    assert r.bottleneck == "infer" and r.stretch == 1.0
    assert 20e6 < r.ddr_bytes_per_frame < 30e6
    assert r.qps * r.ddr_bytes_per_frame / 1e9 == pytest.approx(r.ddr_GBps)
