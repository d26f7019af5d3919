"""The example pipelines that together exercise every call site class (``REPRESENTATIVE``; all of
them with ASCGEN_ALL_SPECS=1), built with ASan+UBSan and with TSan, run clean with --verify (a
pipeline over several devices on two of them, one process each). A graph's baseline layout
(BASELINE_GRAPH: per_thread) is a shape no example spec has: its spec configured so."""

from __future__ import annotations

from pathlib import Path

import pytest
from program_harness import BASELINE_GRAPH, REPRESENTATIVE, built, first_devices, run_program

SANITIZER_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0:exitcode=86",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1:exitcode=87",
    "TSAN_OPTIONS": "halt_on_error=1:exitcode=88:second_deadlock_stack=1",
}


@pytest.mark.slow
@pytest.mark.parametrize("sanitize", ["address", "thread"])
@pytest.mark.parametrize(
    ("spec", "overrides"),
    [pytest.param(spec, None, id=spec.stem) for spec in REPRESENTATIVE]
    + [pytest.param(*BASELINE_GRAPH, id=f"{BASELINE_GRAPH[0].stem}-per_thread")],
)
def test_pipeline_is_clean_under_sanitizer(
    spec: Path, overrides: dict[str, object] | None, sanitize: str, tmp_path: Path
) -> None:
    result = built(spec, sanitize, overrides)
    frames = 8 * result.plan.batch
    run = run_program(
        result.binary,
        "--threads",
        "2",
        "--depth",
        str(result.plan.batch + 1 if result.plan.object_stages else 3),  # a graph: its batch + 1
        "--warmup",
        "0",
        "--frames",
        str(frames),
        "--verify",
        *first_devices(result, 2),  # several devices: two processes show the parent's work
        cwd=tmp_path,
        env=SANITIZER_ENV,
        timeout=600,
    )
    assert run.returncode == 0, f"exit {run.returncode}\n{run.stderr[-6000:]}"
    assert "Sanitizer" not in run.stderr, run.stderr[-6000:]
    assert run.report is not None and run.report["frames"] >= frames
