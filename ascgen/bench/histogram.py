"""Latency histograms across runs, so a configuration's p99 is the p99 of all its frames rather
than the median of each run's p99.

A program exports its histogram as ``latency_histogram_us``: ``[[upper_bound_us, count], ...]``,
one pair per non-empty bucket of its log-linear histogram (templates/runtime/ascgen_metrics.h,
LatencyHistogram). Runs of one program share its buckets, so merging adds counts by bound.
Percentiles are read as the program reads its own: the bucket of the rank-th frame, here at
its upper bound (at most 1.6 % high), never above the largest latency seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Histogram = Sequence[tuple[float, int]]  # (upper bound in microseconds, frames), bounds ascending


def merge(histograms: Iterable[Histogram]) -> list[tuple[float, int]]:
    counts: dict[float, int] = {}
    for histogram in histograms:
        for bound, count in histogram:
            counts[bound] = counts.get(bound, 0) + count
    return sorted((bound, count) for bound, count in counts.items() if count > 0)


def percentile_ms(histogram: Histogram, p: float, max_ms: float) -> float:
    """The ``p``-th percentile (0..100) of the frames counted, in milliseconds."""
    total = sum(count for _, count in histogram)
    if total == 0:
        return 0.0
    rank = int(p / 100.0 * (total - 1)) + 1
    seen = 0
    for bound, count in histogram:
        seen += count
        if seen >= rank:
            return min(bound / 1000.0, max_ms)
    return max_ms
