"""A service's plan: the batcher's configuration from the spec, the lowering that makes the
program a server, and the planner's prediction of batched against unbatched service."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascgen.codegen.lower import lower
from ascgen.codegen.render import render
from ascgen.dsl.diagnostics import SpecError
from ascgen.dsl.parse import parse_file
from ascgen.pipeline import analyze_data
from ascgen.plan.model import Plan
from ascgen.serving.device_costs import stream_tasks
from ascgen.serving.predict import padding_cost, predict
from ascgen.stages.model import hw_gear_output_item_bytes

REPO = Path(__file__).resolve().parents[2]
BATCHED = REPO / "pipelines" / "serving" / "resnet50_batched.yaml"
UNBATCHED = REPO / "pipelines" / "serving" / "resnet50_unbatched.yaml"


def plan_of(path: Path) -> Plan:
    spec, smap = parse_file(path)
    return analyze_data(spec, smap)


def padded_plan(tmp: Path) -> Plan:
    """The batched service with a model that has no gears: partial batches run padded."""
    text = BATCHED.read_text().replace(", gears: [1, 2, 4, 8, 16]", "")
    path = tmp / "padded.yaml"
    path.write_text(text)
    return plan_of(path)


@pytest.fixture(scope="module")
def batched() -> Plan:
    return plan_of(BATCHED)


@pytest.fixture(scope="module")
def unbatched() -> Plan:
    return plan_of(UNBATCHED)


def test_the_batcher_comes_from_the_spec(batched: Plan, unbatched: Plan) -> None:
    s = batched.serving
    assert s is not None
    assert (s.max_batch, s.preferred, s.max_queue_delay_us) == (16, [16], 2000)
    assert (s.queue_max_size, s.queue_timeout_us, s.queue_action) == (256, 1_000_000, "reject")
    assert s.partial == "gears" and s.gears == [1, 2, 4, 8, 16] and s.executed_batch == 16
    # two batches in flight per thread (per_stage batch rings), two threads
    assert (s.slots_per_thread, s.slots) == (2, 4)
    u = unbatched.serving
    assert u is not None and (u.max_batch, u.executed_batch, u.preferred) == (1, 1, [])
    assert u.slots == 2 * 8  # batch 1: one slot per frame of depth 8


def test_a_frame_pipeline_has_no_service() -> None:
    assert plan_of(REPO / "pipelines" / "resnet50_b16.yaml").serving is None


def test_the_server_closes_a_batch_at_its_last_request(batched: Plan, tmp_path: Path) -> None:
    files = render(lower(batched, tmp_path))
    main = files["main.cpp"]
    assert '#include "ascgen_serving.h"' in main and "ascgen::serving::serve_main<Worker>" in main
    assert "i == batch_last" in main and "program::kBatch - 1" not in main
    assert "batching.preferred = {16};" in main and "kReject" in main
    # the gear of each execute: the smallest that holds the batch's requests
    assert "aclmdlSetDynamicBatchSize" in main and "gear_for(infer::kGears, batch_last + 1)" in main
    assert "gears=1,2,4,8,16" in files["sim/resnet50_aipp.om.acl_sim_model"]
    assert {f"runtime/{h}" for h in ("ascgen_batcher.h", "ascgen_loadgen.h", "ascgen_serving.h")} <= set(files)
    frames = render(lower(plan_of(REPO / "pipelines" / "resnet50_b16.yaml"), tmp_path))
    assert "runtime/ascgen_serving.h" not in frames and "batch_last" not in frames["main.cpp"]


def test_padding_cost_is_the_empty_share_of_the_executed_batch(batched: Plan, unbatched: Plan, tmp_path: Path) -> None:
    assert padding_cost(batched) == [(3, 4, 0.25), (15, 16, 1 / 16)]  # at the gear that holds them
    padded = padding_cost(padded_plan(tmp_path))
    assert padded[0] == (1, 16, 1 - 1 / 16) and (8, 16, 0.5) in padded  # at the model's batch
    assert padding_cost(unbatched) == []


def test_one_client_waits_the_delay_then_runs_alone_through_every_stage(
    batched: Plan, unbatched: Plan, tmp_path: Path
) -> None:
    """One request at a time: its latency is the queue delay (batched: nothing else arrives)
    plus one service time per stage, the model at the batch it runs at: gear 1, or padded to 16,
    and each step's event tasks on its stream, one scheduler dispatch each."""
    padded = padded_plan(tmp_path)
    model_at_1 = unbatched.model.latency_ms if unbatched.model else 0
    for plan, delay_s, model_ms in ((batched, 2e-3, model_at_1), (padded, 2e-3, 21.78), (unbatched, 0.0, model_at_1)):
        others = sum(s.service_us for s in plan.stages if s.engine != "aicore")
        tasks = [stream_tasks(plan, s.name) for s in plan.stages]
        alone = delay_s + others / 1e6 + model_ms / 1e3 + sum(t.before_s + t.after_s for t in tasks)
        p = predict(plan, 1, requests=50, warmup=5)
        assert p.p50_ms == pytest.approx(alone * 1e3, rel=1e-6)
        assert p.qps == pytest.approx(1 / alone, rel=1e-6)
        assert p.mean_batch == 1


def test_batching_pays_under_load_only(batched: Plan, unbatched: Plan, tmp_path: Path) -> None:
    light = predict(batched, 1, requests=100, warmup=10), predict(unbatched, 1, requests=100, warmup=10)
    assert light[0].qps < light[1].qps and light[0].p50_ms > light[1].p50_ms  # the queue delay
    padded = predict(padded_plan(tmp_path), 1, requests=100, warmup=10)
    assert padded.qps < light[0].qps / 2  # a lone request padded to 16 costs 16's time
    heavy_b, heavy_u = predict(batched, 70, requests=1500), predict(unbatched, 70, requests=1500)
    assert heavy_b.mean_batch == pytest.approx(16)
    assert heavy_b.qps >= 1.5 * heavy_u.qps
    # each is held by its model's stream: the batch of 16 at 21.78 ms, or 1 at 2.504 ms, each
    # after its waits and before its records on that stream
    assert unbatched.model is not None
    tasks = stream_tasks(unbatched, unbatched.model.stage)
    assert heavy_b.qps == pytest.approx(16 / 21.78e-3, rel=0.01)
    assert heavy_u.qps == pytest.approx(1 / (2.504e-3 + tasks.before_s + tasks.after_s), rel=0.01)
    # a closed loop: Little's law ties the latency to the clients and the throughput
    assert heavy_u.p50_ms == pytest.approx(70 / heavy_u.qps * 1e3, rel=0.05)


TEXT_LINES = REPO / "pipelines" / "serving" / "textline_batched.yaml"


def test_requests_of_their_own_width_run_at_the_smallest_hw_gear_holding_the_batch(tmp_path: Path) -> None:
    plan = plan_of(TEXT_LINES)
    s, model = plan.serving, plan.model
    assert s is not None and model is not None
    assert s.hw_gears == [(32, 80), (32, 160), (32, 320)] == model.hw_gears
    # the model's time at a gear is its share of the largest gear's elements
    assert s.hw_gear_ms == pytest.approx([model.latency_ms / 4, model.latency_ms / 2, model.latency_ms])
    assert model.input_bytes == 8 * 32 * 320  # uint8 items of the largest gear
    files = render(lower(plan, tmp_path))
    assert "hw_gears=32x80,32x160,32x320" in files["sim/crnn_text.om.acl_sim_model"]
    main = files["main.cpp"]
    assert "kSourceKind" not in main and "ascgen::SourceKind::kRawFiles" in main
    assert "aclmdlSetDynamicHWSize" in main and "aclmdlSetDynamicBatchSize" not in main
    assert "dynamic_hw_input(recognize::kName" in main and "inspect_raw_request(recognize::kName" in main
    # the upload packs the batch's requests at the gear the model is set to, from the same shape
    assert main.count("hw_gear_for(") == 2 and "pack_padded(upload_host.slot(b)" in main
    assert "stages, hw_gears);" in main and "std::begin(recognize::kHwGears)" in main
    assert "runtime/ascgen_padding.h" in files


def _errors(text: str, tmp: Path) -> list[str]:
    path = tmp / "lines.yaml"
    path.write_text(text)
    try:
        plan_of(path)
    except SpecError as e:
        return [d.format() for d in e.sorted()]
    return []


@pytest.mark.parametrize(
    ("gears", "message"),
    [
        ("[[32, 160], [32, 80]]", "hw_gears must ascend"),
        ("[[32, 80], [32, 80]]", "hw_gears must ascend"),
        ("[[32, 80], [48, 160]]", "the gears must share one height, not [32, 48]"),
        ("[[32, 80], [32]]", "hw_gears.1: list should have at least 2 items"),
    ],
)
def test_hw_gears_are_checked_with_their_position(gears: str, message: str, tmp_path: Path) -> None:
    text = TEXT_LINES.read_text().replace("[[32, 80], [32, 160], [32, 320]]", gears)
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "hw_gears:" in t)
    errors = _errors(text, tmp_path)
    assert any(message in e and f":{line}:" in e for e in errors), errors


def test_hw_gears_need_raw_requests_and_raw_requests_need_hw_gears(tmp_path: Path) -> None:
    jpeg = _errors(TEXT_LINES.read_text().replace("format: raw, ", ""), tmp_path)
    assert any("hw_gears need requests of their own size" in e for e in jpeg), jpeg
    no_gears = TEXT_LINES.read_text().replace("    hw_gears: [[32, 80], [32, 160], [32, 320]]\n", "")
    errors = _errors(no_gears, tmp_path)
    assert any("the model needs hw_gears" in e and ":11:" in e for e in errors), errors
    frames = _errors(
        (REPO / "pipelines" / "resnet50_b16.yaml").read_text().replace("source: {", "source: {format: raw, "),
        tmp_path,
    )
    assert any("'format' says what a request carries" in e for e in frames), frames
    sized = _errors(
        TEXT_LINES.read_text().replace("    output_bytes:", "    input_bytes: 4096\n    output_bytes:"), tmp_path
    )
    assert any("input_bytes 4096 must be batch 8 x the largest gear's 10240 uint8 elements = 81920" in e for e in sized)


def test_an_output_that_follows_the_hw_gear_is_read_at_the_current_size(tmp_path: Path) -> None:
    """Issue 27 item 3: the text-line model's output is 80 time steps at width 320, 20 at 80: the
    descriptor says so, the program reads the current size after aclmdlSetDynamicHWSize
    (aclmdlGetCurOutputDims) and slices each batch's responses by it."""
    plan = plan_of(TEXT_LINES)
    assert plan.model is not None and plan.model.hw_scaled_output
    assert hw_gear_output_item_bytes(plan.model) == [2960, 5920, 11840]  # 20, 40, 80 x 37 x 4
    files = render(lower(plan, tmp_path))
    assert "output.0.hw_scaled=1" in files["sim/crnn_text.om.acl_sim_model"]
    main = files["main.cpp"]
    assert "current_output_item_bytes(recognize::kName" in main
    assert "return recognize_item_bytes[static_cast<size_t>(b % recognize_out.slots())];" in main
    unscaled = tmp_path / "unscaled.yaml"
    unscaled.write_text(TEXT_LINES.read_text().replace("hw_scaled_output: true", "hw_scaled_output: false"))
    fixed = plan_of(unscaled)
    assert fixed.model is not None and not fixed.model.hw_scaled_output
    assert "current_output_item_bytes" not in render(lower(fixed, tmp_path))["main.cpp"]


def test_an_output_that_follows_the_hw_gear_splits_into_floats_at_every_gear(tmp_path: Path) -> None:
    text = TEXT_LINES.read_text().replace("output_bytes: 94720", "output_bytes: 94728")
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "hw_scaled_output:" in t)
    errors = _errors(text, tmp_path)
    assert any("splits into whole float32 values" in e and f":{line}:" in e for e in errors), errors


def test_an_open_loop_below_capacity_is_served_as_it_arrives(batched: Plan) -> None:
    """200 requests/s, one every 5 ms, on a service that runs one in far less: each waits the
    queue delay and runs alone, nothing is refused."""
    p = predict(batched, 0, rate=200, requests=400, warmup=20)
    assert p.rate == 200 and p.clients == 0
    assert p.qps == pytest.approx(200, rel=0.01)
    assert p.mean_batch == pytest.approx(1.0, abs=0.05) and p.rejected == 0


def test_an_open_loop_above_capacity_fills_the_queue_and_is_refused(batched: Plan) -> None:
    """900 requests/s above what the batched service completes: full batches, the throughput
    is the service's, the queue (max_size 256, timeout 1 s, reject) refuses the rest, and a
    request waits about max_size / throughput."""
    assert batched.serving is not None
    cap = predict(batched, 70, requests=1500).qps
    p = predict(batched, 0, rate=900, requests=2000)
    assert p.qps == pytest.approx(cap, rel=0.05) and p.mean_batch == pytest.approx(16, abs=0.1)
    assert p.rejected == pytest.approx(1 - cap / 900, abs=0.05)
    assert p.p50_ms == pytest.approx(batched.serving.queue_max_size / cap * 1e3, rel=0.25)
    poisson = predict(batched, 0, rate=900, requests=1000, seed=1, poisson=True)
    assert poisson.qps == pytest.approx(cap, rel=0.05) and poisson.rejected > 0.05
    assert poisson != predict(batched, 0, rate=900, requests=1000, seed=1)
