"""``ascgen probe transfer``: the generated probe program, built and run on the simulator.

The simulator's link transfers must give what the link model (the Python twin) predicts, and the
ascend310 profile's copies must keep the study's merged and unmerged figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from build_dirs import TEST_BUILD
from click.testing import CliRunner

from ascgen.cli import cli
from ascgen.common.errors import UserError
from ascgen.dsl import profile
from ascgen.transfers import model, probe, published

MIB = 1 << 20


def test_cases_follow_the_options_and_the_profile() -> None:
    few = probe.Options(profile="atlas_a3", links=("hccs",), directions=("d2d", "d2h"), sizes=(MIB,))
    cols = [(c.column, c.op, c.topology) for c in probe.cases(few)]
    # d2h over HCCS needs the pool; d2d has none: one column each per op and topology.
    assert cols == [
        ("hccs_d2d", "write", "one_host"),
        ("hccs_d2h_pool", "write", "one_host"),
        ("hccs_d2d", "read", "one_host"),
        ("hccs_d2h_pool", "read", "one_host"),
        ("hccs_d2d", "write", "two_hosts"),
        ("hccs_d2h_pool", "write", "two_hosts"),
        ("hccs_d2d", "read", "two_hosts"),
        ("hccs_d2h_pool", "read", "two_hosts"),
    ]
    # Every published column is one the probe can run.
    full = probe.Options(profile="atlas_a3")
    runnable = {(t.column, t.op, t.cross_host) for t in probe.link_transfers(full)}
    assert {(f.transfer.column, f.transfer.op, f.transfer.cross_host) for f in published.figures()} <= runnable
    # A profile without links probes copies only; asking it for links alone is an error.
    assert {c.kind for c in probe.cases(probe.Options(profile="ascend310"))} == {"kCopy"}
    with pytest.raises(UserError, match="no transfer to probe"):
        probe.render(probe.Options(profile="ascend310", links=("rdma",)), Path("/tmp/x"))


def test_render_is_deterministic(tmp_path: Path) -> None:
    options = probe.Options(profile="atlas_a3", sizes=(MIB, 4 * MIB))
    first = probe.render(options, tmp_path / "a")
    assert first == probe.render(options, tmp_path / "a")
    assert set(first) == {"main.cpp", "CMakeLists.txt"}
    assert first["main.cpp"].count('"hccs_h2d_pool"') == 2 * 2 * 2  # ops x topologies x sizes
    assert "${CMAKE_CURRENT_SOURCE_DIR}/" in first["CMakeLists.txt"]


@pytest.mark.slow
def test_probe_runs_on_the_simulator_as_the_model_says(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = [
        "probe", "transfer", "--profile", "atlas_a3", "--links", "hccs,rdma", "--directions", "d2d,h2h",
        "--sizes", "256K,4M", "--total", "16M", "--repeat", "1", "--time-scale", "10",
        "--build-dir", str(TEST_BUILD), "--out", str(out),
    ]  # fmt: skip
    result = CliRunner().invoke(cli, args, prog_name="ascgen")
    assert result.exit_code == 0, result.output
    assert "one host, write (GiB/s" in result.output and "hccs_h2h_pool" in result.output
    for name in ("results.json", "transfers.csv", "table.md", "transfers.png", "report.html"):
        assert (out / name).is_file(), name
    data = json.loads((out / "results.json").read_text())
    assert data["complete"] is True and data["options"]["profile"] == "atlas_a3"
    links = profile.load("atlas_a3").links
    assert links is not None
    rows = data["rows"]
    columns = {r["column"] for r in rows}
    assert columns == {"hccs_d2d", "hccs_h2h_pool", "rdma_d2d", "rdma_h2h", "rdma_h2h_pool"}
    assert len(rows) == 2 * 2 * 2 * len(columns)  # sizes x ops x topologies x columns
    # The table is in HIXL's unit (2**30 bytes/s); the JSON in 10**9 bytes/s.
    table = (out / "table.md").read_text()
    first = next(r for r in rows if r["status"] == "ok")
    assert f"{first['GBps'] * 1e9 / (1 << 30):.3f}" in table and "GiB/s" in table
    for r in rows:
        t = published.parse_column(r["column"], r["op"], r["topology"] == "two_hosts")
        predicted = model.throughput_GBps(links, t, r["block_bytes"])
        # The device adds its event records' scheduling (a few us per run) to the model.
        assert 0.95 < r["GBps"] / predicted <= 1.001, r


@pytest.mark.slow
def test_ascend310_copies_keep_the_study(tmp_path: Path) -> None:
    """The study: 800 unmerged copies of one 75,825-byte JPEG in 0.29 s (2,758 copies/s); merged
    copies of ~75 MiB at 58.6 GB / 19.58 s (2.99 GB/s)."""
    rows = {}
    for merged in (False, True):
        options = probe.Options(
            profile="ascend310", links=("copy",), directions=("h2d",), sizes=(75825,), total_bytes=32 * MIB,
            repeat=1, merged=merged,
        )  # fmt: skip
        binary = probe.build(options, TEST_BUILD)
        (row,) = probe.run(binary, options, time_scale=10)
        rows[merged] = row
    unmerged, merged_row = rows[False], rows[True]
    assert unmerged.bytes is not None and unmerged.seconds is not None and merged_row.GBps is not None
    copies_per_s = unmerged.bytes / 75825 / unmerged.seconds
    assert 0.9 < copies_per_s / (800 / 0.29) < 1.1
    assert 0.9 < merged_row.GBps / (58.6 / 19.58) < 1.1
    assert merged_row.GBps > 10 * (unmerged.GBps or 0)
