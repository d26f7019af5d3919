"""A configuration's latency is that of all its frames: the runs' histograms merged, not the
median of each run's percentiles (which hides a run with a slow tail)."""

from __future__ import annotations

import json

from bench_helpers import COMPARE

from ascgen.bench import histogram
from ascgen.bench.schema import Latency, RunRecord, load_results, parse_program_report
from ascgen.bench.stats import summarize

base = load_results(COMPARE / "base.json")

CLEAN = [(10_000.0, 100)]  # 100 frames, all within 10 ms
SLOW_TAIL = [(10_000.0, 95), (100_000.0, 5)]  # 5 % of the frames take up to 100 ms


def runs_with(histograms: list[list[tuple[float, int]] | None]) -> list[RunRecord]:
    first = base.runs[0]
    return [
        first.model_copy(
            update={
                "repeat": i + 1,
                "latency_histogram_us": h,
                "latency_ms": Latency(
                    p50=10.0, p90=10.0, p99=10.0 if h == CLEAN else 100.0, max=10.0 if h == CLEAN else 100.0
                ),
            }
        )
        for i, h in enumerate(histograms)
    ]


def test_merge_adds_counts_by_bucket() -> None:
    assert histogram.merge([CLEAN, SLOW_TAIL, []]) == [(10_000.0, 195), (100_000.0, 5)]


def test_percentiles_are_read_like_the_program_reads_them() -> None:
    assert histogram.percentile_ms(SLOW_TAIL, 50, max_ms=90.0) == 10.0
    assert histogram.percentile_ms(SLOW_TAIL, 99, max_ms=90.0) == 90.0  # never above the largest seen
    assert histogram.percentile_ms([], 99, max_ms=0.0) == 0.0


def test_the_p99_of_all_frames_shows_the_slow_run() -> None:
    (summary,) = summarize(runs_with([CLEAN, CLEAN, SLOW_TAIL]))
    assert summary.latency_merged
    # 5 of 300 frames (1.7 %) are slow: the p99 of all frames is slow; the median run's p99 is not
    assert summary.latency_ms.p99 == 100.0 and summary.latency_ms.p50 == 10.0


def test_without_histograms_the_median_of_the_runs_stays() -> None:
    (summary,) = summarize(runs_with([CLEAN, CLEAN, None]))
    assert not summary.latency_merged and summary.latency_ms.p99 == 10.0
    assert all(not s.latency_merged for s in base.summary)  # an older results file still loads


def test_a_program_report_may_carry_its_histogram() -> None:
    assert base.runs[0].latency_histogram_us is None
    text = json.dumps(
        {
            "schema_version": 1, "program": "p", "backend": "simulator", "profile": "ascend310",
            "streams": "per_stage", "threads": 1, "depth": 4, "batch": 16, "frames": 100, "duration_s": 1.0,
            "qps": 100.0, "latency_ms": {"p50": 1, "p90": 2, "p99": 3, "max": 4}, "stages": {},
            "host_cpu_s": 0.1, "device_memory_bytes": 1, "latency_histogram_us": [[1024, 60], [2048, 40]],
        }
    )  # fmt: skip
    assert parse_program_report(text, "r.json").latency_histogram_us == [(1024.0, 60), (2048.0, 40)]
