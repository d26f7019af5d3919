"""A server's load as a sweep: --sweep clients= (closed loop) and rate= (open loop)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_helpers import SPEC

from ascgen.bench.points import BadSweep, configurations, parse_sweep, swept_keys
from ascgen.bench.report import best, columns, rows
from ascgen.bench.roofline import variant_config
from ascgen.bench.runner import RunOptions, command
from ascgen.bench.schema import Config, Latency, Summary
from ascgen.dsl.parse import parse_file

REPO = Path(__file__).resolve().parents[2]
SERVER = parse_file(REPO / "pipelines" / "serving" / "resnet50_batched.yaml")[0]
FRAMES = parse_file(SPEC)[0]


def test_clients_and_rate_parse_as_numbers() -> None:
    assert parse_sweep("clients=1,8,32,70").values == (1, 8, 32, 70)
    assert parse_sweep("rate=50,100.5").values == (50.0, 100.5)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("clients=0", "must be 1..4096"),
        ("clients=2.5", "not a whole number"),
        ("rate=-1", r"must be 0\.001\.\.1e\+07"),
        ("rate=0.0001", r"must be 0\.001\.\.1e\+07"),  # the program's own limit, refused before the build
        ("rate=fast", "not a number"),
    ],
)
def test_bad_loads_are_refused(text: str, message: str) -> None:
    with pytest.raises(BadSweep, match=message):
        parse_sweep(text)


def test_a_load_needs_a_server_and_one_kind_of_load() -> None:
    with pytest.raises(BadSweep, match=r"source: \{kind: requests\}"):
        configurations(FRAMES, [parse_sweep("clients=1,2")], {})
    with pytest.raises(BadSweep, match="not both"):
        configurations(SERVER, [parse_sweep("clients=1,2"), parse_sweep("rate=10")], {})


def test_the_load_is_a_run_time_flag_of_one_build() -> None:
    sweeps = [parse_sweep("clients=1,8,70")]
    configs = configurations(SERVER, sweeps, {})
    assert [c.clients for c in configs] == [1, 8, 70] and swept_keys(sweeps, configs) == ["clients"]
    assert len({variant_config(SERVER, c) for c in configs}) == 1  # one program serves every point
    cmd = command(Path("prog"), configs[2], RunOptions(duration_s=1, warmup_s=0), Path("out.json"))
    assert cmd[cmd.index("--clients") + 1] == "70" and "--rate" not in cmd
    rate = configurations(SERVER, [parse_sweep("rate=250")], {})[0]
    cmd = command(Path("prog"), rate, RunOptions(duration_s=1, warmup_s=0), Path("out.json"))
    assert cmd[cmd.index("--rate") + 1] == "250" and "--clients" not in cmd


def _summary(clients: int, qps: float) -> Summary:
    base = Config(threads=2, depth=16, batch=16, streams="per_stage", sync_every=None, clients=clients)
    lat = Latency(p50=10.0, p90=20.0, p99=30.0, max=40.0)
    return Summary(
        **base.model_dump(), repeats=1, qps_median=qps, qps_min=qps, qps_max=qps, qps_cv=None, latency_ms=lat,
        roofline_qps=735.0, bottleneck="aicore", efficiency=qps / 735.0, window_cv=None,
        host_cpu_s_per_1000_frames=None, device_memory_bytes=0,
    )  # fmt: skip


def test_the_table_shows_the_load_and_the_knee_is_the_lightest_load_at_the_top() -> None:
    summaries = [_summary(1, 36.0), _summary(8, 170.0), _summary(32, 718.0), _summary(70, 721.0)]
    assert "clients" in columns(summaries)
    assert [r[columns(summaries).index("clients")] for r in rows(summaries)] == ["1", "8", "32", "70"]
    top = best(summaries)
    assert top is not None and top.clients == 32  # within 1 % of 721 with fewer clients
