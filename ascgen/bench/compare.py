"""Two results files, configuration by configuration: the QPS ratio and a verdict against a
noise-aware threshold, max(5 %, 3 x the pooled coefficient of variation). The noise of one
side is the CV across its repeats, or with a single repeat the CV of its one-second windows
divided by sqrt(windows) (the noise of their mean)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ascgen.bench.schema import BenchResults, Config, RunRecord, Summary
from ascgen.bench.stats import config_of

MIN_THRESHOLD = 0.05
NOISE_FACTOR = 3.0
Verdict = Literal["faster", "slower", "within noise"]
CONTEXT_KEYS = ("spec_sha256", "profile", "backend", "host", "cpu_model", "duration_s", "git_commit")


@dataclass(frozen=True)
class Row:
    config: Config
    old: Summary
    new: Summary
    ratio: float  # new / old median QPS
    threshold: float  # relative change that counts
    verdict: Verdict


@dataclass(frozen=True)
class Comparison:
    rows: list[Row]
    only_old: list[Config]  # measured before, missing now
    only_new: list[Config]
    context_changes: list[str]

    @property
    def slower(self) -> list[Row]:
        return [r for r in self.rows if r.verdict == "slower"]


def noise(summary: Summary, runs: Sequence[RunRecord]) -> float:
    if summary.qps_cv is not None:
        return summary.qps_cv
    mine = [r for r in runs if config_of(r) == config_of(summary) and r.window_cv is not None and r.windows_qps]
    if not mine:
        return 0.0
    return max((r.window_cv or 0.0) / math.sqrt(len(r.windows_qps)) for r in mine)


def threshold(old_noise: float, new_noise: float) -> float:
    pooled = math.sqrt((old_noise**2 + new_noise**2) / 2)
    return max(MIN_THRESHOLD, NOISE_FACTOR * pooled)


def verdict(ratio: float, limit: float) -> Verdict:
    if ratio > 1 + limit:
        return "faster"
    if ratio < 1 - limit:
        return "slower"
    return "within noise"


def context_changes(old: BenchResults, new: BenchResults) -> list[str]:
    out = []
    for key in CONTEXT_KEYS:
        a, b = getattr(old.context, key), getattr(new.context, key)
        if a != b:
            out.append(f"{key}: {a} -> {b}")
    return out


def compare(old: BenchResults, new: BenchResults) -> Comparison:
    olds = {config_of(s): s for s in old.summary}
    news = {config_of(s): s for s in new.summary}
    rows = []
    for config, a in olds.items():
        b = news.get(config)
        if b is None:
            continue
        ratio = b.qps_median / a.qps_median if a.qps_median > 0 else math.inf
        limit = threshold(noise(a, old.runs), noise(b, new.runs))
        rows.append(Row(config, a, b, ratio, limit, verdict(ratio, limit)))
    return Comparison(
        rows=rows,
        only_old=[c for c in olds if c not in news],
        only_new=[c for c in news if c not in olds],
        context_changes=context_changes(old, new),
    )
