"""A video spec in a bench: --sweep streams=N sweeps its camera streams (threads, one pipeline each,
each point setting source.streams), the table's held/min fps/late/dropped columns, a point held only
when every repeat held, and the measured capacity beside the plan's."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascgen.bench.points import BadSweep, configurations, parse_sweep
from ascgen.bench.report import columns, rows
from ascgen.bench.roofline import Planner
from ascgen.bench.schema import Latency, ProgramVideo, Summary, Video
from ascgen.bench.video import capacity_line, missed, video_of, video_summary
from ascgen.dsl.configure import configure

VIDEO = Path("pipelines/video/resnet50_1080p_310.yaml")
JPEG = Path("pipelines/resnet50_b16.yaml")


def test_streams_sweep_the_camera_streams_of_a_video_spec() -> None:
    sweep = parse_sweep("streams=4,8,16")
    assert (sweep.key, sweep.values, sweep.alias) == ("threads", (4, 8, 16), "streams")
    planner = Planner(VIDEO)
    points = configurations(planner.spec, [sweep], {})
    assert [p.threads for p in points] == [4, 8, 16]
    spec = configure(planner.spec, points[2].settings())
    assert spec.threads == 16 and spec.source.streams == 16  # one pipeline per stream, still valid


def test_streams_numbers_are_refused_for_a_spec_without_video() -> None:
    with pytest.raises(BadSweep, match="camera streams of a video source"):
        configurations(Planner(JPEG).spec, [parse_sweep("streams=1,2")], {})
    assert parse_sweep("streams=per_stage,per_thread").key == "streams"  # the layout, as before


def program_video(fps: list[float], dropped: list[int], scale: float) -> ProgramVideo:
    """A program's video block: host fps per stream, held as ascgen_video.h says (95 % of 30 in model time)."""
    held = [f * scale >= 28.5 and d == 0 for f, d in zip(fps, dropped, strict=True)]
    return ProgramVideo.model_validate(
        {
            "fps_target": 30,
            "streams_held": sum(held),
            "streams_total": len(fps),
            "held": all(held),
            "per_stream": [{"fps": f, "late": 0, "dropped": d} for f, d in zip(fps, dropped, strict=True)],
        }
    )


def summary(threads: int, video: Video) -> Summary:
    latency = Latency(p50=1.0, p90=1.0, p99=1.0, max=1.0)
    return Summary(
        threads=threads, depth=4, batch=1, streams="per_stage", sync_every=None, repeats=1, qps_median=30.0 * threads,
        qps_min=30.0 * threads, qps_max=30.0 * threads, qps_cv=None, latency_ms=latency, roofline_qps=399.0,
        bottleneck="aicore (infer)", efficiency=0.5, window_cv=None, host_cpu_s_per_1000_frames=None,
        device_memory_bytes=1, video=video,
    )  # fmt: skip


def test_a_point_holds_only_when_every_repeat_did_and_the_table_says_which() -> None:
    planner = Planner(VIDEO)
    plan = planner.plan(configurations(planner.spec, [parse_sweep("streams=8")], {})[0])
    good = video_of(program_video([15.0, 15.0], [0, 0], 2.0), 2.0, plan)  # host fps x time scale 2
    assert good.held and good.min_fps == 30.0 and good.predicted_capacity == 13
    bad = video_of(program_video([15.0, 12.0], [0, 9], 2.0), 2.0, plan)
    merged = video_summary([good, bad])
    assert merged is not None and not merged.held and merged.dropped == 9 and merged.min_fps == 24.0
    summaries = [summary(8, good), summary(12, merged)]
    names = columns(summaries)
    table = rows(summaries)
    assert [r[names.index("held")] for r in table] == ["yes", "NO (1/2)"]
    assert table[1][names.index("dropped")] == "9"
    assert missed(summaries) == [
        "threads=12 depth=4 batch=1 streams=per_stage: 1 of 2 stream(s) below 30 fps or dropping "
        "(slowest 24.0 fps, 9 dropped, 0 late)"
    ]
    line = capacity_line(summaries)
    assert line is not None and line.startswith("video capacity: 2 stream(s) measured")
    assert "the plan predicts 13" in line


def test_no_video_no_capacity_line() -> None:
    assert capacity_line([]) is None
