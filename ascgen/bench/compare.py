"""Two results files, configuration by configuration: the QPS ratio and the p99 latency ratio,
each with a verdict against a noise-aware threshold, max(floor, 3 x the pooled coefficient of
variation). The floor is 5 % for QPS and 10 % for p99 unless given. The QPS noise of one side
is the CV across its repeats, or with a single repeat the CV of its one-second windows divided
by sqrt(windows) (the noise of their mean); the p99 noise is the CV of the runs' p99s.

Before comparing, the two files are checked to be comparable: both hold runs and a summary,
and they measure the same spec (same file name or same contents). Configurations match when
every key of the configuration is equal (ascgen.bench.schema.Config: the build variant, the
devices and deployment, and a server's load), and a gate asks that a share of the baseline's
configurations matched (``too_few_matched``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Literal

from ascgen.bench.schema import BadResults, BenchResults, Config, RunRecord, Summary
from ascgen.bench.stats import config_of, cv

MIN_THRESHOLD = 0.05
MIN_P99_THRESHOLD = 0.10
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
    p99_ratio: float = 1.0  # new / old p99 latency (> 1: slower)
    p99_threshold: float = MIN_P99_THRESHOLD
    p99_verdict: Verdict = "within noise"

    @property
    def regressed(self) -> bool:
        return self.verdict == "slower" or self.p99_verdict == "slower"


@dataclass(frozen=True)
class Comparison:
    rows: list[Row]
    only_old: list[Config]  # measured before, missing now
    only_new: list[Config]
    context_changes: list[str]

    @property
    def matched(self) -> float:
        """The share of the baseline's (OLD's) configurations that NEW measured too."""
        baseline = len(self.rows) + len(self.only_old)
        return len(self.rows) / baseline if baseline else 0.0

    @property
    def slower(self) -> list[Row]:
        """Rows whose QPS or p99 latency got worse beyond the noise."""
        return [r for r in self.rows if r.regressed]


def noise(summary: Summary, runs: Sequence[RunRecord]) -> float:
    if summary.qps_cv is not None:
        return summary.qps_cv
    mine = [r for r in runs if config_of(r) == config_of(summary) and r.window_cv is not None and r.windows_qps]
    if not mine:
        return 0.0
    return max((r.window_cv or 0.0) / math.sqrt(len(r.windows_qps)) for r in mine)


def p99_noise(summary: Summary, runs: Sequence[RunRecord]) -> float:
    """The CV of the p99 latency across this configuration's runs (0 with one run)."""
    return cv([r.latency_ms.p99 for r in runs if config_of(r) == config_of(summary)]) or 0.0


def threshold(old_noise: float, new_noise: float, floor: float = MIN_THRESHOLD) -> float:
    pooled = math.sqrt((old_noise**2 + new_noise**2) / 2)
    return max(floor, NOISE_FACTOR * pooled)


def verdict(ratio: float, limit: float) -> Verdict:
    if ratio > 1 + limit:
        return "faster"
    if ratio < 1 - limit:
        return "slower"
    return "within noise"


def latency_verdict(ratio: float, limit: float) -> Verdict:
    """For a latency ratio new / old, where higher is slower."""
    if ratio > 1 + limit:
        return "slower"
    if ratio < 1 - limit:
        return "faster"
    return "within noise"


def context_changes(old: BenchResults, new: BenchResults) -> list[str]:
    out = []
    for key in CONTEXT_KEYS:
        a, b = getattr(old.context, key), getattr(new.context, key)
        if a != b:
            out.append(f"{key}: {a} -> {b}")
    return out


def check_comparable(old: BenchResults, new: BenchResults, old_name: str, new_name: str, *, other_spec: bool) -> None:
    """A BadResults (exit 2, one line) when the two files cannot be compared meaningfully."""
    for results, name in ((old, old_name), (new, new_name)):
        if not results.runs or not results.summary:
            raise BadResults(f"{name}: holds no runs; bench again and compare a file with measurements")
        run_configs = {config_of(r) for r in results.runs}
        for s in results.summary:
            if config_of(s) not in run_configs:
                raise BadResults(f"{name}: the summary of {s.label()} has no run behind it; the file was edited")
    a, b = old.context, new.context
    same = PurePath(a.spec).name == PurePath(b.spec).name or a.spec_sha256 == b.spec_sha256
    if not same and not other_spec:
        raise BadResults(
            f"{new_name} measures {b.spec}, {old_name} measures {a.spec}: another spec; "
            "pass --other-spec to compare them anyway"
        )


def _measured(results: BenchResults) -> str:
    more = len(results.summary) - 1
    return results.summary[0].label() + (f" and {more} more" if more else "")


def nothing_compared(old: BenchResults, new: BenchResults, old_name: str, new_name: str) -> str:
    """Why a comparison found no configuration in both files (a gate that compares nothing fails)."""
    return (
        f"nothing compared: no configuration of {old_name} ({_measured(old)}) was measured in {new_name} "
        f"({_measured(new)}); bench the same configurations and load"
    )


def too_few_matched(comparison: Comparison, minimum: float, old_name: str, new_name: str) -> str | None:
    """Why the comparison fails a gate that wants ``minimum`` (0..1) of OLD's configurations
    matched in NEW, or None when enough were."""
    if comparison.matched >= minimum - 1e-12:
        return None
    baseline = len(comparison.rows) + len(comparison.only_old)
    return (
        f"{len(comparison.rows)} of {old_name}'s {baseline} configurations matched in {new_name} "
        f"({comparison.matched:.0%}), --min-matched asks {minimum:.0%}; bench the missing ones or lower --min-matched"
    )


def _ratio(new: float, old: float) -> float:
    if old > 0:
        return new / old
    return 1.0 if new == 0 else math.inf


def compare(
    old: BenchResults,
    new: BenchResults,
    *,
    min_threshold: float = MIN_THRESHOLD,
    p99_threshold: float = MIN_P99_THRESHOLD,
) -> Comparison:
    olds = {config_of(s): s for s in old.summary}
    news = {config_of(s): s for s in new.summary}
    rows = []
    for config, a in olds.items():
        b = news.get(config)
        if b is None:
            continue
        ratio = _ratio(b.qps_median, a.qps_median)
        limit = threshold(noise(a, old.runs), noise(b, new.runs), min_threshold)
        p99_ratio = _ratio(b.latency_ms.p99, a.latency_ms.p99)
        p99_limit = threshold(p99_noise(a, old.runs), p99_noise(b, new.runs), p99_threshold)
        qps_verdict = verdict(ratio, limit)
        p99_verdict = latency_verdict(p99_ratio, p99_limit)
        rows.append(Row(config, a, b, ratio, limit, qps_verdict, p99_ratio, p99_limit, p99_verdict))
    return Comparison(
        rows=rows,
        only_old=[c for c in olds if c not in news],
        only_new=[c for c in news if c not in olds],
        context_changes=context_changes(old, new),
    )
