"""A video source's plan: VDEC geometry and channel memory, one pipeline per stream, and the capacity
answer (the most streams of WxH@fps that hold) from the profile's VDEC time model and the roofline."""

from __future__ import annotations

import pytest

from ascgen.dsl import profile as profiles
from ascgen.pipeline import analyze_text
from ascgen.plan.model import Plan
from ascgen.plan.video import video_lines
from ascgen.stages import vdec

DECODE_ONLY = """\
name: cameras
device: {profile: ascend310}
source: {kind: video, path: data/cam.h264, streams: 8, fps: 30}
stages:
  - {name: decode, kind: vdec, size: {width: 1920, height: 1080}}
"""

RESNET50 = """\
name: cameras
device: {profile: ascend310}
source: {kind: video, path: data/cam.h264, streams: 8, fps: 30}
buffers: {depth: 4}
stages:
  - {name: decode, kind: vdec, size: {width: 1920, height: 1080}}
  - {name: resize, kind: vpc_resize, out: {width: 224, height: 224}}
  - {name: infer, kind: model, path: models/resnet50_aipp.om, reference: resnet50}
  - {name: fetch, kind: d2h}
  - {name: top5, kind: topk, k: 5}
"""


def plan_of(text: str) -> Plan:
    return analyze_text(text)[1]


@pytest.mark.parametrize(
    ("width", "height", "strides"),
    [((1920, 1080), None, (1920, 1080)), ((100, 130), None, (112, 130)), ((20, 10), None, (32, 10))],
)
def test_vdec_output_strides(width: tuple[int, int], height: None, strides: tuple[int, int]) -> None:
    """widthStride = ALIGN(w, 16), at least 32; heightStride = ALIGN(h, 2) (HA 850 aclcppdevg_03_0373)."""
    w, h = width
    g = vdec.picture(w, h, "nv12")
    assert (g.width_stride, g.height_stride) == strides
    assert g.bytes == strides[0] * strides[1] * 3 // 2


def test_one_pipeline_per_stream_and_channel_memory_counted() -> None:
    plan = plan_of(DECODE_ONLY)
    assert plan.threads == 8
    channel = vdec.channel_bytes(profiles.load("ascend310"), 1920, 1080)
    assert 55e6 < channel < 61e6  # ~56 MB per 1080p channel documented (HA 5046 aclcppdevg_03_0184)
    pools = sum(p.total_bytes for p in plan.pools if p.memory == "dvpp")
    assert plan.memory.dvpp_bytes == pools + 8 * channel


def test_decode_only_capacity_is_the_documented_16_streams_at_1080p30() -> None:
    """The 310 decodes 480 1080p frames/s (16 x 30, fitted): 16 streams hold, the 17th is refused by VDEC."""
    video = plan_of(DECODE_ONLY).video
    assert video is not None and video.api == "v1" and video.holds
    assert video.vdec_fps == pytest.approx(480, rel=0.01)
    assert video.capacity_streams == 16
    assert video.capacity_bound.startswith("vdec (decode)")


def test_resnet50_capacity_is_bound_by_the_model() -> None:
    """ResNet-50 at batch 1 holds ~400 frames/s on the 310: 13 streams of 30 fps, not VDEC's 16."""
    plan = plan_of(RESNET50)
    video = plan.video
    assert video is not None
    assert video.capacity_streams == int(plan.roofline_qps // 30) == 13
    assert video.capacity_bound.startswith("aicore (infer)")
    more = plan_of(RESNET50.replace("streams: 8", "streams: 14")).video
    assert more is not None and not more.holds and more.capacity_streams == 13
    assert any("do NOT hold" in line for line in video_lines(more))


def test_v2_on_the_310p() -> None:
    video = plan_of(DECODE_ONLY.replace("ascend310}", "ascend310p}")).video
    assert video is not None and video.api == "v2"
    assert video.vdec_fps == pytest.approx(2880, rel=0.01)  # n x 240 up to 2880 1080p frames/s documented
    assert video.capacity_streams == 96


def test_capacity_stops_at_dvpp_memory() -> None:
    """Deep picture rings make memory, not the decoder, the limit."""
    video = plan_of(DECODE_ONLY.replace("stages:", "buffers: {depth: 64}\nstages:")).video
    assert video is not None
    assert 0 < video.capacity_streams < 16
    assert "DVPP memory" in video.capacity_bound


def test_other_sources_have_no_video_plan() -> None:
    text = RESNET50.replace("{kind: video, path: data/cam.h264, streams: 8, fps: 30}", "{kind: jpeg_files, path: d}")
    text = text.replace(
        "kind: vdec, size: {width: 1920, height: 1080}", "kind: jpeg_decode, max: {width: 1920, height: 1080}"
    )
    text = text.replace("stages:\n", "stages:\n  - {name: upload, kind: h2d}\n")
    assert plan_of(text).video is None
