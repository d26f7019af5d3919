"""`ascgen bench` on the real thing: build_variant generates and compiles the program against
the simulator, and the bench runs it. Slow (it builds C++); deselect with -m 'not slow'."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import pytest

from ascgen.bench import session
from ascgen.bench.command import write_outputs
from ascgen.bench.points import parse_sweep
from ascgen.bench.runner import RunOptions
from ascgen.bench.schema import load_results

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "pipelines" / "resnet50_b16.yaml"


@pytest.mark.slow
def test_bench_builds_and_runs_the_generated_program(tmp_path: Path) -> None:
    build = pytest.importorskip("ascgen.build", reason="ascgen.build (build_variant) is not in this checkout")
    for tool in ("cmake", "ninja", "c++"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    builder = functools.partial(build.build_variant, build_root=REPO / "build")
    request = session.Request(
        spec_path=SPEC,
        out_dir=tmp_path,
        options=RunOptions(duration_s=2, warmup_s=0.5),
        repeat=1,
        sweeps=[parse_sweep("threads=1,2")],
    )
    results = session.run_bench(request, builder)

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
    write_outputs(results, tmp_path, None)
    assert load_results(tmp_path / "results.json") == results
