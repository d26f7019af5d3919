"""A copy-bound deployment on one card: the devices' copies to the host share the card's PCIe
link in the simulator (simulator/src/host_link.h), and the aggregate throughput stops where
`ascgen plan` says the link stops it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from program_harness import REPO, built, run_program

from ascgen import profile as profiles

# A detector whose 4 MiB of outputs per batch of 8 go back to the host over a slow D2H engine
# (0.3 GB/s): each chip is bound by its copies back, and the card's link (0.75 GB/s each way)
# carries two and a half chips' worth of them.
SPEC = """\
name: link_bound
device: {ids: all, profile: slowlink310, deploy: threads}
source: {kind: jpeg_files, path: data/images, max_bytes: 1MiB, typical_bytes: 75825}
threads: 2
buffers: {depth: 4}
batch: 8
stages:
  - {name: upload, kind: h2d}
  - {name: decode, kind: jpeg_decode, max: {width: 1024, height: 1536}}
  - {name: resize, kind: vpc_resize, out: {width: 240, height: 232}}
  - {name: detect, kind: model, path: models/detector_240x232.om, latency_ms: {1: 1.6, 8: 9.2},
     output_bytes: 4194304}
  - {name: fetch, kind: d2h}
"""


def slow_link_profile(folder: Path) -> None:
    base = profiles.load("ascend310")
    d2h = base.engines.d2h.model_copy(update={"bandwidth_GBps": 0.3, "latency_us": 30.0})
    slow = base.model_copy(
        update={
            "name": "slowlink310",
            "engines": base.engines.model_copy(update={"d2h": d2h}),
            "topology": base.topology.model_copy(update={"host_link_GBps": 0.75}),
        }
    )
    folder.mkdir(parents=True, exist_ok=True)
    data = slow.model_dump(mode="json", exclude_none=True)
    (folder / "slowlink310.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


@pytest.mark.slow
def test_a_copy_bound_card_stops_where_the_plan_says_its_link_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow_link_profile(tmp_path / "profiles")
    monkeypatch.setenv(profiles.PATH_VARIABLE, str(tmp_path / "profiles"))
    spec = tmp_path / "link_bound.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    (tmp_path / "data").symlink_to(REPO / "pipelines/data")  # the images, beside the spec
    result = built(spec)
    plan = result.plan.deployment
    assert plan.bottleneck == "host link 0 (devices [0, 1, 2, 3])"
    link_devices = plan.aggregate_qps / plan.per_device_qps  # the link carries this many chips' frames
    assert 2 < link_devices < 3
    # Model-time figures: the simulated clock slowed so that the simulator's CPU does not limit.
    env = {"ACL_SIM_DEVICE_OPEN_MS": "0", "ACL_SIM_TIME_SCALE": "5", "ACL_SIM_HAZARD": "0"}
    qps = {}
    for devices in ("0", "0,1", "0,1,2,3"):
        run = run_program(
            result.binary, "--warmup", "0.5", "--duration", "2", "--devices", devices, cwd=tmp_path / devices, env=env
        )
        assert run.returncode == 0 and run.report is not None, run.stderr[-3000:]
        qps[devices.count(",") + 1] = run.report["qps"]
    # Two chips ask less than the link carries: they scale; four ask more: the link binds them
    # where the plan says, a ratio of figures measured in one run.
    assert qps[2] / qps[1] == pytest.approx(2.0, rel=0.08)
    assert qps[4] / qps[1] == pytest.approx(link_devices, rel=0.08)
