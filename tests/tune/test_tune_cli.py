"""`ascgen tune` end to end with the bench tests' fake program: files, exit codes, messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bench_helpers import SPEC, FakeBuilder
from click.testing import CliRunner, Result

from ascgen.cli import cli
from ascgen.dsl.parse import parse_file
from ascgen.tune import command

FAST = ["--duration", "1", "--warmup", "0", "--budget", "5m"]
SPACE = ["--space", "threads=1,2,4,8,depth=2,4,8"]


def tune(builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *args: str) -> Result:
    monkeypatch.setattr(command, "default_builder", builder)
    monkeypatch.setenv("COLUMNS", "200")
    out = ["--out", str(tmp_path / "out"), "--write-spec", str(tmp_path / "tuned.yaml")]
    return CliRunner().invoke(cli, ["tune", str(SPEC), *FAST, *out, *args])


def test_tune_writes_the_report_and_the_winning_spec(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    result = tune(fake_builder, monkeypatch, tmp_path, *SPACE)
    assert result.exit_code == 0, result.output
    out = tmp_path / "out"
    written = {p.name for p in out.iterdir()}
    assert {"summary.md", "report.html", "tune.json", "pareto.png", "results.json", "runs.csv"} <= written
    assert "measurements across" in (out / "report.html").read_text()
    doc = json.loads((out / "tune.json").read_text())
    assert doc["steps"][0]["why"] == "planner's best guess"
    # the fake program's QPS plateaus at its ceiling, near the planner's roofline, with random
    # noise: how many neighbours the climb measures varies, but never the whole grid
    assert doc["measured"] < 12 and doc["winner"] is not None
    assert "winner: threads=" in result.stdout
    summary = (out / "summary.md").read_text()
    assert "**Winner:**" in summary and "![Pareto front](pareto.png)" in summary and "#### Trace" in summary
    tuned = (tmp_path / "tuned.yaml").read_text()
    assert "# ascgen tune: " in tuned and "# The bench tests' spec" in tuned
    spec, _ = parse_file(tmp_path / "tuned.yaml")
    assert spec.threads == doc["winner"]["config"]["threads"]
    assert spec.buffers.depth == doc["winner"]["config"]["depth"]


def test_the_winning_spec_goes_beside_the_spec_only_with_write_and_over_a_file_only_with_force(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(command, "default_builder", fake_builder)
    monkeypatch.setenv("COLUMNS", "200")
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC.read_text())
    beside = tmp_path / "spec.tuned.yaml"
    args = ["tune", str(spec), *FAST, *SPACE, "--max-runs", "2"]

    def run(out: str, *extra: str) -> Result:
        return CliRunner().invoke(cli, [*args, "--out", str(tmp_path / out), *extra])

    plain = run("a")
    assert plain.exit_code == 0, plain.output
    assert not beside.exists()  # only in the report folder
    assert "# ascgen tune: " in (tmp_path / "a" / "spec.tuned.yaml").read_text()
    assert run("b", "--write").exit_code == 0 and "# ascgen tune: " in beside.read_text()
    beside.write_text("# mine\n")
    refused = run("c", "--write")
    assert refused.exit_code == 2
    assert f"ascgen: error: {beside} exists: add --force to overwrite it" in refused.stderr
    assert beside.read_text() == "# mine\n"
    forced = run("d", "--write", "--force")
    assert forced.exit_code == 0 and f"wrote the winning spec to {beside}" in forced.stdout
    assert "# ascgen tune: " in beside.read_text()


def test_no_point_meeting_the_slo_exits_1_with_the_closest(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    result = tune(fake_builder, monkeypatch, tmp_path, *SPACE, "--slo", "p99_ms=0.001", "--max-runs", "2")
    assert result.exit_code == 1, result.output
    assert "no measured point meets the SLO (p99 <= 0.001 ms); the closest: threads=" in result.stderr
    assert not (tmp_path / "tuned.yaml").exists()
    assert "No measured point meets the SLO" in (tmp_path / "out" / "summary.md").read_text()


def test_a_time_scale_slows_every_run_and_the_tune_decides_in_the_device_s_time(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """--time-scale 4: every run sees ACL_SIM_TIME_SCALE=4 and reports host-time figures (the
    fake: QPS / 4, as a simulated run does); the tune's figures are the device's again, so it
    screens the planner's rooflines against them as on the real clock: the same steps, skips,
    figures and winner, and the report says the scale."""
    fake_builder.knobs = ["--noise", "0"]
    docs = []
    for where, extra in (("plain", ()), ("slowed", ("--time-scale", "4"))):
        result = tune(fake_builder, monkeypatch, tmp_path / where, *SPACE, *extra)
        assert result.exit_code == 0, result.output
        docs.append(json.loads((tmp_path / where / "out" / "tune.json").read_text()))
    plain, slowed = docs

    def steps(doc: dict[str, Any]) -> list[tuple[object, ...]]:
        keys = ("action", "detail", "roofline_qps", "qps")
        return [(*(s[k] for k in keys), {**s["config"], "time_scale": None}) for s in doc["steps"]]

    assert any(s["action"] == "skipped" for s in plain["steps"]) and steps(slowed) == steps(plain)
    for a, b in zip(plain["steps"], slowed["steps"], strict=True):  # the fake rounds its host-time ms
        assert b["p99_ms"] == (pytest.approx(a["p99_ms"], abs=0.01) if a["p99_ms"] is not None else None)
    assert {s["config"]["time_scale"] for s in slowed["steps"]} == {4.0}
    assert slowed["winner"]["qps"] == plain["winner"]["qps"]
    out = tmp_path / "slowed" / "out"
    raw = json.loads(next((out / "raw").iterdir()).read_text())  # what the program reported: host time
    runs = json.loads((out / "results.json").read_text())["runs"]
    assert raw["qps"] * 4 in {r["qps"] for r in runs} and {r["time_scale"] for r in runs} == {4.0}
    assert slowed["settings"]["time_scale"] == 4.0
    assert "the simulated device 4x slower than the host" in (out / "summary.md").read_text()


def test_a_time_scale_is_for_the_simulator(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    result = tune(fake_builder, monkeypatch, tmp_path, "--time-scale", "4", "--backend", "cann")
    assert result.exit_code == 2, result.output
    assert "--time-scale slows the simulator's clock: use it with --backend sim" in result.output
    assert not fake_builder.calls


def test_ctrl_c_writes_what_was_measured_and_exits_130(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake_builder.knobs = ["--interrupt-parent-threads", "4"]  # at t=2 s of a run of 4 threads
    result = tune(fake_builder, monkeypatch, tmp_path, *SPACE, "--duration", "3")
    assert result.exit_code == 130, result.output
    assert "ascgen: interrupted: after" in result.stderr
    doc = json.loads((tmp_path / "out" / "tune.json").read_text())
    assert doc["interrupted"] is True and doc["measured"] >= 1
    assert not (tmp_path / "tuned.yaml").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--space", "thread=1..4"], "ascgen: error: 'thread' cannot be tuned (did you mean 'threads'?); use threads"),
        (["--space", "threads=1..4,dept=2..8"], "ascgen: error: 'dept' cannot be tuned (did you mean 'depth'?); use "),
        (["--budget", "ten minutes"], "ascgen: error: --budget ten minutes: expected a duration such as 20m"),
        (["--slo", "p99=5"], "ascgen: error: --slo 'p99=5': expected p99_ms=MS or min_qps=QPS"),
        (["--space", "threads=64,depth=256"], "ascgen: error: no point of the space fits (e.g. "),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    fake_builder: FakeBuilder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, args: list[str], message: str
) -> None:
    result = tune(fake_builder, monkeypatch, tmp_path, *args)
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("ascgen:")]
    assert len(errors) == 1 and errors[0].startswith(message), result.stderr
