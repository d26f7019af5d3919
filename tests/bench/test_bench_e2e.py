"""`ascgen bench` on the real thing: build_variant generates and compiles the program against
the simulator, and the bench runs it. Slow (it builds C++); deselect with -m 'not slow'."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from build_dirs import TEST_BUILD
from click.testing import CliRunner

from ascgen.bench import session
from ascgen.bench.command import write_outputs
from ascgen.bench.points import parse_sweep
from ascgen.bench.runner import RunOptions
from ascgen.bench.schema import BenchResults, load_results
from ascgen.cli import cli
from ascgen.codegen import build

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "pipelines" / "resnet50_b16.yaml"


def bench(out_dir: Path, threads: str) -> BenchResults:
    builder = functools.partial(build.build_program, build_root=TEST_BUILD)
    request = session.Request(
        spec_path=SPEC,
        out_dir=out_dir,
        options=RunOptions(duration_s=2, warmup_s=0.5),
        repeat=1,
        sweeps=[parse_sweep(f"threads={threads}")],
    )
    results = session.run_bench(request, builder)
    write_outputs(results, out_dir, None)
    return results


@pytest.mark.slow
def test_bench_builds_and_runs_the_generated_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    results = bench(tmp_path / "base", "1,2")

    assert results.context.backend == "simulator"
    assert [r.threads for r in results.runs] == [1, 2]
    for run in results.runs:
        assert run.frames > 0 and run.qps > 0
        assert 0.05 < run.efficiency < 1.2, f"{run.label()}: {run.qps} QPS against a roofline of {run.roofline_qps}"
        assert run.latency_ms.p50 <= run.latency_ms.p90 <= run.latency_ms.p99 <= run.latency_ms.max
        assert run.windows_qps, "the program reports one QPS value per second"
        # batch 16: the model runs once per 16 uploaded frames
        assert run.stages["infer"] * 16 == pytest.approx(run.stages["upload"], abs=16 * run.threads * 8)
        assert run.device_memory_bytes > 0
    assert any("too short" in w for w in results.warnings)  # 2 s runs are flagged
    for name in ("results.json", "runs.csv", "summary.md", "qps.png", "latency.png", "p99_vs_qps.png"):
        assert (tmp_path / "base" / name).stat().st_size > 0, name
    assert load_results(tmp_path / "base" / "results.json") == results

    # A deliberately slowed device (every engine 1.6x slower) is flagged by compare, exit 1.
    monkeypatch.setenv("ACL_SIM_TIME_SCALE", "1.6")
    slowed = bench(tmp_path / "slowed", "2")
    assert slowed.runs[0].qps < 0.8 * results.runs[1].qps
    compared = CliRunner().invoke(
        cli, ["compare", str(tmp_path / "base" / "results.json"), str(tmp_path / "slowed" / "results.json")]
    )
    assert compared.exit_code == 1, compared.output
    assert "1 slower" in compared.output
    assert "threads=1" in compared.output  # present in the old results only


@pytest.mark.slow
def test_a_server_rate_sweep_shows_its_drops_and_names_a_point_that_kept_up_best(tmp_path: Path) -> None:
    """The generated batched ResNet-50 server on the simulator (3x slower than the host): at
    2,000 requests/s, far above what the plan completes (735), its queue of 256 fills and
    refuses requests; that point is not best, 100 requests/s is, and the table shows the drops."""
    from ascgen.bench import report

    builder = functools.partial(build.build_program, build_root=TEST_BUILD)
    request = session.Request(
        spec_path=REPO / "pipelines" / "serving" / "resnet50_batched.yaml",
        out_dir=tmp_path,
        options=RunOptions(duration_s=1.5, warmup_s=0.5),
        repeat=1,
        sweeps=[parse_sweep("rate=100,2000")],
        fixed={"time_scale": 3.0},
    )
    results = session.run_bench(request, builder)
    low, high = results.summary
    assert low.serving is not None and high.serving is not None
    assert low.serving.rejected == 0 and high.serving.rejected > 0
    assert low.serving.offered_rps == pytest.approx(100, rel=0.15)
    assert 1 <= low.serving.mean_batch <= high.serving.mean_batch <= 16
    assert high.serving.queue_p50_ms <= high.serving.queue_p99_ms
    assert low.serving.predicted_rps == pytest.approx(100, rel=0.05)
    assert high.serving.predicted_rejected is not None and high.serving.predicted_rejected > 0.3
    assert report.best(results.summary, results.slo_misses) == low
    assert f"{high.serving.rejected:,} of {high.serving.submitted:,}" in report.rows(results.summary)[1]
