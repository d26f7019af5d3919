"""Warnings for numbers that should not be trusted, each with what to do about it (after
trtexec and google/benchmark, which say so loudly rather than print a quiet number)."""

from __future__ import annotations

from collections.abc import Sequence

from ascgen.bench.schema import Context, RunRecord, Summary

WINDOW_CV_MAX = 0.10  # one-second windows of one run
REPEAT_CV_MAX = 0.05  # medians of repeats of one configuration
MIN_DURATION_S = 5.0
MIN_FRAMES = 200


def machine_warnings(context: Context) -> list[str]:
    out = []
    if context.governor is not None and context.governor != "performance":
        out.append(
            f"CPU frequency governor is '{context.governor}', not 'performance': clocks change under load and "
            "so do the numbers; run `sudo cpupower frequency-set -g performance` before benchmarking"
        )
    if context.numa_balancing:
        out.append(
            "kernel.numa_balancing is on: page migration stalls threads (20x latency spikes were published "
            "for ResNet-152 on such a host); run `sudo sysctl -w kernel.numa_balancing=0` before benchmarking"
        )
    return out


def run_warnings(runs: Sequence[RunRecord]) -> list[str]:
    """One line per kind of problem, naming the worst run and how many runs have it."""
    out = []
    noisy = [r for r in runs if r.window_cv is not None and r.window_cv > WINDOW_CV_MAX]
    if noisy:
        worst = max(noisy, key=lambda r: r.window_cv or 0.0)
        out.append(
            f"throughput is unstable: the coefficient of variation of the one-second windows is "
            f"{worst.window_cv or 0.0:.0%} (> {WINDOW_CV_MAX:.0%}) for {worst.label()} repeat {worst.repeat}"
            f"{_others(noisy)}; stop other workloads on this host, pin threads (spec host.affinity), "
            "and use a longer --duration"
        )
    late = [r for r in runs if r.serving is not None and r.serving.late]
    if late:
        first = late[0]
        assert first.serving is not None
        out.append(
            f"the load generator fell behind: {first.label()} repeat {first.repeat} sent {first.serving.late:,} "
            f"requests late or never sent them ({first.serving.submitted:,} submitted){_others(late)}, so the load "
            "offered is below the rate asked; "
            "the host is too busy or the rate too high for it (on the simulator, raise --time-scale)"
        )
    short = [r for r in runs if r.duration_s < MIN_DURATION_S or r.frames < MIN_FRAMES]
    if short:
        first = short[0]
        out.append(
            f"runs are too short to trust: {first.label()} measured {first.frames} frames in "
            f"{first.duration_s:g} s (want >= {MIN_DURATION_S:g} s and >= {MIN_FRAMES} frames){_others(short)}; "
            "use a longer --duration"
        )
    return out


def repeat_warnings(summaries: Sequence[Summary]) -> list[str]:
    spread = [s for s in summaries if s.qps_cv is not None and s.qps_cv > REPEAT_CV_MAX]
    if not spread:
        return []
    worst = max(spread, key=lambda s: s.qps_cv or 0.0)
    return [
        f"repeats disagree: QPS varies by {worst.qps_cv or 0.0:.0%} (CV, > {REPEAT_CV_MAX:.0%}) across the "
        f"{worst.repeats} repeats of {worst.label()} ({worst.qps_min:,.1f} to {worst.qps_max:,.1f})"
        f"{_others(spread, 'configuration')}; use more --repeat and a longer --duration, and compare medians"
    ]


def _others(items: Sequence[object], what: str = "run") -> str:
    n = len(items) - 1
    return f" (and {n} other {what}{'s' if n != 1 else ''})" if n > 0 else ""
