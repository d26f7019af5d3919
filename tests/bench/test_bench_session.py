"""A whole bench with the fake program: builds per variant, runs, records, outputs."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from bench_helpers import SPEC, FakeBuilder

from ascgen.bench import environment, session
from ascgen.bench.command import write_outputs
from ascgen.bench.points import configurations, parse_sweep
from ascgen.bench.roofline import Planner, PointDoesNotFit
from ascgen.bench.runner import RunOptions
from ascgen.bench.schema import Config, load_results

OPTIONS = RunOptions(duration_s=6, warmup_s=1)


class Recorder(session.QuietMonitor):
    def __init__(self) -> None:
        self.events: list[str] = []
        self.qps_seen = 0

    def planned(self, runs: int) -> None:
        self.events.append(f"planned {runs}")

    def builds_planned(self, seconds: float) -> None:
        self.events.append(f"builds {seconds:g} s")

    def building(self, variant: str) -> None:
        self.events.append(f"building {variant}")

    def run_started(self, config: Config, repeat: int, repeats: int) -> None:
        self.events.append(f"run t{config.threads} {config.streams} {repeat}/{repeats}")

    def progress(self, progress: object) -> None:
        self.qps_seen += 1


def test_the_build_estimate_covers_each_program_once_before_the_runs_are_planned(
    fake_builder: FakeBuilder, tmp_path: Path
) -> None:
    """The bench's ETA includes the builds: before anything is built, the estimate hears each
    program the sweep builds once (threads are a run-time flag), then the runs are planned."""
    request = session.Request(
        spec_path=SPEC, out_dir=tmp_path / "out", options=OPTIONS, repeat=1,
        sweeps=[parse_sweep("threads=1,2"), parse_sweep("streams=per_stage,per_thread")],
    )  # fmt: skip
    asked: list[list[str]] = []

    def estimate(programs: list[tuple[object, object]]) -> float:
        asked.append([spec.streams for spec, _ in programs])  # type: ignore[attr-defined]
        return 12.5 * len(programs)

    monitor = Recorder()
    session.run_bench(request, fake_builder, monitor, build_estimate=estimate)
    assert asked == [["per_stage", "per_thread"]]
    assert monitor.events[:3] == ["builds 25 s", "planned 4", monitor.events[2]]
    assert monitor.events[2].startswith("building")


def test_sweep_builds_each_variant_once_and_runs_every_point(fake_builder: FakeBuilder, tmp_path: Path) -> None:
    request = session.Request(
        spec_path=SPEC,
        out_dir=tmp_path / "out",
        options=OPTIONS,
        repeat=2,
        sweeps=[parse_sweep("threads=1,2"), parse_sweep("streams=per_stage,per_thread")],
    )
    monitor = Recorder()
    results = session.run_bench(request, fake_builder, monitor)

    assert fake_builder.calls == [
        {"batch": 16, "streams": "per_stage", "sync_every": None},
        {"batch": 16, "streams": "per_thread", "sync_every": 64},
    ]
    assert monitor.events[0] == "planned 8"
    # repeats are interleaved: every point once, then every point again
    runs = [e for e in monitor.events if e.startswith("run")]
    assert runs[:4] == [
        "run t1 per_stage 1/2",
        "run t1 per_thread 1/2",
        "run t2 per_stage 1/2",
        "run t2 per_thread 1/2",
    ]
    assert runs[4:] == [r.replace("1/2", "2/2") for r in runs[:4]]
    assert monitor.qps_seen == 8 * 7  # one progress line per second, warm-up included

    assert len(results.runs) == 8 and len(results.summary) == 4
    assert results.swept == ["threads", "streams"]
    planner = Planner(SPEC)
    for run in results.runs:
        plan = planner.plan(Config.model_validate(run.model_dump(include=set(Config.model_fields))))
        assert run.roofline_qps == plan.roofline_qps
        assert run.efficiency == pytest.approx(run.qps / plan.roofline_qps)
        assert run.host_cpu_s_per_1000_frames == pytest.approx(0.05 * 6 * 1000 / run.frames)
        assert (tmp_path / "out" / run.raw).exists()
    one = results.summary[0]
    assert (one.threads, one.streams, one.repeats) == (1, "per_stage", 2)
    assert one.qps_min <= one.qps_median <= one.qps_max
    ctx = results.context
    assert ctx.backend == "simulator" and ctx.profile == "ascend310" and ctx.repeat == 2
    assert len(ctx.spec_sha256) == 64 and ctx.started_at.endswith("+00:00")


def test_outputs_are_written_and_readable(
    fake_builder: FakeBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clean = environment.Machine("host", "cpu", 2, governor="performance", numa_balancing=0)
    monkeypatch.setattr(environment, "machine", lambda: clean)
    short = RunOptions(duration_s=3, warmup_s=0)
    request = session.Request(
        spec_path=SPEC, out_dir=tmp_path, options=short, repeat=1, sweeps=[parse_sweep("depth=2,8")]
    )
    results = session.run_bench(request, fake_builder)
    (warning,) = results.warnings
    assert warning.startswith("runs are too short to trust: threads=2 depth=2")
    names = ["results.json", "runs.csv", "summary.md", "report.html", "qps.png", "latency.png", "p99_vs_qps.png"]
    assert write_outputs(results, tmp_path, tmp_path / "copy.json", Planner(SPEC)) == names
    page = (tmp_path / "report.html").read_text()
    assert "In 2 measurements across 2 configurations, threads=2 depth=8 " in page  # the spec's depth is 4
    assert "Per-stage latency breakdown" in page and "Memory plan" in page
    assert load_results(tmp_path / "results.json") == results
    assert json.loads((tmp_path / "copy.json").read_text()) == json.loads((tmp_path / "results.json").read_text())
    rows = list(csv.DictReader((tmp_path / "runs.csv").open()))
    assert [r["depth"] for r in rows] == ["2", "8"]
    assert rows[0]["sync_every"] == "" and float(rows[0]["p99_ms"]) > 0
    md = (tmp_path / "summary.md").read_text()
    assert md.startswith("### ascgen bench: `")
    assert "| streams | batch | threads | depth | QPS | min-max |" in md
    assert "Best: threads=2 depth=8" in md
    assert f"**Warnings** (treat these numbers with care):\n- {warning}" in md


def test_a_point_that_does_not_fit_fails_before_any_build(fake_builder: FakeBuilder, tmp_path: Path) -> None:
    request = session.Request(
        spec_path=SPEC, out_dir=tmp_path, options=OPTIONS, repeat=1, sweeps=[parse_sweep("depth=4,256")], fixed={}
    )
    with pytest.raises(
        PointDoesNotFit, match=r"^threads=2 depth=256 batch=16 streams=per_stage: .* exceed the device.s 1023"
    ):
        session.run_bench(request, fake_builder)
    assert fake_builder.calls == []


def test_a_failing_run_names_the_point_and_the_program_s_last_line(fake_builder: FakeBuilder, tmp_path: Path) -> None:
    fake_builder.knobs = ["--fail-threads", "2"]
    request = session.Request(
        spec_path=SPEC, out_dir=tmp_path, options=OPTIONS, repeat=1, sweeps=[parse_sweep("threads=1,2")]
    )
    with pytest.raises(session.BenchFailed) as err:
        session.run_bench(request, fake_builder)
    message = str(err.value)
    assert message.startswith("run threads=2 depth=4 batch=16 streams=per_stage (repeat 1/1, after ")
    assert message.endswith("failed: exit 3, ACL error: decode: acldvppJpegDecodeAsync failed with code 100000 "
                            "(ACL_ERROR_INVALID_PARAM)")  # fmt: skip
    assert err.value.partial is not None
    assert [r.threads for r in err.value.partial.runs] == [1]


def test_a_program_that_ran_something_else_is_caught(fake_builder: FakeBuilder, tmp_path: Path) -> None:
    fake_builder.knobs = ["--batch", "8"]  # as if the binary were a stale build of another variant
    request = session.Request(spec_path=SPEC, out_dir=tmp_path, options=OPTIONS, repeat=1)
    with pytest.raises(session.BenchFailed) as err:
        session.run_bench(request, fake_builder)
    assert str(err.value) == (
        "run threads=2 depth=4 batch=16 streams=per_stage (repeat 1/1) is not what was asked: batch=8 (expected 16)"
    )


def test_results_inside_the_repository_do_not_make_its_tree_dirty(fake_builder: FakeBuilder, tmp_path: Path) -> None:
    """The commit measured is the tree as the bench began; raw/ written into tracked files
    (docs/performance/ is committed) does not turn it dirty."""
    repo = tmp_path / "repo"
    repo.mkdir()
    spec = repo / "spec.yaml"
    shutil.copy(SPEC, spec)
    out = repo / "out"
    (out / "raw").mkdir(parents=True)
    (config,) = configurations(Planner(spec).spec, [], {})
    tracked = out / "raw" / session.raw_name(config, 1)
    tracked.write_text("{}\n")

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)

    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "spec")
    request = session.Request(spec_path=spec, out_dir=out, options=OPTIONS, repeat=1)
    results = session.run_bench(request, fake_builder)
    assert tracked.read_text() != "{}\n"  # the run rewrote a tracked file
    assert results.context.git_commit and results.context.git_dirty is False
    assert environment.git_state(repo)[1] is True  # while the tree itself is now dirty


def test_each_configuration_is_planned_once_and_its_build_gets_that_plan(
    fake_builder: FakeBuilder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ascgen.bench import roofline

    planned: list[int] = []
    real = roofline.analyze_data
    monkeypatch.setattr(roofline, "analyze_data", lambda spec, smap: planned.append(spec.threads) or real(spec, smap))
    request = session.Request(
        spec_path=SPEC, out_dir=tmp_path, options=OPTIONS, repeat=1, sweeps=[parse_sweep("threads=1,2")]
    )
    planner = Planner(SPEC)
    session.run_bench(request, fake_builder, planner=planner)
    # the spec's own threads=2 is both a point and what the program is built with: planned once
    assert sorted(planned) == [1, 2]
    spec_point = Config(threads=2, depth=4, batch=16, streams="per_stage", sync_every=None)
    assert fake_builder.plans == [planner.plan(spec_point)] and fake_builder.plans[0] is planner.plan(spec_point)


def test_an_interrupted_bench_hands_back_the_runs_that_finished(fake_builder: FakeBuilder, tmp_path: Path) -> None:
    calls: list[int] = []

    def runner(*args: object) -> object:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return session.run_program(*args)  # type: ignore[arg-type]

    request = session.Request(
        spec_path=SPEC, out_dir=tmp_path, options=OPTIONS, repeat=1, sweeps=[parse_sweep("threads=1,2")]
    )
    with pytest.raises(session.BenchInterrupted, match=r"^after 1 of 2 runs$") as err:
        session.run_bench(request, fake_builder, runner=runner)  # type: ignore[arg-type]
    partial = err.value.partial
    assert partial is not None and partial.interrupted and [r.threads for r in partial.runs] == [1]
    assert err.value.exit_code == 130
