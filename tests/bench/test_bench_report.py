"""The terminal table: every column when there is room, the optional ones dropped when not."""

from __future__ import annotations

import io

from bench_helpers import COMPARE
from rich.console import Console

from ascgen.bench import report
from ascgen.bench.schema import load_results

base = load_results(COMPARE / "base.json")


def printed(width: int) -> str:
    console = Console(file=io.StringIO(), width=width, highlight=False)
    report.print_results(base, console)
    return console.file.getvalue()  # type: ignore[attr-defined,no-any-return]


def test_a_wide_terminal_shows_every_column() -> None:
    text = printed(200)
    for name in report.columns(base.summary):
        assert name in text
    assert "too narrow" not in text
    assert "best: threads=4 depth=8 batch=16 streams=per_stage: 700.0 QPS, 95% of the roofline" in text


def test_a_narrow_terminal_drops_optional_columns_and_says_so() -> None:
    text = printed(80)
    assert "(too narrow for dev MiB, CPU s/1k fr, min-max: see summary.md)" in text
    assert "every row: streams per_stage, batch 16, depth 8" in text  # constant columns go before results
    assert "…" not in text  # nothing truncated: whole columns go instead
    assert all(len(line) <= 80 for line in text.splitlines())
    assert "700.0" in text and "95%" in text and "aicore (infer)" in text


def test_best_is_the_cheapest_configuration_tied_with_the_top() -> None:
    top = max(base.summary, key=lambda s: s.qps_median)
    tied = top.model_copy(update={"threads": top.threads + 4, "qps_median": top.qps_median * 1.005})
    faster = top.model_copy(update={"threads": top.threads + 4, "qps_median": top.qps_median * 1.02})
    assert report.best([*base.summary, tied]) == top  # 0.5 % more QPS for 4 more threads: not worth it
    assert report.best([*base.summary, faster]) == faster  # 2 % more is
    assert report.best([]) is None
