"""Run records from program reports, and per-configuration summaries (median and spread)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from ascgen.bench import breakdown, histogram
from ascgen.bench.roofline import roofline_of
from ascgen.bench.schema import Config, Latency, ProgramReport, ProgramServing, RunRecord, Serving, Summary
from ascgen.bench.video import video_of, video_summary
from ascgen.plan.model import Plan, gear_for
from ascgen.serving.predict import Prediction


def cv(values: Sequence[float]) -> float | None:
    """Coefficient of variation (sample standard deviation / mean); None below two values."""
    if len(values) < 2:
        return None
    mean = statistics.fmean(values)
    return statistics.stdev(values) / mean if mean > 0 else None


def per_1000(seconds: float | None, frames: int) -> float | None:
    return None if seconds is None or frames <= 0 else seconds * 1000.0 / frames


def gear_shares(served: ProgramServing, batch_gears: list[int]) -> tuple[tuple[str, float], ...]:
    """Each gear's share of a server's batches: the (height, width) gears the program counts,
    else the dynamic batch gears, a batch of n running at the smallest gear that holds it
    (``gear_for``, as the program picks it; ``batch_stats`` holds the sizes)."""
    if not served.batches:
        return ()
    if served.padding and served.padding.gears:
        return tuple((f"{h}x{w}", n / served.batches) for h, w, n in served.padding.gears)
    if not batch_gears:
        return ()
    counts: dict[int, int] = {}
    for size, n in served.batch_stats:
        gear = gear_for(batch_gears, size)
        counts[gear] = counts.get(gear, 0) + n
    return tuple((f"b{g}", counts[g] / served.batches) for g in sorted(counts))


def serving_of(
    served: ProgramServing,
    qps: float,
    loaded_s: float,
    scale: float,
    prediction: Prediction | None,
    batch_gears: list[int] | None = None,
) -> Serving:
    """A server's figures of one run, in model time (the host's seconds / ``scale``). The
    program counts requests from the start of its load, through the warm-up and the measured
    period (``loaded_s``, host seconds); its latencies are of the measured period."""
    batched = sum(size * n for size, n in served.batch_stats)
    return Serving(
        offered_rps=served.submitted / loaded_s * scale if loaded_s > 0 else 0.0,
        achieved_rps=qps,
        submitted=served.submitted,
        rejected=served.rejected.queue_full + served.rejected.closed + served.rejected.timeout,
        timed_out=served.timed_out.rejected + served.timed_out.delayed,
        queue_p50_ms=served.queue_ms.p50 / scale,
        queue_p99_ms=served.queue_ms.p99 / scale,
        mean_batch=batched / served.batches if served.batches else 0.0,
        gear_shares=gear_shares(served, batch_gears or []),
        predicted_rps=prediction.qps if prediction else None,
        predicted_p99_ms=prediction.p99_ms if prediction else None,
        predicted_mean_batch=prediction.mean_batch if prediction else None,
        predicted_rejected=prediction.rejected if prediction else None,
        late=served.generator.late + served.generator.missed
        if served.generator and not served.generator.kept_up
        else 0,
    )


def record(
    config: Config,
    repeat: int,
    report: ProgramReport,
    plan: Plan,
    raw: str,
    prediction: Prediction | None = None,
    warmup_s: float = 0.0,
) -> RunRecord:
    """A run's record; with a time scale (the simulated device s times slower than the host)
    its rates and latencies are the device's: QPS x s, milliseconds / s. ``warmup_s``: the
    run's warm-up, when a server's load already ran."""
    s = config.time_scale or 1.0
    latency = Latency(**{k: v / s for k, v in report.latency_ms.model_dump().items()})
    hist = report.latency_histogram_us
    return RunRecord(
        **config.model_dump(),
        repeat=repeat,
        qps=report.qps * s,
        frames=report.frames,
        duration_s=report.duration_s,
        latency_ms=latency,
        stages=report.stages,
        host_cpu_s_per_1000_frames=per_1000(report.host_cpu_s, report.frames),
        process_cpu_s_per_1000_frames=per_1000(report.process_cpu_s, report.frames),
        device_memory_bytes=report.device_memory_bytes,
        roofline_qps=roofline_of(plan),
        bottleneck=plan.bottleneck if len(plan.deployment.device_ids) < 2 else plan.deployment.bottleneck,
        efficiency=report.qps * s / roofline_of(plan) if roofline_of(plan) > 0 else 0.0,
        windows_qps=[q * s for q in report.windows_qps],
        window_cv=cv(report.windows_qps),
        windows_latency_ms=[(p99 / s, top / s) for p99, top in report.windows_latency_ms],
        latency_histogram_us=[(bound / s, n) for bound, n in hist] if hist is not None else None,
        raw=raw,
        serving=(
            serving_of(
                report.serving,
                report.qps * s,
                report.duration_s + warmup_s,
                s,
                prediction,
                plan.model.gears if plan.model else [],
            )
            if report.serving
            else None
        ),
        video=video_of(report.video, s, plan) if report.video else None,
        breakdown=breakdown.of_report(report, s),
    )


CONFIG_KEYS = set(Config.model_fields)


def config_of(run: Config) -> Config:
    """The configuration of a run or summary: every key of Config, so points match only when
    all of them are equal (a key added to Config takes part without a change here)."""
    return Config.model_validate(run.model_dump(include=CONFIG_KEYS))


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


def serving_summary(runs: Sequence[Serving]) -> Serving | None:
    """A configuration's serving figures: rates, queue times and batches the median of its
    repeats, requests and drops summed over them, each gear's share the mean."""
    if not runs:
        return None
    med = {k: statistics.median(getattr(r, k) for r in runs) for k in MEDIAN_SERVING}
    gears: dict[str, list[float]] = {}
    for r in runs:
        for name, share in r.gear_shares:
            gears.setdefault(name, []).append(share)
    return runs[0].model_copy(
        update={
            **med,
            **{k: sum(getattr(r, k) for r in runs) for k in ("submitted", "rejected", "timed_out", "late")},
            "gear_shares": tuple((name, sum(v) / len(runs)) for name, v in gears.items()),
        }
    )


MEDIAN_SERVING = ("offered_rps", "achieved_rps", "queue_p50_ms", "queue_p99_ms", "mean_batch")


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
                serving=serving_summary([r.serving for r in group if r.serving is not None]),
                video=video_summary([r.video for r in group if r.video is not None]),
                breakdown=breakdown.summary([r.breakdown for r in group if r.breakdown is not None]),
            )
        )
    return out
