"""A video program's streams in a bench: whether each point held its fps with no frame dropped, the
table's columns, and the capacity answer, measured (the most streams of the points that held)
beside the plan's prediction (ascgen/plan/video.py). With a time scale the rates are model time."""

from __future__ import annotations

from collections.abc import Sequence

from ascgen.bench.schema import ProgramVideo, Summary, Video
from ascgen.plan.model import Plan

VIDEO_COLUMNS = ("held", "min fps", "late", "dropped")


def video_of(v: ProgramVideo, scale: float, plan: Plan) -> Video:
    """One run's streams; fps in model time (x the time scale)."""
    fps = [s.fps * scale for s in v.per_stream]
    return Video(
        streams=v.streams_total,
        fps_target=v.fps_target,
        streams_held=v.streams_held,
        min_fps=min(fps) if fps else 0.0,
        late=sum(s.late for s in v.per_stream),
        dropped=sum(s.dropped for s in v.per_stream),
        held=v.held,
        predicted_capacity=plan.video.capacity_streams if plan.video is not None else None,
    )


def video_summary(runs: Sequence[Video]) -> Video | None:
    """A configuration's streams over its repeats: held only if every repeat held; the fewest
    streams held and the slowest stream; late and dropped frames summed."""
    if not runs:
        return None
    return runs[0].model_copy(
        update={
            "streams_held": min(r.streams_held for r in runs),
            "min_fps": min(r.min_fps for r in runs),
            "late": sum(r.late for r in runs),
            "dropped": sum(r.dropped for r in runs),
            "held": all(r.held for r in runs),
        }
    )


def video_cells(s: Summary) -> list[str]:
    v = s.video
    if v is None:
        return ["-"] * len(VIDEO_COLUMNS)
    held = "yes" if v.held else f"NO ({v.streams_held}/{v.streams})"
    return [held, f"{v.min_fps:,.1f} of {v.fps_target:g}", f"{v.late:,}", f"{v.dropped:,}"]


def capacity_line(summaries: Sequence[Summary]) -> str | None:
    """The measured capacity (the most streams among the points that held their fps with no drop)
    beside the plan's; None for a bench of no video program."""
    points = [s for s in summaries if s.video is not None]
    if not points:
        return None
    first = points[0].video
    assert first is not None
    held = [s.video.streams for s in points if s.video is not None and s.video.held]
    predicted = first.predicted_capacity
    plan = f"; the plan predicts {predicted}" if predicted is not None else ""
    if not held:
        return f"video capacity: no point held {first.fps_target:g} fps with no frame dropped{plan}"
    best = max(held)
    off = f" ({100.0 * (best - predicted) / predicted:+.0f} %)" if predicted else ""
    return (
        f"video capacity: {best} stream(s) measured (the most of the points swept that held "
        f"{first.fps_target:g} fps with no frame dropped){plan}{off}"
    )


def missed(summaries: Sequence[Summary]) -> list[str]:
    """The points whose streams did not hold (for --require-fps), one line each."""
    out = []
    for s in summaries:
        v = s.video
        if v is not None and not v.held:
            out.append(
                f"{s.label()}: {v.streams - v.streams_held} of {v.streams} stream(s) below {v.fps_target:g} fps "
                f"or dropping (slowest {v.min_fps:.1f} fps, {v.dropped:,} dropped, {v.late:,} late)"
            )
    return out
