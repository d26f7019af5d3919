"""The profile's figures for graph pipelines, as the simulator times them: a VPC batch crop call
(simulator/docs/vpc_batch_time.md) and the AI Core's switch between two models
(simulator/docs/shared_bandwidth.md section 2)."""

from __future__ import annotations

import pytest

from ascgen.dsl import profile as profiles


@pytest.mark.parametrize("name", ["ascend310", "ascend310p", "ascend910b", "atlas_a3"])
def test_every_profile_states_both_figures(name: str) -> None:
    prof = profiles.load(name)
    assert prof.engines.vpc.per_roi_us == 60
    assert prof.engines.aicore.model_switch_weight_share == 1.0


def test_a_batch_call_is_one_base_plus_a_region_cost_after_the_first() -> None:
    vpc = profiles.load("ascend310").engines.vpc
    assert vpc.batch_service_us(1, 224 * 224) == vpc.service_us(224 * 224)
    assert vpc.batch_service_us(8, 8 * 224 * 224) == pytest.approx(300 + 7 * 60 + 1196 * 8 * 224 * 224 / 1e6)


def test_a_model_switch_reads_the_weights_at_the_memory_bandwidth() -> None:
    prof = profiles.load("ascend310")
    # 48 GB/s: 4.8 MB of weights in 100 us (the figure ctest sim.model_switch checks).
    assert prof.engines.aicore.model_switch_us(4_800_000, prof.memory.bandwidth_GBps) == pytest.approx(100.0)
    assert prof.engines.aicore.model_switch_us(4_800_000, 0.0) == 0.0
