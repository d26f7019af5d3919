"""Warnings about untrustworthy numbers, the machine fingerprint behind them, and SLO gates."""

from __future__ import annotations

from pathlib import Path

from bench_helpers import COMPARE

from ascgen.bench import environment, noise, slo
from ascgen.bench.schema import load_results
from ascgen.dsl.spec import Slo

base = load_results(COMPARE / "base.json")
noisy = load_results(COMPARE / "noisy.json")


def test_a_clean_machine_and_steady_runs_give_no_warning() -> None:
    assert noise.machine_warnings(base.context) == []
    assert noise.run_warnings(base.runs) == []
    assert noise.repeat_warnings(base.summary) == []


def test_governor_other_than_performance() -> None:
    ctx = base.context.model_copy(update={"governor": "powersave"})
    (warning,) = noise.machine_warnings(ctx)
    assert "governor is 'powersave'" in warning and "cpupower frequency-set -g performance" in warning


def test_unknown_governor_and_numa_say_nothing() -> None:
    ctx = base.context.model_copy(update={"governor": None, "numa_balancing": None})
    assert noise.machine_warnings(ctx) == []


def test_numa_balancing_on() -> None:
    ctx = base.context.model_copy(update={"numa_balancing": 1})
    (warning,) = noise.machine_warnings(ctx)
    assert "kernel.numa_balancing is on" in warning and "sysctl -w kernel.numa_balancing=0" in warning


def test_unstable_windows() -> None:
    runs = list(base.runs)
    runs[1] = runs[1].model_copy(update={"window_cv": 0.25})
    runs[2] = runs[2].model_copy(update={"window_cv": 0.11})
    (warning,) = noise.run_warnings(runs)
    assert warning.startswith("throughput is unstable: the coefficient of variation of the one-second windows is 25%")
    assert f"for {runs[1].label()} repeat 1 (and 1 other run)" in warning
    assert "longer --duration" in warning


def test_window_cv_at_the_limit_is_fine() -> None:
    runs = [r.model_copy(update={"window_cv": 0.10}) for r in base.runs]
    assert noise.run_warnings(runs) == []


def test_too_short_by_time_or_frames() -> None:
    short = [base.runs[0].model_copy(update={"duration_s": 4.9})]
    few = [base.runs[0].model_copy(update={"frames": 199})]
    assert "too short" in noise.run_warnings(short)[0]
    assert "measured 199 frames" in noise.run_warnings(few)[0]
    assert noise.run_warnings([base.runs[0].model_copy(update={"duration_s": 5.0, "frames": 200})]) == []


def test_repeats_that_disagree() -> None:
    (warning,) = noise.repeat_warnings(noisy.summary)
    assert warning.startswith("repeats disagree: QPS varies by 6% (CV, > 5%) across the 3 repeats of threads=4")


def test_environment_readers(tmp_path: Path) -> None:
    proc, sys_root = tmp_path / "proc", tmp_path / "sys"
    (proc / "sys" / "kernel").mkdir(parents=True)
    (proc / "sys" / "kernel" / "numa_balancing").write_text("1\n")
    (proc / "cpuinfo").write_text("processor\t: 0\nmodel name\t: Example CPU @ 3.0GHz\n")
    for cpu, gov in (("cpu0", "performance"), ("cpu1", "powersave")):
        d = sys_root / "devices" / "system" / "cpu" / cpu / "cpufreq"
        d.mkdir(parents=True)
        (d / "scaling_governor").write_text(gov + "\n")
    here = environment.machine(proc, sys_root)
    assert (here.cpu_model, here.governor, here.numa_balancing) == ("Example CPU @ 3.0GHz", "performance,powersave", 1)
    empty = tmp_path / "empty"
    assert environment.governor(empty) is None and environment.numa_balancing(empty) is None


def test_git_state_outside_git(tmp_path: Path) -> None:
    assert environment.git_state(tmp_path) == (None, None)


def test_slo_misses_name_the_point_and_the_gate() -> None:
    misses = slo.misses(base.summary, Slo(min_qps=200, max_p99_ms=58.0))
    assert [(m.config.split()[0], m.what) for m in misses] == [
        ("threads=1", "QPS 180.0 < slo.min_qps 200"),
        ("threads=4", "p99 59.4 ms > slo.max_p99_ms 58"),
    ]
    assert slo.misses(base.summary, None) == []
    assert slo.gates(Slo(min_qps=200)) == {"min_qps": 200}
