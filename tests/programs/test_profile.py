"""--profile DIR (issue 31 item 6): a generated program, frame program or server, profiles its run
through AscendCL's profiling API; on the simulator that writes DIR/trace.json (Chrome / Perfetto)
with a range for every stage of the spec, and DIR/summary.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from program_harness import built, run_program

from ascgen.pipeline import analyze_file

pytestmark = pytest.mark.slow  # builds and runs programs

SPECS = [Path("pipelines/resnet50_b16.yaml"), Path("pipelines/serving/resnet50_batched.yaml")]


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_a_profile_holds_a_range_for_every_stage(spec: Path, tmp_path: Path) -> None:
    result = built(spec)
    folder = tmp_path / "profiles" / "run1"  # made by the program, parents included
    run = run_program(result.binary, "--duration", "0.6", "--warmup", "0.2", "--profile", str(folder), cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    trace = json.loads((folder / "trace.json").read_text())
    events = trace["traceEvents"]
    ranges = [e for e in events if e.get("pid") == 3 and e.get("ph") == "X"]
    stages = {s.name for s in analyze_file(spec)[1].stages}
    assert stages <= {name for r in ranges for name in r["name"].split("+")}
    assert all(r["dur"] > 0 and r["ts"] >= 0 for r in ranges)
    # the device's own tracks: each stream's tasks and each engine's, in the same period
    start, stop = min(r["ts"] for r in ranges), max(r["ts"] + r["dur"] for r in ranges)
    tasks = [e for e in events if e.get("pid") in (1, 2) and e.get("ph") == "X"]
    assert tasks and all(start - 1e6 < t["ts"] < stop + 1e6 for t in tasks)
    named = {e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    assert named == {"streams", "engines", "host threads (msproftx ranges)"}
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["trace"] == "trace.json" and summary["stop_us"] > summary["start_us"]
    counted = {name for key in summary["ranges"] for name in key.split("+")}
    assert counted == stages and all(v["count"] > 0 for v in summary["ranges"].values())
    assert any(v["busy_us"] > 0 for v in summary["engines"].values())


def test_without_the_flag_nothing_is_profiled(tmp_path: Path) -> None:
    result = built(SPECS[0])
    run = run_program(result.binary, "--duration", "0.3", "--warmup", "0.1", cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert not list(tmp_path.rglob("trace.json"))


def test_a_profile_folder_that_cannot_be_made_fails_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    result = built(SPECS[0])
    run = run_program(result.binary, "--duration", "0.3", "--profile", str(tmp_path / "file" / "p"), cwd=tmp_path)
    assert run.returncode == 3
    assert f"--profile: cannot create {tmp_path / 'file' / 'p'}: Not a directory" in run.stderr
    assert "Traceback" not in run.stderr and run.stderr.count("\n") <= 2


def test_bench_profiles_each_run_and_names_the_trace(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ascgen.cli import cli

    built(SPECS[0])  # the bench finds it in the suite's build cache
    args = ["bench", str(SPECS[0]), "--duration", "0.3", "--warmup", "0.1", "--repeat", "2"]
    result = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "out"), "--profile", str(tmp_path / "prof")])
    assert result.exit_code == 0, result.output
    traces = sorted((tmp_path / "prof").glob("*/trace.json"))
    assert len(traces) == 2  # one folder per run, named as its raw/ JSON
    assert {t.parent.name for t in traces} == {p.stem for p in (tmp_path / "out" / "raw").glob("*.json")}
    assert f"profile: {traces[0]} (and 1 more, one per run); open it at https://ui.perfetto.dev" in result.output


def test_several_devices_profile_into_a_folder_each_and_threads_are_refused(tmp_path: Path) -> None:
    """Profiling is process-wide: devices run as processes profile into DIR/device<N>/; as
    threads of one process the flag is refused up front (exit 2, one line)."""
    result = built(Path("pipelines/resnet50_atlas800.yaml"))
    args = ("--duration", "0.4", "--warmup", "0.1", "--devices", "0,1")
    run = run_program(result.binary, *args, "--deploy", "processes", "--profile", str(tmp_path / "p"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    for device in (0, 1):
        assert json.loads((tmp_path / "p" / f"device{device}" / "trace.json").read_text())["traceEvents"]
    run = run_program(result.binary, *args, "--deploy", "threads", "--profile", str(tmp_path / "t"), cwd=tmp_path)
    assert run.returncode == 2
    assert (
        run.stderr
        == "resnet50_atlas800: --profile profiles one device per process: use --deploy processes (see --help)\n"
    )
    assert not (tmp_path / "t").exists()
