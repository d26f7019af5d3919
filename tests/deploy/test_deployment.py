"""Deployment over several devices: ids against the topology, and where scaling stops."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ascgen.cli import cli
from ascgen.codegen.lower import lower
from ascgen.deploy.plan import host_link_bytes, plan_deployment
from ascgen.dsl import profile as profiles
from ascgen.pipeline import analyze_text

SEED = Path("pipelines/resnet50_b16.yaml").read_text()


def on(device: str, seed: str = SEED) -> str:
    return seed.replace("device: {id: 0, profile: ascend310}", f"device: {device}")


def test_one_device_is_the_spec_id_and_all_is_the_topology() -> None:
    assert analyze_text(SEED)[1].deployment.device_ids == [0]
    assert analyze_text(on("{id: 3, profile: ascend310}"))[1].deployment.device_ids == [3]
    _, plan = analyze_text(on("{ids: all, profile: ascend310}"))
    assert plan.deployment.device_ids == [0, 1, 2, 3] == list(range(profiles.load("ascend310").topology.devices))
    assert plan.device_id == 0
    _, plan = analyze_text(on("{ids: [2, 1], profile: ascend310}"))
    assert plan.deployment.device_ids == [2, 1] and plan.device_id == 2


def test_the_host_link_carries_each_frame_s_copies_the_busier_way() -> None:
    _, plan = analyze_text(SEED)
    prof = plan.device
    # the JPEG up (typical 75,825 bytes) and the scores down (4,000 bytes per frame): PCIe is full
    # duplex, the link's bandwidth binds each way on its own
    assert host_link_bytes(plan.stages, prof) == pytest.approx(75825, rel=1e-6)
    assert host_link_bytes([s for s in plan.stages if s.engine != "h2d"], prof) == pytest.approx(4000, rel=1e-6)


def test_four_chips_behind_one_link_scale_until_the_link_binds() -> None:
    _, plan = analyze_text(on("{ids: all, profile: ascend310}"))
    d = plan.deployment
    assert d.per_device_qps == pytest.approx(plan.roofline_qps)
    assert [lk.devices for lk in d.links] == [[0, 1, 2, 3]]  # one PCIe switch for the card
    assert d.bottleneck == "devices" and d.scaling == pytest.approx(1.0)
    # the same card with a link that carries only 2.5 chips' worth of frames: it binds
    per_frame = d.host_link_bytes_per_frame
    slow = plan.device.model_copy(
        update={
            "topology": plan.device.topology.model_copy(
                update={"host_link_GBps": 2.5 * d.per_device_qps * per_frame / 1e9}
            )
        }
    )
    spec, _ = analyze_text(on("{ids: all, profile: ascend310}"))
    bound = plan_deployment(spec, slow, plan.stages, d.per_device_qps)
    assert bound.aggregate_qps == pytest.approx(2.5 * d.per_device_qps)
    assert bound.scaling == pytest.approx(2.5 / 4)
    assert bound.bottleneck == "host link 0 (devices [0, 1, 2, 3])"


def test_devices_on_their_own_links_do_not_share_them() -> None:
    _, plan = analyze_text(on("{ids: [0, 1], profile: ascend910b}"))
    assert [lk.devices for lk in plan.deployment.links] == [[0], [1]]
    assert plan.deployment.aggregate_qps == pytest.approx(2 * plan.roofline_qps)


def test_plan_shows_where_scaling_stops() -> None:
    result = CliRunner().invoke(cli, ["plan", "pipelines/ascend310/resnet50_atlas300i.yaml"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "Deployment: 4 devices of an Atlas 300I inference card" in result.output
    assert "aggregate roofline: 2,938 frames/s on 4 devices (100.0 % of 4 x 735), bottleneck: devices" in result.output
    # The link is shared across processes too (the simulated machine, ACL_SIM_MACHINE): the plan says so.
    text = " ".join(result.output.split())
    assert "its devices share it whether one process drives them or a process each" in text
    assert "not between processes" not in text
    one = CliRunner().invoke(cli, ["plan", "pipelines/resnet50_b16.yaml"], terminal_width=200)
    assert "Deployment" not in one.output and "aggregate roofline" not in one.output


def test_several_devices_reach_the_program_as_its_default_devices(tmp_path: Path) -> None:
    _, plan = analyze_text(on("{ids: [0, 2], profile: ascend310}"))
    assert ("devices", '"0,2"') in lower(plan, tmp_path).defaults
    _, one = analyze_text(SEED)
    assert all(field != "devices" for field, _ in lower(one, tmp_path).defaults)  # unchanged main.cpp


def test_numa_layout_of_the_simulated_host_reaches_the_program(tmp_path: Path) -> None:
    _, plan = analyze_text(
        on("{ids: [0, 3], profile: ascend910b}").replace("host: {affinity: all}", "host: {numa: device}")
    )
    d = plan.deployment
    assert d.numa == "device"
    assert d.numa_topology == "device0=0;device3=1;node0=0-47;node1=48-95;node2=96-143;node3=144-191"
    defaults = dict(lower(plan, tmp_path).defaults)
    assert defaults["numa"] == '"device"' and defaults["numa_topology"] == f'"{d.numa_topology}"'
    _, one = analyze_text(SEED)
    assert one.deployment.numa_topology == ""  # one device, no binding: main.cpp as before
