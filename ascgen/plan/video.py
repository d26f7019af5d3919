"""The plan of a video source: the decoder API and channel memory, and the capacity answer "N streams of
WxH@fps hold with this pipeline" from the same time model as the simulator (the profile's engines.vdec,
tools/vdec_fit, simulator/docs/vdec_time.md) and the pipeline's roofline (every engine, the DDR the
engines share, the scheduler and the host)."""

from __future__ import annotations

from collections.abc import Callable

from ascgen.dsl import spec as dsl
from ascgen.dsl.profile import Profile
from ascgen.plan.model import Plan, VideoPlan, holds
from ascgen.stages.registry import context, kind_of

# A plan of the spec at a number of streams, and the device limits it misses
Replan = Callable[[dsl.Spec], Plan]
Missed = Callable[[Plan], list[str]]


def with_streams(spec: dsl.Spec, streams: int) -> dsl.Spec:
    """``spec`` with ``streams`` cameras (one pipeline each)."""
    source = spec.source.model_copy(update={"streams": streams})
    return spec.model_copy(update={"source": source, "threads": streams})


def video_plan(spec: dsl.Spec, prof: Profile, roofline_qps: float) -> VideoPlan | None:
    """The video source's plan at the spec's streams (capacity not yet worked out), from the kind
    that decodes it."""
    if spec.source.kind != "video" or not spec.stages:
        return None
    return kind_of(spec.stages[0]).video_plan(context(spec, prof, 0), roofline_qps)


def _refusal(n: int, trial: Plan, fps: float, missed: Missed) -> str:
    """Why ``n`` streams do not hold ("" when they do): a device limit, or the roofline's bottleneck."""
    limits = missed(trial)
    if limits:
        return "; ".join(limits)
    if not holds(n * fps, trial.roofline_qps):
        return f"{trial.bottleneck} ({trial.roofline_qps:.0f} frames/s for {n * fps:g} asked)"
    return ""


def with_capacity(plan: Plan, spec: dsl.Spec, prof: Profile, replan: Replan, missed: Missed) -> Plan:
    """``plan`` with its video capacity: the most streams (1 .. the device's channels) whose plan fits
    the device and whose roofline holds every stream's fps; what refuses one stream more is named in
    capacity_bound. Both only grow harder with more streams (memory and demand grow, a stream adds at
    most its own share of every engine), so a binary search finds the edge."""
    video = plan.video
    if video is None:
        return plan

    def refusal(n: int) -> str:
        return _refusal(n, plan if n == video.streams else replan(with_streams(spec, n)), video.fps, missed)

    held = not refusal(video.streams)
    channels = prof.limits.vdec_channels
    bound = refusal(channels)
    if not bound:
        best, bound = channels, f"the device's {channels} VDEC channels"
    else:
        lo, hi = 0, channels  # lo holds (0 trivially), hi does not
        while hi - lo > 1:
            mid = (lo + hi) // 2
            why = refusal(mid)
            if why:
                hi, bound = mid, why
            else:
                lo = mid
        best = lo
    answer = {"holds": held, "capacity_streams": best, "capacity_bound": bound}
    return plan.model_copy(update={"video": video.model_copy(update=answer)})


def video_lines(video: VideoPlan) -> list[str]:
    """The capacity answer for `ascgen plan`, in words."""
    api = "V1 aclvdec" if video.api == "v1" else "V2 hi_mpi_vdec"
    verdict = "hold" if video.holds else "do NOT hold"
    return [
        f"video: {video.streams} stream(s) of {video.width}x{video.height}@{video.fps:g} {video.codec.upper()} "
        f"({api}, one channel each, {video.channel_bytes / 2**20:.1f} MiB of DVPP memory per channel), "
        f"pace {video.pace}, late frames {'dropped' if video.late == 'drop' else 'queued'}",
        f"VDEC: {video.vdec_service_us:.0f} us per frame on {video.vdec_units} core(s): {video.vdec_fps:,.0f} frames/s "
        f"in all, {video.vdec_fps / video.fps:.1f} streams at {video.fps:g} fps",
        f"[bold]{video.streams} stream(s) {verdict}[/]: they ask {video.demand_fps:,.0f} frames/s, the pipeline holds "
        f"{video.pipeline_fps:,.0f}; capacity: {video.capacity_streams} stream(s) of this spec (one more is refused "
        f"by {video.capacity_bound})",
    ]
