"""docs/performance.md's page and plots, from recorded results (no program runs here)."""

from __future__ import annotations

from pathlib import Path

from bench_helpers import COMPARE
from test_bench_plots import png_size, two_layouts

from ascgen.bench import study_plots, study_report
from ascgen.bench.schema import load_results
from ascgen.bench.stats import summarize

base = load_results(COMPARE / "base.json")


def b1_results() -> object:
    """base's runs relabelled as the study's batch-1 per_thread points."""
    runs = [
        r.model_copy(update={"streams": "per_thread", "sync_every": 64, "batch": 1, "threads": t, "qps": q})
        for r, (t, q) in zip(base.runs, [(1, 160.0), (2, 300.0), (4, 400.0)], strict=False)
    ]
    return base.model_copy(update={"runs": runs, "summary": summarize(runs), "swept": ["threads"]})


def test_page_has_the_reproduction_table_and_the_verdict(tmp_path: Path) -> None:
    b1, b16 = b1_results(), two_layouts()
    plots = study_plots.write(b1, b16, tmp_path)  # type: ignore[arg-type]
    assert [p.name for p in plots] == ["study_b1.png", "resnet50_b16_layouts.png"]
    assert png_size(plots[0]) == (960, 540)
    assert png_size(plots[1]) == (1320, 880)
    page = study_report.render(b1, b16, ["a.png", "b.png"])  # type: ignore[arg-type]
    assert "| 1 | 166 | 160.0 |" in page and "| 0.96 | ok |" in page
    assert "| 4 | 332 | 400.0 |" in page and "**out of range**" in page  # 400 / 332 = 1.20
    assert "per_stage / per_thread at their best: **1.25x**" in page  # two_layouts: per_thread 20 % slower
    assert "by threads: 1: 1.25x" in page
    assert "![batch-1 reproduction](a.png)" in page and "python -m ascgen.bench.study" in page
