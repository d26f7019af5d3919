"""VPC in a V2 program (issue 30): where the video decodes through hi_mpi_vdec_* (310P, 910B, A3), a
vpc_resize lowers to hi_mpi_vpc_* (a channel per thread, a task per picture the host awaits), no
V1 media call is left in the program (CANN refuses V1 and V2 in one process: HA 900 maintenref
troubleshooting_0161), and a stage with no V2 lowering is refused where it stands."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ascgen.codegen.lower import lower
from ascgen.codegen.render import render
from ascgen.dsl.diagnostics import Diagnostic, SpecError
from ascgen.pipeline import analyze_text
from ascgen.plan.model import Plan

# Lines: 2 device, 3 source, 4 buffers, 6 decode, 7 resize, 8 infer, 9 fetch, 10 top5.
V2_VIDEO = """\
name: cams
device: {profile: ascend310p}
source: {kind: video, path: data/cam.h264, codec: h264, streams: 4, fps: 30}
buffers: {depth: 4}
stages:
  - {name: decode, kind: vdec, size: {width: 1920, height: 1080}}
  - {name: resize, kind: vpc_resize, out: {width: 224, height: 224}}
  - {name: infer, kind: model, path: models/resnet50_aipp.om, reference: resnet50}
  - {name: fetch, kind: d2h}
  - {name: top5, kind: topk, k: 5}
"""

JPEG_310P = """\
name: jpegs
device: {profile: ascend310p}
source: {kind: jpeg_files, path: data/images}
stages:
  - {name: upload, kind: h2d}
  - {name: decode, kind: jpeg_decode, max: {width: 1920, height: 1080}}
  - {name: resize, kind: vpc_resize, out: {width: 224, height: 224}}
  - {name: infer, kind: model, path: models/resnet50_aipp.om, reference: resnet50}
  - {name: fetch, kind: d2h}
  - {name: top5, kind: topk, k: 5}
"""

V1_MEDIA_CALL = re.compile(r"\b(acldvpp\w*|aclvdec\w*)\(")


def main_cpp(text: str, tmp_path: Path) -> tuple[Plan, str]:
    _, plan = analyze_text(text)
    main = render(lower(plan, tmp_path / plan.name))["main.cpp"]
    return plan, re.sub(r"\(\s+", "(", main)  # a call's arguments as written, not as clang-format wraps them


def problem(text: str) -> Diagnostic:
    with pytest.raises(SpecError) as info:
        analyze_text(text)
    diags = info.value.sorted()
    assert len(diags) == 1, [d.format() for d in diags]
    return diags[0]


def test_a_v2_programs_resize_is_a_task_the_host_awaits(tmp_path: Path) -> None:
    plan, main = main_cpp(V2_VIDEO, tmp_path)
    assert plan.video is not None and plan.video.api == "v2"
    assert plan.host_awaited == ["resize"]
    assert not [e.name for e in plan.events if "resize" in e.name]  # the host orders it, no event
    assert "hi_mpi_vpc_resize(resize_chn," in main
    # awaited within a bound (hi_mpi_vpc_get_process_result's timeout mode, ascgen_vpc_v2.h), never -1
    assert main.index("hi_mpi_vpc_resize(") < main.index("ascgen::vpc2::await(resize::kName, resize_chn, task)")
    assert "ascgen::vpc2::kTaskBoundMs" in main and ", -1)" not in main
    assert "ascgen::vpc2::open_channel(resize::kName" in main  # hi_mpi_vpc_sys_create_chn, destroyed at teardown
    assert "resize_stream" not in main and "resize_channel" not in main
    assert V1_MEDIA_CALL.findall(main) == []  # no V1 media call in a V2 process
    assert "DVPP memory (hi_mpi_dvpp_malloc)" in main and "acldvppMalloc" not in main


def test_a_crop_before_the_resize_is_one_crop_resize_region(tmp_path: Path) -> None:
    text = V2_VIDEO.replace(
        "out: {width: 224, height: 224}}",
        "crop: {left: 100, top: 50, width: 800, height: 600}, out: {width: 224, height: 224}}",
    )
    _, main = main_cpp(text, tmp_path)
    assert "hi_mpi_vpc_crop_resize(resize_chn," in main and "hi_mpi_vpc_resize(" not in main
    assert "ascgen::vpc2::crop_region(out, resize::kCropLeft, resize::kCropRight" in main
    assert V1_MEDIA_CALL.findall(main) == []


@pytest.mark.parametrize(
    "text",
    [V2_VIDEO.replace("ascend310p", "ascend310"), JPEG_310P],
    ids=["v1_video_on_the_310", "jpeg_on_the_310p"],
)
def test_v1_programs_keep_the_v1_vpc(text: str, tmp_path: Path) -> None:
    """The 310's video is V1; JPEG programs decode with V1 JPEGD on every device."""
    plan, main = main_cpp(text, tmp_path)
    assert plan.host_awaited == []
    assert "acldvppVpcResizeAsync(resize_channel," in main and "hi_mpi_vpc" not in main


def test_a_letterbox_pastes_into_a_canvas_painted_once(tmp_path: Path) -> None:
    """A video's pictures all have the decoder's size: one paste area, the border painted at set-up."""
    plan, main = main_cpp(V2_VIDEO.replace("kind: vpc_resize, out", "kind: vpc_letterbox, out"), tmp_path)
    assert plan.host_awaited == ["resize"]
    step = main[main.index("void Worker::resize_step") :]
    step = step[: step.index("\n}\n")]
    assert "hi_mpi_vpc_crop_resize_paste(resize_chn," in step and "ascgen::vpc2::await(resize::kName" in step
    assert "aclrtMemset" not in step and "paint" not in step  # no canvas fill per frame
    assert "ascgen::vpc2::paint(resize::kName, out, resize::kBorderLuma, resize::kBorderChroma)" in main
    assert V1_MEDIA_CALL.findall(main) == []


GRAPH = """\
name: cams
device: {profile: ascend310p}
source: {kind: video, path: data/cam.h264, streams: 2}
batch: 4
buffers: {depth: 6}
stages:
  - {name: decode, kind: vdec, size: {width: 1920, height: 1080}}
  - {name: fit, kind: vpc_letterbox, out: {width: 416, height: 416}}
  - {name: detect, kind: model, path: models/yolo_416.om, latency_ms: {1: 3.0, 4: 8.0}, output_bytes: 5632}
  - {name: fetch, kind: d2h}
  - {name: boxes, kind: detections, format: yolo_raw, classes: 6, score: 0.5, nms_iou: 0.45, max_objects: 16}
  - {name: crops, kind: vpc_crop, image: decode, rois: boxes, out: {width: 224, height: 224}}
  - {name: classify, kind: model, path: models/resnet50_aipp.om, reference: resnet50, batch: 8, gears: [1, 2, 4, 8]}
  - {name: scores, kind: d2h}
  - {name: labels, kind: topk, k: 5}
"""


def test_a_stage_with_no_v2_lowering_is_refused_in_a_v2_program() -> None:
    d = problem(GRAPH)
    assert d.position.line == 12
    for fragment in (
        "vpc_crop",
        "V1 VPC API",
        "V2",
        "troubleshooting_0161",
        "use vpc_letterbox or vpc_resize",
        "ascend310",
    ):
        assert fragment in d.message, d.message
    analyze_text(GRAPH.replace("ascend310p", "ascend310"))  # V1 video: the same graph is valid


def test_v2_resizes_bilinear_or_nearest() -> None:
    d = problem(
        V2_VIDEO.replace("out: {width: 224, height: 224}}", "out: {width: 224, height: 224}, interpolation: default}")
    )
    assert d.position.line == 7 and "interpolation" in d.message and "use bilinear" in d.message


def test_a_v2_resize_keeps_the_specs_depth() -> None:
    """Its slots are freed with their batch (the feeder waits for it): no per-stage depth."""
    d = problem(V2_VIDEO.replace("buffers: {depth: 4}", "buffers: {depth: 4, per_stage: {resize: 2}}"))
    assert d.position.line == 4 and "hi_mpi_vpc_*" in d.message and "remove this entry" in d.message
