"""`ascgen bench` end to end with the fake program: exit codes, messages, files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_helpers import SPEC, FakeBuilder
from build_dirs import TEST_BUILD
from click.testing import CliRunner, Result

from ascgen.bench import command
from ascgen.cli import cli

FAST = ["--duration", "6", "--warmup", "0", "--repeat", "1"]


def bench(builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, *args: str) -> Result:
    monkeypatch.setattr(command, "default_builder", builder)
    monkeypatch.setenv("COLUMNS", "200")
    return CliRunner().invoke(cli, ["bench", *args])


def test_bench_writes_results_to_the_default_folder(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    result = bench(fake_builder, monkeypatch, str(SPEC), "--sweep", "threads=1,2", *FAST, "--json", "copy.json")
    assert result.exit_code == 0, result.output
    (folder,) = (tmp_path / "bench-results" / "bench_fixture").iterdir()
    assert {p.name for p in folder.iterdir()} == {
        "results.json",
        "runs.csv",
        "summary.md",
        "report.html",
        "qps.png",
        "latency.png",
        "p99_vs_qps.png",
        "raw",
    }
    doc = json.loads((folder / "results.json").read_text())
    assert [r["threads"] for r in doc["runs"]] == [1, 2]
    assert doc == json.loads((tmp_path / "copy.json").read_text())
    assert "ascgen bench:" in result.output and "best: threads=2 depth=4" in result.output
    assert "roofline" in result.output and "per_stage" in result.output
    assert fake_builder.options["backend"] == "sim"
    assert fake_builder.options["build_root"] == TEST_BUILD  # the build cache: the suite points it there
    assert callable(fake_builder.options["progress"])


def test_a_failing_point_is_one_line_and_exit_3(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_builder.knobs = ["--fail-threads", "2"]
    result = bench(fake_builder, monkeypatch, str(SPEC), "--sweep", "threads=1,2", *FAST, "--out", str(tmp_path))
    assert result.exit_code == 3
    (line,) = [ln for ln in result.output.splitlines() if ln.startswith("ascgen: error:")]
    assert line.startswith("ascgen: error: run threads=2 depth=4 batch=16 streams=per_stage (repeat 1/1")
    assert (
        "exit 3, ACL error: decode: acldvppJpegDecodeAsync failed with code 100000 (ACL_ERROR_INVALID_PARAM)"
        f" (the 1 run before it: {tmp_path})"
    ) in line
    assert line.endswith(f"(the 1 run before it: {tmp_path})")
    # what was measured before the failure is kept
    assert [r["threads"] for r in json.loads((tmp_path / "results.json").read_text())["runs"]] == [1]


def test_slo_gates_every_point(fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    spec = tmp_path / "slo.yaml"
    spec.write_text(SPEC.read_text() + "slo: {min_qps: 300, max_p99_ms: 1000}\n")
    result = bench(fake_builder, monkeypatch, str(spec), "--sweep", "threads=1,2", *FAST, "--out", str(tmp_path / "o"))
    assert result.exit_code == 1, result.output
    assert "SLO missed: threads=1 depth=4 batch=16 streams=per_stage: QPS " in result.output
    assert "SLO missed: threads=2" not in result.output
    doc = json.loads((tmp_path / "o" / "results.json").read_text())
    assert doc["slo"] == {"max_p99_ms": 1000, "min_qps": 300}
    assert [m["config"].split()[0] for m in doc["slo_misses"]] == ["threads=1"]
    assert "**SLO missed**" in (tmp_path / "o" / "summary.md").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sweep", "thread=1,2"], "ascgen: error: 'thread' cannot be swept"),
        (["--threads", "2", "--sweep", "threads=1,2"], "threads is both fixed (--threads) and swept"),
        (["--sweep", "depth=256"], "ascgen: error: threads=2 depth=256 batch=16 streams=per_stage: "),
    ],
)
def test_usage_problems_exit_2_before_any_build(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, args: list[str], message: str
) -> None:
    result = bench(fake_builder, monkeypatch, str(SPEC), *args, "--out", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert fake_builder.calls == []


def test_a_bad_spec_exits_2_with_positions(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(SPEC.read_text().replace("threads: 2", "thread: 2"))
    result = bench(fake_builder, monkeypatch, str(spec), "--out", str(tmp_path))
    assert result.exit_code == 2
    assert f"{spec}:5:1: error: unknown key 'thread'" in result.output


def test_ctrl_c_keeps_the_finished_runs_and_exits_130(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_builder.knobs = ["--interrupt-parent-threads", "2"]
    out = tmp_path / "out"
    result = bench(fake_builder, monkeypatch, str(SPEC), "--sweep", "threads=1,2,4", *FAST, "--out", str(out))
    assert result.exit_code == 130, result.output
    assert f"ascgen: interrupted: after 1 of 3 runs; wrote the finished runs to {out}" in result.stderr
    assert "Aborted!" not in result.output and "Traceback" not in result.output
    doc = json.loads((out / "results.json").read_text())
    assert doc["interrupted"] is True and [r["threads"] for r in doc["runs"]] == [1]
    assert doc["warnings"][0].startswith("interrupted (Ctrl-C) after 1 of 3 runs")
    assert (out / "runs.csv").is_file() and "interrupted" in (out / "summary.md").read_text()


def test_a_program_s_histograms_give_the_latency_of_all_frames(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_builder.knobs = ["--histogram"]
    args = ["--duration", "6", "--warmup", "0", "--repeat", "2", "--out", str(tmp_path)]
    result = bench(fake_builder, monkeypatch, str(SPEC), *args)
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "results.json").read_text())
    assert all(run["latency_histogram_us"] for run in doc["runs"])
    (summary,) = doc["summary"]
    assert summary["latency_merged"] is True
    assert "Latency (p50/p99): all frames of every repeat." in (tmp_path / "summary.md").read_text()
    latency = summary["latency_ms"]
    assert latency["p99"] > 1.5 * latency["p50"]  # 2 % of the frames are slow (at 1.6 x p50)
