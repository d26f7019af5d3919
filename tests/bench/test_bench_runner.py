"""One run of a program: command line, live progress, JSON, and failures in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_helpers import SPEC, FakeBuilder

from ascgen.bench import runner
from ascgen.bench.roofline import Planner
from ascgen.bench.runner import Progress, RunFailed, RunOptions, parse_progress, run_program
from ascgen.bench.schema import Config

CONFIG = Config(threads=2, depth=4, batch=16, streams="per_stage", sync_every=None)
OPTIONS = RunOptions(duration_s=3, warmup_s=1)


def _binary(fake_builder: FakeBuilder, *knobs: str) -> Path:
    fake_builder.knobs = list(knobs)
    spec, plan = Planner(SPEC).configured(CONFIG)
    return fake_builder(Path("spec.yaml"), spec, plan).binary


def test_parse_progress() -> None:
    assert parse_progress("progress: t=3.0s frames=2112 qps=704.1") == Progress(3.0, 2112, 704.1)
    assert parse_progress("decode: acl error 100000") is None
    assert parse_progress("progress: t=3.0s frames=many qps=1") is None


def test_command_passes_every_flag() -> None:
    options = RunOptions(duration_s=10, warmup_s=2.5, input=Path("in.jpg"), pin="0-3")
    cmd = runner.command(Path("/bin/prog"), CONFIG, options, Path("out.json"))
    assert cmd == [
        "/bin/prog", "--threads", "2", "--depth", "4", "--duration", "10", "--warmup", "2.5",
        "--json", "out.json", "--input", "in.jpg", "--pin", "0-3",
    ]  # fmt: skip


def test_run_reads_progress_live_and_the_json(fake_builder: FakeBuilder, tmp_path: Path) -> None:
    seen: list[Progress] = []
    report = run_program(_binary(fake_builder), CONFIG, OPTIONS, tmp_path / "r.json", seen.append)
    assert [p.t for p in seen] == [1.0, 2.0, 3.0, 4.0]  # warm-up second included
    assert report.threads == 2 and report.depth == 4
    assert len(report.windows_qps) == 3
    assert (tmp_path / "r.json").exists()


def test_failure_names_exit_status_and_last_stderr_line(fake_builder: FakeBuilder, tmp_path: Path) -> None:
    binary = _binary(fake_builder, "--fail-threads", "2")
    with pytest.raises(RunFailed) as err:
        run_program(binary, CONFIG, OPTIONS, tmp_path / "r.json")
    assert str(err.value) == (
        "exit 3, ACL error: decode: acldvppJpegDecodeAsync failed with code 100000 (ACL_ERROR_INVALID_PARAM)"
    )
    assert "\n" not in str(err.value)
    assert "progress: t=2.0s" in (tmp_path / "r.stderr.txt").read_text()


def test_exit_zero_without_json_is_a_failure(fake_builder: FakeBuilder, tmp_path: Path) -> None:
    with pytest.raises(RunFailed, match=r"^exit 0 but no JSON at .*r\.json: progress: t=4\.0s"):
        run_program(_binary(fake_builder, "--no-json"), CONFIG, OPTIONS, tmp_path / "r.json")


def test_a_program_that_cannot_start(tmp_path: Path) -> None:
    with pytest.raises(RunFailed, match="cannot start"):
        run_program(tmp_path / "absent", CONFIG, OPTIONS, tmp_path / "r.json")


def test_a_hung_program_is_killed(fake_builder: FakeBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "STARTUP_GRACE_S", 0.5)
    binary = _binary(fake_builder, "--time-scale", "30")
    options = RunOptions(duration_s=0.1, warmup_s=0)
    with pytest.raises(RunFailed, match=r"^timed out after 0\.6 s: \(nothing on stderr\)"):
        run_program(binary, CONFIG, options, tmp_path / "r.json")


def test_a_program_that_hangs_after_its_json_is_named_so(
    fake_builder: FakeBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "STARTUP_GRACE_S", 0.5)
    binary = _binary(fake_builder, "--hang-at-exit")
    options = RunOptions(duration_s=0.1, warmup_s=0)
    with pytest.raises(RunFailed, match=r"^wrote its JSON but did not exit within 0\.6 s \(hung at shut-down\?\)"):
        run_program(binary, CONFIG, options, tmp_path / "r.json")
