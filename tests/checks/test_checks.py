"""One test per semantic check (ascgen/checks/spec.py and the plan-time checks of ascgen/pipeline.py),
through ``analyze_text``: each asserts the message and the line it points at."""

from __future__ import annotations

from pathlib import Path

import pytest
from specs import SEED_SPEC

from ascgen.dsl import profile as profiles
from ascgen.dsl.diagnostics import Diagnostic, SpecError
from ascgen.pipeline import analyze_file, analyze_text

ROOT = Path(__file__).resolve().parents[2]
VALID_SPECS = [*sorted(ROOT.glob("pipelines/*.yaml")), ROOT / "ascgen" / "example_spec.yaml"]

# Line numbers of BASE: 2 device, 3 source, 4 threads, 5 streams, 6 buffers, 7 batch,
# 9 upload, 10 decode, 11 resize, 12 infer, 13 fetch, 14 top5.
BASE = SEED_SPEC
LINE = {"device": 2, "source": 3, "threads": 4, "streams": 5, "buffers": 6, "batch": 7}
LINE.update(upload=9, decode=10, resize=11, infer=12, fetch=13, top5=14)

OWN_MODEL = BASE.replace("reference: resnet50", "latency_ms: 21.78")  # takes any frame size, unlike ResNet-50

TENSOR = """\
name: tensor_in
source: {kind: tensor, bytes: 602112}
batch: 4
stages:
  - {name: upload, kind: h2d}
  - {name: infer, kind: model, path: m.om, latency_ms: 5, input_bytes: 2408448}
  - {name: fetch, kind: d2h}
"""


def edit(*pairs: str, text: str = BASE) -> str:
    """``text`` with each (old, new) pair replaced; every old must occur exactly once."""
    assert len(pairs) % 2 == 0
    for old, new in zip(pairs[::2], pairs[1::2], strict=True):
        assert text.count(old) == 1, f"{old!r} must occur once"
        text = text.replace(old, new)
    return text


def without(stage: str, text: str = BASE) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if f"name: {stage}," not in line)


def problems(text: str) -> list[Diagnostic]:
    with pytest.raises(SpecError) as info:
        analyze_text(text)
    diags = info.value.sorted()
    assert all(d.path == "spec.yaml" and d.position.line >= 1 and d.position.col >= 1 for d in diags)
    return diags


def only_problem(text: str, *fragments: str, line: int) -> Diagnostic:
    """The single problem of ``text``: it contains every fragment and points at ``line``."""
    diags = problems(text)
    assert len(diags) == 1, [d.format() for d in diags]
    diag = diags[0]
    for fragment in fragments:
        assert fragment in diag.message, f"{fragment!r} not in {diag.message!r}"
    assert diag.position.line == line, diag.format()
    return diag


def test_base_spec_is_valid() -> None:
    spec, plan = analyze_text(BASE)
    assert [s.name for s in spec.stages] == ["upload", "decode", "resize", "infer", "fetch", "top5"]
    assert plan.bottleneck == "aicore (infer)"


@pytest.mark.parametrize("path", VALID_SPECS, ids=lambda p: p.name)
def test_shipped_specs_are_valid(path: Path) -> None:
    _, plan = analyze_file(path)
    assert plan.roofline_qps > 0 and plan.memory.device_bytes <= plan.memory.device_budget_bytes


# --- profile ---------------------------------------------------------------------------------


def test_unknown_profile_with_hint() -> None:
    only_problem(edit("ascend310}", "ascend301}"), "unknown device profile 'ascend301'", "'ascend310'", line=2)


def test_unknown_profile_lists_the_available_ones() -> None:
    diag = only_problem(edit("ascend310}", "tpu}"), "unknown device profile 'tpu'", line=2)
    assert all(name in diag.message for name in profiles.available())


# --- structure: names, order, source, streams -----------------------------------------------


def test_duplicate_stage_name() -> None:
    only_problem(edit("name: fetch", "name: resize"), "duplicate stage name 'resize'", "first used by stage 3", line=13)


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        (without("upload"), 9, "a jpeg_decode stage cannot come after the source; it takes its input from h2d"),
        (without("decode"), 10, "a vpc_resize stage cannot come after an h2d stage"),
        (without("resize"), 11, "a model stage cannot come after a jpeg_decode stage"),
        (without("fetch"), 13, "a topk stage cannot come after a model stage; it takes its input from d2h"),
        (edit("{name: fetch, kind: d2h}", "{name: fetch, kind: h2d}"), 13, "an h2d stage cannot come after a model"),
        (edit("{name: top5, kind: topk, k: 5}", "{name: top5, kind: jpeg_decode, max: {width: 64, height: 64}}"),
         14, "a jpeg_decode stage cannot come after a d2h stage"),
    ],
    ids=["decode_first", "vpc_after_h2d", "model_after_decode", "topk_without_d2h", "h2d_after_model",
         "decode_after_d2h"],
)  # fmt: skip
def test_stage_order(text: str, line: int, fragment: str) -> None:
    order = [d for d in problems(text) if "cannot come after" in d.message]
    assert order[0].position.line == line and fragment in order[0].message, [d.format() for d in order]


def test_stage_order_allows_a_tensor_pipeline() -> None:
    _, plan = analyze_text(TENSOR)
    assert plan.model is not None and plan.model.input_bytes == 4 * 602112


def test_model_may_read_the_source_directly() -> None:
    analyze_text(without("upload", text=TENSOR).replace(", input_bytes: 2408448", ""))


def test_jpeg_source_needs_a_decode_stage() -> None:
    diags = problems(without("decode"))
    assert any(d.position.line == 3 and "JPEG input needs a jpeg_decode stage" in d.message for d in diags)


def test_upload_only_jpeg_pipeline_is_allowed() -> None:
    analyze_text("name: up\nsource: {kind: jpeg_files}\nstages:\n  - {name: upload, kind: h2d}\n")


def test_tensor_source_cannot_feed_jpeg_decode() -> None:
    text = edit("kind: jpeg_files, path: data/images, max_bytes: 1MiB", "kind: tensor, bytes: 1MiB")
    only_problem(text, "a jpeg_decode stage needs source kind jpeg_files", line=3)


def test_tensor_source_needs_bytes() -> None:
    only_problem(edit(", bytes: 602112", "", text=TENSOR), "a tensor source needs 'bytes'", line=2)


def test_jpeg_source_rejects_bytes() -> None:
    only_problem(edit("max_bytes: 1MiB", "bytes: 1MiB"), "'bytes' is for tensor sources; use max_bytes", line=3)


def test_sync_every_needs_per_thread_streams() -> None:
    text = edit("streams: per_stage\n", "streams: per_stage\nsync_every: 32\n")
    only_problem(text, "sync_every applies to streams: per_thread", line=6)
    analyze_text(edit("streams: per_stage\n", "streams: per_thread\nsync_every: 32\n"))


def test_buffers_per_stage_names_a_missing_stage() -> None:
    text = edit("{depth: 8}", "{depth: 8, per_stage: {resize: 4, decod: 4}}")
    only_problem(text, "no stage named 'decod'", "(did you mean 'decode'?)", line=6)


def test_batch_needs_a_model() -> None:
    only_problem(without("top5", text=without("infer")), "batch > 1 needs a model stage", line=7)
    analyze_text(without("top5", text=without("infer")).replace("batch: 16", "batch: 1"))


def test_one_model_stage_per_pipeline() -> None:
    text = edit("  - {name: fetch,", "  - {name: again, kind: model, path: b.om, latency_ms: 2}\n  - {name: fetch,")
    diags = problems(text)
    assert any(d.position.line == 13 and d.message.startswith("one model of frames per pipeline") for d in diags)


# --- geometry: resolutions, strides, alignment, crop, ratio ---------------------------------


@pytest.mark.parametrize(
    ("size", "fragment"),
    [
        ("{width: 16, height: 1536}", "JPEGD input width 16 is outside the device's range 32..8192"),
        ("{width: 1024, height: 16}", "JPEGD input height 16 is outside the device's range 32..8192"),
        ("{width: 8194, height: 1536}", "JPEGD input width 8194 is outside the device's range 32..8192"),
        ("{width: 1024, height: 8200}", "JPEGD input height 8200 is outside the device's range 32..8192"),
    ],
)
def test_jpegd_resolution_range(size: str, fragment: str) -> None:
    diags = problems(edit("{width: 1024, height: 1536}", size))
    assert diags[0].position.line == 10 and fragment in diags[0].message


def test_jpegd_size_must_be_even() -> None:
    only_problem(edit("height: 1536", "height: 1535"), "JPEGD input height 1535 must be even", "1534 or 1536", line=10)


@pytest.mark.parametrize(
    ("out", "fragment"),
    [
        ("{width: 225, height: 224}", "width 225 is not a multiple of 16 for VPC output; use 224 or 240"),
        ("{width: 232, height: 224}", "width 232 is not a multiple of 16 for VPC output; use 224 or 240"),
        ("{width: 224, height: 223}", "height 223 is not a multiple of 2 for VPC output; use 222 or 224"),
        ("{width: 4112, height: 224}", "VPC output width 4112 is outside the device's range 10..4096"),
        ("{width: 224, height: 4}", "VPC output height 4 is outside the device's range 6..4096"),
    ],
)
def test_vpc_output_size(out: str, fragment: str) -> None:
    text = edit("{width: 224, height: 224}", out, "height: 1536", "height: 96", text=OWN_MODEL)  # a legal ratio
    only_problem(text, fragment, line=11)


def test_align_override_must_be_a_multiple_of_the_device() -> None:
    text = edit(
        "kind: jpeg_decode,", "kind: jpeg_decode, align: {width: 200},",
        "kind: vpc_resize,", "kind: vpc_resize, align: {width: 8, height: 3},",
    )  # fmt: skip
    diags = problems(text)
    assert [(d.position.line, d.message) for d in diags] == [
        (10, "align.width 200 must be a multiple of the device's 128; use 128 or 256"),
        (11, "align.width 8 must be a multiple of the device's 16; use 16"),
        (11, "align.height 3 must be a multiple of the device's 2; use 2 or 4"),
    ]


def test_align_override_tightens_the_stride() -> None:
    _, plan = analyze_text(edit("kind: vpc_resize,", "kind: vpc_resize, align: {width: 32},"))
    resize = next(s for s in plan.stages if s.name == "resize")
    assert resize.output is not None and resize.output.width_stride == 224
    text = edit(
        "kind: vpc_resize,", "kind: vpc_resize, align: {width: 32},", "width: 224,", "width: 240,", text=OWN_MODEL
    )
    only_problem(text, "width 240 is not a multiple of 32 for VPC output; use 224 or 256", line=11)


def test_crop_must_be_even() -> None:
    text = edit("kind: vpc_resize,", "kind: vpc_resize, crop: {left: 3, top: 0, width: 1000, height: 999},")
    diags = problems(text)
    assert [d.message.split(" must")[0] for d in diags] == ["crop left 3", "crop height 999"]
    assert all(d.position.line == 11 and "DVPP crops on 2x2 chroma blocks" in d.message for d in diags)


def test_crop_must_lie_inside_the_picture() -> None:
    text = edit("kind: vpc_resize,", "kind: vpc_resize, crop: {left: 100, top: 600, width: 1000, height: 1000},")
    only_problem(text, "crop 1000x1000 at (100,600) lies outside the decoded 1024x1536 picture", line=11)


def test_crop_minimum_area() -> None:
    text = edit(
        "kind: vpc_resize, out: {width: 224, height: 224}",
        "kind: vpc_resize, crop: {left: 0, top: 0, width: 8, height: 4}, out: {width: 32, height: 32}",
        text=OWN_MODEL,
    )
    only_problem(text, "crop area must be at least 10x6", line=11)


@pytest.mark.parametrize(
    ("decode", "out", "fragment"),
    [
        ("{width: 1024, height: 1536}", "{width: 16, height: 224}", "resize width 1024 -> 16 (ratio 0.0156)"),
        ("{width: 1024, height: 1536}", "{width: 224, height: 32}", "resize height 1536 -> 32 (ratio 0.0208)"),
        ("{width: 64, height: 64}", "{width: 2048, height: 224}", "resize width 64 -> 2048 (ratio 32.0000)"),
    ],
)
def test_resize_ratio(decode: str, out: str, fragment: str) -> None:
    diag = only_problem(
        edit("{width: 1024, height: 1536}", decode, "{width: 224, height: 224}", out, text=OWN_MODEL), line=11
    )
    assert diag.message.startswith(fragment) and "outside VPC's 0.03125..16; crop first" in diag.message


def test_resize_ratio_is_taken_from_the_crop() -> None:
    text = edit(
        "kind: vpc_resize,", "kind: vpc_resize, crop: {left: 0, top: 0, width: 64, height: 64},", text=OWN_MODEL
    )
    only_problem(text.replace("width: 224, height: 224", "width: 2048, height: 224"), "64 -> 2048", line=11)
    analyze_text(text.replace("width: 224, height: 224", "width: 1024, height: 1024"))  # 16x: the limit


# --- model -----------------------------------------------------------------------------------


def test_batch_above_the_device_maximum() -> None:
    only_problem(edit("batch: 16", "batch: 256"), "batch 256 exceeds the device's 128", line=7)


def test_unknown_reference_model_with_hint() -> None:
    text = edit("reference: resnet50", "reference: resnet_50")
    only_problem(text, "profile ascend310 has no model 'resnet_50' (did you mean 'resnet50'?)", line=12)


def test_unknown_reference_model_lists_the_measured_ones() -> None:
    only_problem(edit("reference: resnet50", "reference: yolov5"), "has no model 'yolov5'; ascend310 measures", line=12)


def test_model_needs_a_reference_or_latency() -> None:
    only_problem(
        edit(", reference: resnet50}", "}"), "give 'reference' (a model of the profile) or 'latency_ms'", line=12
    )


def test_shared_model_instance_with_several_threads() -> None:
    text = edit(
        "reference: resnet50", "reference: resnet50, instances: shared", "streams: per_stage", "streams: per_thread"
    )
    text = text.replace("buffers: {depth: 8}", "sync_every: 64")
    only_problem(text, "one model instance cannot execute on 4 threads' streams", "instances: per_thread", line=12)
    analyze_text(text.replace("threads: 4", "threads: 1"))
    # per_stage: every thread's batches take turns on the one instance's stream
    _, plan = analyze_text(edit("reference: resnet50", "reference: resnet50, instances: shared"))
    assert plan.shared_stages == ["infer"] and plan.model is not None and plan.model.instances == 1
    assert plan.streams_per_thread == 4 and plan.shared_streams == 1


def test_a_shared_instance_needs_a_stage_after_it() -> None:
    text = edit("reference: resnet50", "reference: resnet50, instances: shared")
    text = text.replace("  - {name: fetch, kind: d2h}\n  - {name: top5, kind: topk, k: 5}\n", "")
    only_problem(text, "a shared instance needs a device stage after the model", line=12)


def test_latency_table_without_the_batch() -> None:
    text = edit("reference: resnet50", "latency_ms: {8: 12.5}")
    only_problem(text, "latency_ms has no entry for batch 16", "two batch sizes to interpolate", line=12)
    analyze_text(text.replace("{8: 12.5}", "{8: 12.5, 32: 40.0}"))
    analyze_text(text.replace("{8: 12.5}", "{16: 21.0}"))


@pytest.mark.parametrize(
    ("change", "col", "fragment"),
    [
        (("width: 224, height: 224}", "width: 240, height: 224}"), 43, "takes 224x224 nv12 frames, not 240x224 nv12"),
        (("height: 224}}", "height: 224}, format: nv21}"), 78, "takes 224x224 nv12 frames, not 224x224 nv21"),
    ],
    ids=["size", "format"],
)
def test_reference_model_input_matches_the_resize(change: tuple[str, str], col: int, fragment: str) -> None:
    diag = only_problem(edit(*change), "model 'infer' (resnet50 on ascend310)", fragment, line=11)
    assert diag.position.col == col
    analyze_text(edit(*change, "reference: resnet50", "latency_ms: 20.0"))  # a model of its own takes any size


def test_model_input_bytes_must_match_the_batch() -> None:
    text = edit("reference: resnet50", "reference: resnet50, input_bytes: 1204000")
    only_problem(text, "model input_bytes 1204000 must equal batch 16 x 75264 bytes per frame = 1204224", line=12)
    analyze_text(text.replace("1204000", "1204224"))


def test_batched_frames_must_keep_the_copy_alignment() -> None:
    """240x226 is VPC-aligned but 81,360 bytes, not 64-byte aligned: the assembling copies cannot
    place frame i at i x 81,360."""
    text = edit("{width: 224, height: 224}", "{width: 240, height: 226}", text=OWN_MODEL)
    only_problem(text, "a frame is 81360 bytes, not a multiple of 64", "aclrtMemcpyAsync", line=11)
    analyze_text(text.replace("height: 226", "height: 232"))  # 83,520 = 1,305 x 64: one copy per frame


# --- plan-time limits: streams, events, memory ------------------------------------------------


def test_streams_over_the_device_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    real = profiles.load("ascend310")
    small = real.model_copy(update={"limits": real.limits.model_copy(update={"max_streams": 16})})
    monkeypatch.setattr(profiles, "load", lambda name: small)
    # 4 device stages x 4 threads, and the model's one stream shared by the threads
    only_problem(BASE, "17 streams exceed the device's 16", line=4)


def test_events_over_the_device_limit() -> None:
    text = edit("{depth: 8}", "{depth: 128}")
    # per thread: 2 x (upload_dev 128 + decode_out 128 + resize_batch 8 + infer_out 8) = 544
    only_problem(
        text, "2688 events (672 per thread x 4 threads) exceed the device's 1023", "depth <= 48 or threads <= 1", line=6
    )
    analyze_text(text.replace("threads: 4", "threads: 1"))


def test_out_of_dvpp_memory_names_pool_and_fix() -> None:
    text = edit("{depth: 8}", "{depth: 128}", "threads: 4", "threads: 8", "per_stage", "per_thread")
    text = text.replace("buffers: {depth: 128}", "sync_every: 128").replace("max_bytes: 1MiB", "max_bytes: 75825")
    text = text.replace("batch: 16", "batch: 1")
    diag = only_problem(text, "out of DVPP memory on ascend310", line=10)
    assert "largest pool 'decode_out' is 2,359,328 B x 128 slots x 8 threads = 2,415,951,872 B" in diag.message
    assert "the budget is 2,415,919,104" in diag.message
    assert diag.message.endswith("every limit (memory, events, streams) is met with sync_every <= 120 or threads <= 7")


def test_a_depth_that_fits_memory_but_not_the_events_gets_one_hint_for_both() -> None:
    # 8 threads at depth 128 overflow DVPP memory (fine up to depth ~120) and the 1023 events
    # (fine up to depth 23): both errors give the one depth that meets every limit.
    text = edit("{depth: 8}", "{depth: 128}", "threads: 4", "threads: 8")
    found = problems(text)
    assert [d.message.split(":")[0].split(" on ")[0] for d in found] == [
        "5376 events (672 per thread x 8 threads) exceed the device's 1023; every limit (memory, events, streams) "
        "is met with buffers.depth <= 23 or threads <= 1",
        "out of DVPP memory",
    ]
    assert all(d.message.endswith("is met with buffers.depth <= 23 or threads <= 1") for d in found)
    analyze_text(text.replace("{depth: 128}", "{depth: 23}"))  # the hint is a valid plan
    with pytest.raises(SpecError):
        analyze_text(text.replace("{depth: 128}", "{depth: 24}"))


def test_out_of_device_memory() -> None:
    text = edit("reference: resnet50", "reference: resnet50, memory_bytes: 2GiB, instances: per_thread")
    # The models (2 GiB x 4 threads) are the largest use: the error points at the model stage.
    diag = only_problem(text, "out of device memory on ascend310", "the budget is 8,321,499,136", line=12)
    assert "model 'infer': 2,147,483,648 B x 4 instances (one per thread)" in diag.message
    assert diag.message.endswith("every limit (memory, events, streams) is met with threads <= 3")


def test_out_of_memory_whatever_the_depth_or_threads() -> None:
    text = edit("reference: resnet50", "reference: resnet50, memory_bytes: 9GiB")
    only_problem(text, "out of device memory", "; no depth or thread count meets every limit", line=12)


def test_all_problems_of_a_phase_are_reported_together() -> None:
    text = edit(
        "height: 1536", "height: 1535",
        "{width: 224, height: 224}", "{width: 225, height: 224}",
        "reference: resnet50", "reference: resnet_50, latency_ms: {8: 12.5}",
    )  # fmt: skip
    assert [d.position.line for d in problems(text)] == [10, 11, 12, 12]


def test_suggested_fix_fits() -> None:
    """The memory hint ("is met with sync_every <= 120") is itself a valid plan."""
    text = edit("{depth: 8}", "{depth: 120}", "threads: 4", "threads: 8", "per_stage", "per_thread")
    text = text.replace("buffers: {depth: 120}", "sync_every: 120").replace("max_bytes: 1MiB", "max_bytes: 75825")
    analyze_text(text.replace("batch: 16", "batch: 1"))
    with pytest.raises(SpecError):
        analyze_text(text.replace("batch: 16", "batch: 1").replace("sync_every: 120", "sync_every: 121"))
