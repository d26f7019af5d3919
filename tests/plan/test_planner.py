"""The planner: buffer geometry, pools, batching, memory, model latency and the roofline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from specs import SEED_SPEC

from ascgen.cli import cli
from ascgen.dsl import profile as profiles
from ascgen.dsl.diagnostics import SpecError
from ascgen.dsl.parse import parse_text
from ascgen.pipeline import analyze_text
from ascgen.plan.geometry import allocation_bytes, yuv420sp
from ascgen.plan.model import Plan, PoolPlan, StagePlan
from ascgen.plan.planner import fits, largest_fitting, sub_buffer_stride
from ascgen.stages.model import ModelStage
from ascgen.stages.model import latency_ms as model_latency_ms
from ascgen.stages.registry import kind_of

ASCEND310 = profiles.load("ascend310")

# The seed workload: 1024x1536 JPEG -> JPEGD -> VPC 224x224 -> ResNet-50 at batch 16.
SEED = SEED_SPEC

# The hand-written baseline of issue 2: one stream per thread, 128 frames per sync, batch 1,
# buffers sized for the study's 75,825-byte JPEGs.
PER_THREAD = (
    SEED.replace("streams: per_stage", "streams: per_thread")
    .replace("buffers: {depth: 8}", "sync_every: 128")
    .replace("batch: 16", "batch: 1")
    .replace("max_bytes: 1MiB", "max_bytes: 75825")
)


def plan_of(text: str) -> Plan:
    return analyze_text(text)[1]


def pool(plan: Plan, name: str) -> PoolPlan:
    return next(p for p in plan.pools if p.name == name)


def stage(plan: Plan, name: str) -> StagePlan:
    return next(s for s in plan.stages if s.name == name)


# --- geometry --------------------------------------------------------------------------------


def test_jpegd_output_on_128x16_strides() -> None:
    g = yuv420sp("nv12", 1024, 1536, 128, 16)
    assert (g.width_stride, g.height_stride, g.bytes) == (1024, 1536, 2_359_296)
    g = yuv420sp("nv12", 1000, 1000, 128, 16)
    assert (g.width_stride, g.height_stride, g.bytes) == (1024, 1008, 1024 * 1008 * 3 // 2)


def test_vpc_output_on_16x2_strides() -> None:
    assert yuv420sp("nv12", 224, 224, 16, 2).bytes == 75_264
    assert yuv420sp("nv21", 240, 226, 16, 2).bytes == 81_360


def test_allocation_padding() -> None:
    assert allocation_bytes(2_359_296, 32, 32) == 2_359_328
    assert allocation_bytes(75_825, 32, 32) == 75_840 + 32


def test_seed_plan_geometry() -> None:
    plan = plan_of(SEED)
    decode, resize = stage(plan, "decode"), stage(plan, "resize")
    assert decode.output is not None and resize.output is not None
    assert (decode.output.width_stride, decode.output.height_stride, decode.output.bytes) == (1024, 1536, 2_359_296)
    assert (resize.output.width, resize.output.height, resize.output.bytes) == (224, 224, 75_264)
    assert [s.line for s in plan.stages] == [9, 10, 11, 12, 13, 14]
    assert plan.model is not None and plan.model.input_bytes == 16 * 75_264


def test_jpegd_stride_follows_the_profile() -> None:
    """1060 wide decodes onto a 1152 stride on the 310 (128-pixel alignment), 1088 on the 310P (64)."""
    text = SEED.replace("width: 1024, height: 1536", "width: 1060, height: 1536")
    assert stage(plan_of(text), "decode").output.width_stride == 1152  # type: ignore[union-attr]
    text310p = text.replace("profile: ascend310}", "profile: ascend310p}")
    assert stage(plan_of(text310p), "decode").output.width_stride == 1088  # type: ignore[union-attr]


# --- pools -----------------------------------------------------------------------------------


def test_per_stage_pools_hold_depth_frames_and_two_batches() -> None:
    plan = plan_of(SEED)
    slots = {p.name: (p.memory, p.per, p.slots) for p in plan.pools}
    assert slots == {
        "upload_host": ("host_pinned", "frame", 8),
        "upload_dev": ("dvpp", "frame", 8),
        "decode_out": ("dvpp", "frame", 8),
        "resize_out": ("dvpp", "frame", 8),
        "resize_batch": ("device", "batch", 2),
        "infer_out": ("device", "batch", 2),
        "fetch_host": ("host_pinned", "batch", 2),
    }
    decode = pool(plan, "decode_out")
    assert decode.alloc_bytes == 2_359_328 and decode.total_bytes == 2_359_328 * 8 * 4
    assert plan.streams_per_thread == 4 and plan.shared_streams == 1  # the model's stream serves every thread
    # one ring per waiter: the host on upload_host, then a data and a reuse ring per pool that
    # one stream writes and another reads (upload_dev, decode_out, resize_batch, infer_out)
    assert plan.events_per_thread == 8 + 2 * (8 + 8 + 2 + 2)


def test_per_thread_pools_hold_sync_every_frames() -> None:
    text = SEED.replace("streams: per_stage", "streams: per_thread").replace("buffers: {depth: 8}", "sync_every: 64")
    plan = plan_of(text)
    assert pool(plan, "decode_out").slots == 64
    assert pool(plan, "resize_batch").slots == 4  # 64 frames in flight = 4 batches of 16
    assert plan.streams_per_thread == 1 and plan.events_per_thread == 0
    assert any(b.name == "per_thread stream" for b in plan.bounds)


def test_per_stage_depth_override() -> None:
    plan = plan_of(SEED.replace("{depth: 8}", "{depth: 8, per_stage: {decode: 3}}"))
    assert pool(plan, "decode_out").slots == 3
    assert pool(plan, "upload_dev").slots == 8


def test_memory_totals_add_up() -> None:
    plan = plan_of(SEED)
    m = plan.memory
    dvpp = sum(p.total_bytes for p in plan.pools if p.memory == "dvpp")
    device = sum(p.total_bytes for p in plan.pools if p.memory == "device")
    assert m.dvpp_bytes == dvpp
    assert m.model_bytes == ASCEND310.models["resnet50"].memory_bytes  # one instance, shared by the threads
    per_thread = plan_of(SEED.replace("reference: resnet50", "reference: resnet50, instances: per_thread"))
    assert per_thread.memory.model_bytes == 4 * ASCEND310.models["resnet50"].memory_bytes
    assert m.device_bytes == dvpp + device + m.model_bytes
    assert m.device_budget_bytes == ASCEND310.memory.device_bytes - ASCEND310.memory.reserved_bytes
    assert m.dvpp_budget_bytes == ASCEND310.memory.dvpp_bytes


# --- the out-of-memory case of issue 2 --------------------------------------------------------


def test_seven_threads_at_128_frames_per_sync_fit() -> None:
    plan = plan_of(PER_THREAD.replace("threads: 4", "threads: 7"))
    assert plan.memory.dvpp_bytes <= plan.memory.dvpp_budget_bytes
    assert pool(plan, "decode_out").slots == 128


def test_eight_threads_at_128_frames_per_sync_do_not_fit() -> None:
    text = PER_THREAD.replace("threads: 4", "threads: 8")
    with pytest.raises(SpecError) as info:
        analyze_text(text)
    (diag,) = info.value.diagnostics
    assert "out of DVPP memory" in diag.message and "'decode_out'" in diag.message
    spec, _ = parse_text(text, "spec.yaml")
    assert not fits(spec, ASCEND310, 8, 128)
    assert fits(spec, ASCEND310, 7, 128)
    assert largest_fitting(spec, ASCEND310) == (120, 7)
    assert fits(spec, ASCEND310, 8, 120) and not fits(spec, ASCEND310, 8, 121)


# --- batching: in place only where the DVPP sub-buffer rule allows, else one copy per frame ----


def test_sub_buffer_stride_follows_the_documented_rule() -> None:
    # m = ALIGN_UP(len, 32) + 32, next start ALIGN_UP(m, 128) (ACL_FACTS 4, acldvppMalloc)
    assert sub_buffer_stride(75_264, ASCEND310) == 75_392
    assert sub_buffer_stride(128, ASCEND310) == 256
    assert sub_buffer_stride(1, ASCEND310) == 128


def test_seed_batches_are_assembled_by_copy_under_the_sub_buffer_rule() -> None:
    plan = plan_of(SEED)
    assert plan.batching.mode == "copy" and plan.batching.frame_bytes == 75_264  # 588 x 128
    assert "75392-byte stride" in plan.batching.why
    assert [(s.stage, s.action) for s in plan.steps][2:4] == [("resize", "stage"), ("resize", "assemble")]
    assert any(b.name.startswith("d2d") for b in plan.bounds)


def test_copy_batching_when_a_frame_breaks_the_alignment() -> None:
    # 240x232 is VPC-aligned (16x2) but 83,520 bytes = 652 x 128 + 64: frame 2 would start off the
    # 128-byte VPC output alignment (it keeps the 64-byte alignment of the assembling copies)
    text = SEED.replace("out: {width: 224, height: 224}", "out: {width: 240, height: 232}")
    plan = plan_of(text.replace("reference: resnet50", "latency_ms: 20.0"))  # ResNet-50 takes 224x224
    assert plan.batching.mode == "copy" and plan.batching.frame_bytes == 83_520
    assert pool(plan, "resize_out").memory == "dvpp" and pool(plan, "resize_out").per == "frame"
    assert pool(plan, "resize_batch").memory == "device" and pool(plan, "resize_batch").slot_bytes == 16 * 83_520
    assert any(b.name == "d2d (batch assembly)" for b in plan.bounds)


def test_no_batching_at_batch_one() -> None:
    assert plan_of(SEED.replace("batch: 16", "batch: 1")).batching.mode == "none"


# --- model latency and the roofline -----------------------------------------------------------


def _model(latency: str = "reference: resnet50") -> ModelStage:
    spec, _ = parse_text(SEED.replace("reference: resnet50", latency), "spec.yaml")
    model = spec.stages[3]
    assert isinstance(model, ModelStage)
    return model


def test_model_latency_from_the_reference_table() -> None:
    model = _model()
    assert model_latency_ms(model, ASCEND310, 16) == 21.78
    assert model_latency_ms(model, ASCEND310, 15) == pytest.approx((26.76 + 21.78) / 2)
    assert model_latency_ms(model, ASCEND310, 48) == pytest.approx(51.38 + (126.7 - 51.38) / 2)
    assert model_latency_ms(model, ASCEND310, 128) == pytest.approx(126.7 * 2)  # per item beyond the table


def test_model_latency_from_the_stage() -> None:
    assert model_latency_ms(_model("latency_ms: 7.5"), ASCEND310, 16) == 7.5
    table = _model("latency_ms: {1: 2.0, 8: 9.0}")
    assert model_latency_ms(table, ASCEND310, 4) == pytest.approx(5.0)
    assert model_latency_ms(table, ASCEND310, 16) == pytest.approx(18.0)


def test_only_instances_taking_turns_pay_the_switch() -> None:
    """One instance per thread: each execution follows another instance's and re-fills what it
    evicted (engines.aicore.switch_fraction); one thread, or one shared instance: no switch."""
    per_thread = SEED.replace("reference: resnet50", "reference: resnet50, instances: per_thread")
    switched = 21780.0 * (1 + ASCEND310.engines.aicore.switch_fraction)
    assert stage(plan_of(per_thread), "infer").service_us == pytest.approx(switched)
    assert stage(plan_of(per_thread.replace("threads: 4", "threads: 1")), "infer").service_us == pytest.approx(21780.0)
    assert stage(plan_of(SEED), "infer").service_us == pytest.approx(21780.0)  # auto: shared


def test_seed_roofline_is_the_ai_core_at_batch_16() -> None:
    plan = plan_of(SEED)
    assert plan.bottleneck == "aicore (infer)"
    # 4 threads feed the AI Core through one shared instance: no switch, the model alone's pace
    assert plan.roofline_qps == pytest.approx(16 * 1000 / 21.78)  # ~734.6 frames/s
    assert plan.roofline_qps == pytest.approx(734.6, abs=0.1)
    assert stage(plan, "infer").capacity_qps == pytest.approx(plan.roofline_qps)
    assert plan.roofline_qps == min(b.qps for b in plan.bounds)


def test_bottleneck_moves_to_jpegd_at_batch_one() -> None:
    """At batch 1 ResNet-50 runs 2.504 ms a frame (~399/s) on the AI Core: still the bottleneck;
    with a fast model the two JPEGD units (~760/s on 1024x1536) become it."""
    assert plan_of(SEED.replace("batch: 16", "batch: 1")).bottleneck == "aicore (infer)"
    fast = SEED.replace("reference: resnet50", "latency_ms: 1.0")
    plan = plan_of(fast)
    assert plan.bottleneck == "jpegd (decode)"
    assert plan.roofline_qps == pytest.approx(2 * 1e6 / (200 + 1545 * 1024 * 1536 / 1e6))


# --- plan --json -------------------------------------------------------------------------------


def test_plan_json_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "seed.yaml").write_text(SEED, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["plan", "--json", "seed.yaml"], prog_name="ascgen")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["roofline_qps"] == pytest.approx(734.619, abs=1e-3)
    assert doc["bottleneck"] == "aicore (infer)"
    assert [s["name"] for s in doc["stages"]] == ["upload", "decode", "resize", "infer", "fetch", "top5"]
    assert [s["kind"] for s in doc["stages"]] == ["h2d", "jpeg_decode", "vpc_resize", "model", "d2h", "topk"]
    assert all(s["capacity_qps"] > 0 for s in doc["stages"])
    assert {p["name"] for p in doc["pools"]} >= {"upload_dev", "decode_out", "resize_batch"}
    assert set(doc["pools"][0]) >= {"memory", "slot_bytes", "alloc_bytes", "slots", "threads", "total_bytes"}
    memory = doc["memory"]
    for key in ("device_bytes", "device_budget_bytes", "dvpp_bytes", "dvpp_budget_bytes"):
        assert isinstance(memory[key], int) and memory[key] > 0
    assert memory["dvpp_budget_bytes"] == 2_415_919_104


# --- vpc_letterbox ------------------------------------------------------------------------------

LETTERBOX = SEED.replace(
    "{name: resize, kind: vpc_resize, out: {width: 224, height: 224}}",
    "{name: resize, kind: vpc_letterbox, out: {width: 640, height: 640}, border: 114}",
).replace("reference: resnet50", "latency_ms: 20.0")


def test_letterbox_is_a_frame_maker_assembled_by_copy() -> None:
    plan = plan_of(LETTERBOX)
    assert stage(plan, "resize").output == yuv420sp("nv12", 640, 640, 16, 2)
    assert plan.batching.mode == "copy" and plan.batching.frame_bytes == 640 * 640 * 3 // 2
    assert pool(plan, "resize_batch").slot_bytes == 16 * 614_400


def test_letterbox_checks_its_scale_against_the_resize_ratio() -> None:
    # a 1024x1536 picture fitted into 16x16 shrinks 96 times, beyond VPC's 1/32
    text = LETTERBOX.replace("out: {width: 640, height: 640}", "out: {width: 16, height: 16}")
    with pytest.raises(SpecError) as info:
        analyze_text(text)
    assert any("outside VPC's 0.03125..16" in d.message for d in info.value.diagnostics)


# --- shared memory bandwidth ------------------------------------------------------------------


def test_memory_bandwidth_shared_by_the_engines_bounds_the_roofline(monkeypatch: pytest.MonkeyPatch) -> None:
    plan = plan_of(SEED)
    assert plan.uncontended_qps == plan.roofline_qps  # the seed's 25.6 MB/frame fit in 48 GB/s
    decode = stage(plan, "decode")
    assert decode.ddr_bytes_per_task == 75_825 + decode.output.bytes  # type: ignore[union-attr]
    slow = ASCEND310.model_copy(update={"memory": ASCEND310.memory.model_copy(update={"bandwidth_GBps": 8.0})})
    monkeypatch.setattr(profiles, "load", lambda name: slow)
    narrow = plan_of(SEED)
    assert narrow.bottleneck == "ddr bandwidth"
    assert narrow.roofline_qps == pytest.approx(8e9 / narrow.ddr_bytes_per_frame)
    assert narrow.uncontended_qps == pytest.approx(plan.uncontended_qps)


def test_letterbox_paste_left_offset_follows_the_profile() -> None:
    """Issue 27 item 2: the paste area's left offset is a multiple of 16 on the 310 (HIA
    aclcppdevg_03_0345), of nothing more than even on the 910B; the program gets it as a constant."""
    for profile, align in (("ascend310", 16), ("ascend910b", 1)):
        plan = plan_of(LETTERBOX.replace("profile: ascend310", f"profile: {profile}"))
        sp = stage(plan, "resize")
        consts = {c.name: c.value for c in kind_of(sp.stage).constants(sp, plan)}
        assert consts["kPasteLeftAlign"] == str(align), profile


def test_the_upload_slot_holds_the_8_bytes_jpegd_zeroes_after_eoi() -> None:
    """Issue 27 item 6: JPEGD zeroes the 8 bytes after the EOI marker in its input buffer
    (aclcppdevg_03_0169/0227), so the DVPP upload slot is sized with them explicitly."""
    plan = plan_of(SEED)
    host, dev = pool(plan, "upload_host"), pool(plan, "upload_dev")
    assert dev.slot_bytes == host.slot_bytes + 8


def test_a_model_of_several_inputs_and_outputs_is_described_and_checked() -> None:
    """Issue 27 item 5: extra_inputs / extra_outputs list the model's other tensors in its order;
    the plan, the simulated model's descriptor and the program's start-up check carry every one."""
    from ascgen.codegen.model_descriptor import descriptor_text

    text = SEED.replace("reference: resnet50}", "reference: resnet50, extra_inputs: [64], extra_outputs: [800, 200]}")
    plan = plan_of(text)
    assert plan.model is not None
    assert (plan.model.extra_input_bytes, plan.model.extra_output_bytes) == ([64], [800, 200])
    desc = descriptor_text(plan.model, "")
    assert "inputs=2\n" in desc and "input.1.bytes=64\n" in desc
    assert "outputs=3\n" in desc and "output.1.bytes=800\n" in desc and "output.2.bytes=200\n" in desc
    sp = stage(plan, "infer")
    consts = {c.name: c.value for c in kind_of(sp.stage).constants(sp, plan)}
    assert consts["kInputSizes[]"] == f"{{{sp.input.bytes}, 64}}"  # type: ignore[union-attr]
    assert consts["kOutputSizes[]"] == "{64000, 800, 200}" and consts["kGearInputs"] == "0"
    geared = text.replace("extra_inputs: [64]", "extra_inputs: [64], gears: [1, 16]")
    with pytest.raises(SpecError) as info:
        analyze_text(geared)
    line = next(n for n, t in enumerate(geared.splitlines(), 1) if "extra_inputs" in t)
    assert any(
        "extra_inputs with gears are not supported" in d.format() and f":{line}:" in d.format()
        for d in info.value.diagnostics
    ), [d.format() for d in info.value.diagnostics]
    with pytest.raises(SpecError) as info:
        analyze_text(text.replace("extra_outputs: [800, 200]", "extra_outputs: [800, 0]"))
    assert any("extra_outputs" in d.format() for d in info.value.diagnostics)
