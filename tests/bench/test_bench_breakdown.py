"""`ascgen bench` on a graph program: the latency breakdown (each part's mean ms and share) and each
object's latency in the console, summary.md, results.json and breakdown.png (ascgen/bench/breakdown.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_helpers import SPEC, FakeBuilder
from test_bench_cli import bench  # ascgen bench through the CLI with the fake builder

from ascgen.bench import breakdown
from ascgen.bench.schema import Breakdown, ObjectLatency, ProgramReport

PARTS = ["queue", "decode", "detect", "handoff", "crops", "classify"]  # the fake program's, in its order


def test_bench_shows_where_a_graph_programs_latency_goes(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_builder.knobs = ["--breakdown"]
    out = tmp_path / "o"
    args = ["--sweep", "threads=1,2", "--duration", "4", "--warmup", "0", "--repeat", "2", "--out", str(out)]
    result = bench(fake_builder, monkeypatch, str(SPEC), *args)
    assert result.exit_code == 0, result.output
    # the best point's (threads=2): each part's mean ms and share, in the program's order, then the total
    table = result.output[result.output.index("where a frame's latency goes") :]
    assert "breakdown of threads=2 depth=4 batch=16 streams=per_stage, mean over 2 repeat(s)" in table
    lines = [ln for ln in table.splitlines() if "│" in ln]
    named = [ln.split("│")[1].strip() for ln in lines]
    assert named[named.index("queue") : named.index("queue") + len(PARTS) + 1] == [*PARTS, "total"]
    detect = lines[named.index("detect")]
    assert "40.0 %" in detect and "100 %" in lines[named.index("total")]
    assert "per object (" in table and "from its crop call to its scores p50" in table
    doc = json.loads((out / "results.json").read_text())
    for run in doc["runs"]:
        assert list(run["breakdown"]["parts_ms"]) == PARTS
    best = doc["summary"][1]
    parts = best["breakdown"]["parts_ms"]
    runs = [r for r in doc["runs"] if r["threads"] == 2]
    assert parts["detect"] == pytest.approx(sum(r["breakdown"]["parts_ms"]["detect"] for r in runs) / 2)
    assert best["breakdown"]["objects"]["objects"] == sum(r["breakdown"]["objects"]["objects"] for r in runs)
    summary = (out / "summary.md").read_text()
    assert "| stage | mean ms | share |" in summary and "| detect |" in summary and "Per object (" in summary
    assert "`breakdown.png`" in summary
    assert (out / "breakdown.png").stat().st_size > 1000


def test_a_program_without_a_breakdown_has_no_table_and_no_plot(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "o"
    result = bench(fake_builder, monkeypatch, str(SPEC), "--duration", "2", "--warmup", "0", "--repeat", "1",
                   "--out", str(out))  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "latency goes" not in result.output and not (out / "breakdown.png").exists()
    assert json.loads((out / "results.json").read_text())["summary"][0]["breakdown"] is None


def _report(parts: dict[str, float], objects: dict[str, object] | None) -> ProgramReport:
    doc = {
        "schema_version": 1, "program": "g", "backend": "simulator", "profile": "ascend310", "streams": "per_stage",
        "threads": 1, "depth": 5, "batch": 4, "frames": 100, "duration_s": 1.0, "qps": 100.0,
        "latency_ms": {"p50": 1.0, "p90": 1.0, "p99": 1.0, "max": 1.0}, "stages": {}, "host_cpu_s": 0.1,
        "device_memory_bytes": 1, "latency_breakdown_ms": parts, "object_latency_ms": objects,
    }  # fmt: skip
    return ProgramReport.model_validate(doc)


def test_a_runs_breakdown_is_the_devices_time_and_a_configurations_the_mean_of_its_repeats() -> None:
    objects = {"objects": 10, "from_crop": {"p50": 2.0, "p99": 4.0}, "from_arrival": {"p50": 6.0, "p99": 8.0}}
    run = breakdown.of_report(_report({"queue": 1.0, "detect": 3.0}, objects), 0.5)  # the device 2x slower
    assert run == Breakdown(
        parts_ms={"queue": 2.0, "detect": 6.0},
        objects=ObjectLatency(objects=10, from_crop_p50=4.0, from_crop_p99=8.0, from_arrival_p50=12.0,
                              from_arrival_p99=16.0),
    )  # fmt: skip
    assert breakdown.of_report(_report({}, None), 1.0) is None
    other = Breakdown(parts_ms={"queue": 4.0, "detect": 2.0, "join": 1.0}, objects=None)
    both = breakdown.summary([run, other])
    assert both is not None and both.parts_ms == {"queue": 3.0, "detect": 4.0, "join": 0.5}
    assert both.objects == run.objects  # the one repeat that timed objects
    assert breakdown.rows(both)[-1] == ["total", "7.50", "100 %"]
    assert breakdown.summary([]) is None
