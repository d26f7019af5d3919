"""`ascgen bench --sweep devices=1,2,4 --sweep deploy=processes,threads`: run-time flags of one
build, each point against its deployment's aggregate roofline, and the scaling efficiency."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascgen.bench.points import BadSweep, configurations, parse_sweep
from ascgen.bench.report import columns, rows
from ascgen.bench.roofline import Planner, roofline_of, variant_config
from ascgen.bench.runner import RunOptions, command
from ascgen.bench.schema import Latency, Summary

CARD = Path("pipelines/ascend310/resnet50_atlas300i.yaml")  # four 310s


def test_devices_and_deploy_sweep_as_run_time_flags_of_one_build() -> None:
    planner = Planner(CARD)
    sweeps = [parse_sweep("devices=1,2,4"), parse_sweep("deploy=processes,threads")]
    configs = configurations(planner.spec, sweeps, {})
    assert [(c.devices, c.deploy) for c in configs] == [
        ("0", "processes"), ("0", "threads"), ("0,1", "processes"), ("0,1", "threads"),
        ("0,1,2,3", "processes"), ("0,1,2,3", "threads"),
    ]  # fmt: skip
    # Labelled as the user wrote them: how many devices, not their ids.
    assert [c.label().split(" devices=")[1] for c in configs[::2]] == ["1 deploy=processes", "2 deploy=processes",
                                                                       "4 deploy=processes"]  # fmt: skip
    assert len({variant_config(planner.spec, c) for c in configs}) == 1  # one program for all
    cmd = command(Path("prog"), configs[3], RunOptions(duration_s=1, warmup_s=0), Path("r.json"))
    assert cmd[cmd.index("--devices") + 1] == "0,1" and cmd[cmd.index("--deploy") + 1] == "threads"
    one, two, four = (roofline_of(planner.plan(c)) for c in configs[::2])
    assert two == pytest.approx(2 * one) and four == pytest.approx(4 * one)  # nothing shared binds
    assert one == pytest.approx(planner.plan(configs[0]).roofline_qps)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("devices=0", "must be 1 or more"),
        ("devices=two", "not a whole number"),
        ("deploy=fork", "processes or threads"),
    ],
)
def test_bad_device_sweeps_are_one_line(text: str, why: str) -> None:
    with pytest.raises(BadSweep, match=why):
        parse_sweep(text)


def test_more_devices_than_the_spec_has_is_refused() -> None:
    planner = Planner(CARD)
    with pytest.raises(BadSweep, match="the spec runs on 4 device"):
        configurations(planner.spec, [parse_sweep("devices=8")], {})


def summary(devices: str, deploy: str, qps: float) -> Summary:
    latency = Latency(p50=1.0, p90=1.0, p99=1.0, max=1.0)
    return Summary(
        threads=4, depth=8, batch=16, streams="per_stage", sync_every=None, devices=devices, deploy=deploy,
        repeats=1, qps_median=qps, qps_min=qps, qps_max=qps, qps_cv=None, latency_ms=latency,
        roofline_qps=735.0 * len(devices.split(",")), bottleneck="devices", efficiency=1.0, window_cv=None,
        host_cpu_s_per_1000_frames=None, device_memory_bytes=1,
    )  # fmt: skip


def test_the_table_has_the_scaling_efficiency_against_one_device() -> None:
    summaries = [
        summary("0", "processes", 700.0),
        summary("0,1", "processes", 1330.0),
        summary("0,1", "threads", 1400.0),
    ]
    names = columns(summaries)
    assert names[names.index("devices") : names.index("scaling") + 1] == ["devices", "deploy", "scaling"]
    got = [r[names.index("scaling")] for r in rows(summaries)]
    assert got == ["100.0%", "95.0%", "100.0%"]
    assert [r[names.index("devices")] for r in rows(summaries)] == ["1", "2", "2"]  # as --sweep devices=1,2
