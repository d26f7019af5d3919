"""Run records from program reports, and per-configuration summaries (median and spread)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from ascgen.bench import histogram
from ascgen.bench.roofline import roofline_of
from ascgen.bench.schema import Config, Latency, ProgramReport, RunRecord, Summary
from ascgen.plan.model import Plan


def cv(values: Sequence[float]) -> float | None:
    """Coefficient of variation (sample standard deviation / mean); None below two values."""
    if len(values) < 2:
        return None
    mean = statistics.fmean(values)
    return statistics.stdev(values) / mean if mean > 0 else None


def per_1000(seconds: float | None, frames: int) -> float | None:
    return None if seconds is None or frames <= 0 else seconds * 1000.0 / frames


def record(config: Config, repeat: int, report: ProgramReport, plan: Plan, raw: str) -> RunRecord:
    return RunRecord(
        **config.model_dump(),
        repeat=repeat,
        qps=report.qps,
        frames=report.frames,
        duration_s=report.duration_s,
        latency_ms=report.latency_ms,
        stages=report.stages,
        host_cpu_s_per_1000_frames=per_1000(report.host_cpu_s, report.frames),
        process_cpu_s_per_1000_frames=per_1000(report.process_cpu_s, report.frames),
        device_memory_bytes=report.device_memory_bytes,
        roofline_qps=roofline_of(plan),
        bottleneck=plan.bottleneck if len(plan.deployment.device_ids) < 2 else plan.deployment.bottleneck,
        efficiency=report.qps / roofline_of(plan) if roofline_of(plan) > 0 else 0.0,
        windows_qps=report.windows_qps,
        window_cv=cv(report.windows_qps),
        windows_latency_ms=report.windows_latency_ms,
        latency_histogram_us=report.latency_histogram_us,
        raw=raw,
    )


def config_of(run: Config) -> Config:
    return Config(
        threads=run.threads, depth=run.depth, batch=run.batch, streams=run.streams, sync_every=run.sync_every,
        clients=run.clients, rate=run.rate, devices=run.devices, deploy=run.deploy,
    )  # fmt: skip


def _median_latency(runs: Sequence[RunRecord]) -> Latency:
    return Latency(
        **{k: statistics.median(getattr(r.latency_ms, k) for r in runs) for k in ("p50", "p90", "p99", "max")}
    )


def _latency(runs: Sequence[RunRecord]) -> tuple[Latency, bool]:
    """The latency of all frames of ``runs`` from their merged histograms, and True; where a
    run has none (an older program), the median of each run's percentiles, and False."""
    histograms = [r.latency_histogram_us for r in runs]
    if not all(histograms):
        return _median_latency(runs), False
    merged = histogram.merge(h for h in histograms if h)
    worst = max(r.latency_ms.max for r in runs)
    p50, p90, p99 = (histogram.percentile_ms(merged, p, worst) for p in (50, 90, 99))
    return Latency(p50=p50, p90=p90, p99=p99, max=worst), True


def summarize(runs: Sequence[RunRecord]) -> list[Summary]:
    """One summary per configuration, in the order the configurations were first run."""
    groups: dict[Config, list[RunRecord]] = {}
    for run in runs:
        groups.setdefault(config_of(run), []).append(run)
    out = []
    for config, group in groups.items():
        qps = [r.qps for r in group]
        median = statistics.median(qps)
        roofline = group[0].roofline_qps
        window_cvs = [r.window_cv for r in group if r.window_cv is not None]
        cpu = [r.host_cpu_s_per_1000_frames for r in group if r.host_cpu_s_per_1000_frames is not None]
        latency, merged = _latency(group)
        out.append(
            Summary(
                **config.model_dump(),
                repeats=len(group),
                qps_median=median,
                qps_min=min(qps),
                qps_max=max(qps),
                qps_cv=cv(qps),
                latency_ms=latency,
                latency_merged=merged,
                roofline_qps=roofline,
                bottleneck=group[0].bottleneck,
                efficiency=median / roofline if roofline > 0 else 0.0,
                window_cv=max(window_cvs) if window_cvs else None,
                host_cpu_s_per_1000_frames=statistics.median(cpu) if cpu else None,
                device_memory_bytes=max(r.device_memory_bytes for r in group),
            )
        )
    return out
