"""The graph of a spec's stages (ascgen/plan/graph.py) and its checks (ascgen/checks/graph.py):
each check asserts the message and the position it points at; the plan holds the graph."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from specs import SEED_SPEC

from ascgen.checks.partial import semantic_diagnostics
from ascgen.cli import cli
from ascgen.dsl.configure import configure
from ascgen.dsl.diagnostics import SpecError
from ascgen.dsl.parse import parse_text
from ascgen.dsl.yaml_loader import load_text
from ascgen.pipeline import analyze_text

# Stage lines of SEED_SPEC: 9 upload, 10 decode, 11 resize, 12 infer, 13 fetch, 14 top5.
LINE = {"upload": 9, "decode": 10, "resize": 11, "infer": 12, "fetch": 13, "top5": 14}


def named(stage: str, ref: str, text: str = SEED_SPEC) -> str:
    """``text`` with stage ``stage`` reading ``ref`` (`from:` written first after its kind)."""
    marker = f"{{name: {stage}, kind: "
    start = text.index(marker) + len(marker)
    end = text.index(",", start) if text.index(",", start) < text.index("}", start) else text.index("}", start)
    return text[:end] + f", from: {ref}" + text[end:]


def messages(text: str) -> list[tuple[int, int, str]]:
    with pytest.raises(SpecError) as err:
        analyze_text(text)
    return [(d.position.line, d.position.col, d.message) for d in err.value.sorted()]


def column_of_from(text: str, stage: str) -> int:
    line = text.splitlines()[LINE[stage] - 1]
    return line.index("from: ") + len("from: ") + 1


def test_a_linear_spec_is_a_chain_from_the_source() -> None:
    _, plan = analyze_text(SEED_SPEC)
    edges = [(e.src, e.dst, e.port, e.flow, e.written) for e in plan.graph.edges]
    assert edges == [
        (None, "upload", "from", "jpeg", False),
        ("upload", "decode", "from", "jpeg", False),
        ("decode", "resize", "from", "image", False),
        ("resize", "infer", "from", "image", False),
        ("infer", "fetch", "from", "tensor", False),
        ("fetch", "top5", "from", "tensor", False),
    ]
    assert plan.graph.nodes == list(LINE)
    assert [e.src for e in plan.graph.inputs_of("infer")] == ["resize"]


def test_naming_the_stage_before_plans_the_same_pipeline() -> None:
    text = SEED_SPEC
    for stage, ref in (("decode", "upload"), ("resize", "decode"), ("top5", "fetch")):
        text = named(stage, ref, text)
    _, plan = analyze_text(text)
    _, seed = analyze_text(SEED_SPEC)
    assert [e.written for e in plan.graph.edges] == [False, True, True, False, False, True]
    assert [(e.src, e.dst, e.flow) for e in plan.graph.edges] == [(e.src, e.dst, e.flow) for e in seed.graph.edges]
    assert plan.pools == seed.pools and plan.steps == seed.steps and plan.roofline_qps == seed.roofline_qps


def test_a_tensor_source_flows_a_tensor() -> None:
    text = (
        "name: t\nsource: {kind: tensor, bytes: 602112}\nbatch: 4\nstages:\n"
        "  - {name: upload, kind: h2d}\n"
        "  - {name: infer, kind: model, path: m.om, latency_ms: 5, input_bytes: 2408448}\n"
        "  - {name: fetch, kind: d2h}\n"
    )
    _, plan = analyze_text(text)
    assert [e.flow for e in plan.graph.edges] == ["tensor", "tensor", "tensor"]


def test_unknown_reference_with_did_you_mean() -> None:
    text = named("fetch", "infr")
    assert messages(text) == [
        (13, column_of_from(text, "fetch"), "'from: infr' names no stage (did you mean 'infer'?)")
    ]


def test_unknown_reference_without_a_close_name_lists_the_stages() -> None:
    (msg,) = [m for _, _, m in messages(named("fetch", "zzz"))]
    assert msg == "'from: zzz' names no stage; the stages are decode, fetch, infer, resize, top5 or upload"


def test_a_loop_is_named_once_at_its_first_written_reference() -> None:
    text = named("decode", "infer")
    (found,) = messages(text)
    assert found[:2] == (10, column_of_from(text, "decode"))
    assert found[2].startswith("a cycle: 'decode' reads 'infer', 'infer' reads 'resize', 'resize' reads 'decode';")


def test_a_stage_that_reads_itself() -> None:
    (found,) = messages(named("fetch", "fetch"))
    assert found[2].startswith("a cycle: 'fetch' reads itself;")


def test_a_later_stage_without_a_loop() -> None:
    # resize reads fetch (written below), and fetch reads decode (above): a later stage, no loop
    text = named("decode", "upload", named("resize", "decode"))
    text = text.replace("{name: resize, kind: vpc_resize, from: decode", "{name: resize, kind: vpc_resize, from: fetch")
    text = named("fetch", "decode", text)
    found = messages(text)
    assert (11, column_of_from(text, "resize"), "'from: fetch' names a later stage (stage 5); a stage reads a "
            "stage written above it: move 'fetch' above 'resize'") in found  # fmt: skip


def test_a_tensor_where_an_image_is_needed() -> None:
    text = SEED_SPEC.replace(
        "  - {name: fetch, kind: d2h}\n",
        "  - {name: small, kind: vpc_resize, from: infer, out: {width: 112, height: 112}}\n"
        "  - {name: fetch, kind: d2h}\n",
    )
    assert [m for _, _, m in messages(text)] == [
        "a vpc_resize stage cannot read 'infer' (a model stage: a tensor); it takes its input from jpeg_decode or vdec"
    ]


def test_an_image_where_a_jpeg_is_needed() -> None:
    text = SEED_SPEC.replace("{name: resize, kind: vpc_resize,", "{name: again, kind: jpeg_decode, from: decode, "
                             "max: {width: 1024, height: 1536}}\n  - {name: resize, kind: vpc_resize,")  # fmt: skip
    found = [m for _, _, m in messages(text)]
    assert (
        "a jpeg_decode stage cannot read 'decode' (a jpeg_decode stage: an image); it takes its input from h2d" in found
    )


def test_a_branch_is_not_planned_yet() -> None:
    (found,) = messages(named("fetch", "resize"))
    assert "ascgen plans a chain of stages so far" in found[2] and found[2].endswith("('infer')")


def test_default_edges_keep_the_stage_order_message() -> None:
    text = SEED_SPEC.replace("  - {name: fetch, kind: d2h}\n", "")
    assert [m for _, _, m in messages(text)] == [
        "a topk stage cannot come after a model stage; it takes its input from d2h"
    ]


def test_references_are_judged_when_the_schema_fails() -> None:
    text = named("fetch", "infr").replace("k: 5}", "k: 5, colour: red}")
    spec_data, smap = load_text(text, "spec.yaml")
    found = [d.message for d in semantic_diagnostics(spec_data, smap)]
    assert "'from: infr' names no stage (did you mean 'infer'?)" in found


def test_a_broken_stage_keeps_its_reference() -> None:
    # fetch fails its schema, but what it reads is still judged: a loop through it
    text = named("decode", "fetch", named("fetch", "decode")).replace("kind: d2h", "kind: d2h, colour: red")
    spec_data, smap = load_text(text, "spec.yaml")
    found = [d.message for d in semantic_diagnostics(spec_data, smap)]
    assert any(m.startswith("a cycle: 'decode' reads 'fetch', 'fetch' reads 'decode';") for m in found)


def test_a_spec_with_references_survives_configure() -> None:
    spec, _ = parse_text(named("decode", "upload"), "spec.yaml")
    again = configure(spec, {"threads": 2})
    assert again.stages[1].from_ == "upload" and again.threads == 2


def test_plan_json_has_the_edges(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "seed.yaml").write_text(named("decode", "upload"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["plan", "--json", "seed.yaml"], prog_name="ascgen")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["graph"]["edges"][1] == {
        "src": "upload",
        "dst": "decode",
        "port": "from",
        "flow": "jpeg",
        "written": True,
    }
    assert doc["stages"][1]["stage"]["from"] == "upload"


def test_plan_table_shows_the_graph(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "seed.yaml").write_text(SEED_SPEC, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["plan", "seed.yaml"], prog_name="ascgen", env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = [line for line in result.stdout.splitlines() if "│" in line][:6]
    cells = [[c.strip() for c in row.split("│")[1:5]] for row in rows]
    assert cells[0] == ["upload", "the source", "from", "jpeg"]
    assert cells[4] == ["fetch", "infer", "from", "tensor"]


# --- a crop of each detection: the `image` and `rois` inputs, a model of objects ---------------

CROPS = """\
name: crops
device: {profile: ascend310}
source: {kind: jpeg_files, path: data/images, max_bytes: 1MiB}
batch: 4
stages:
  - {name: upload, kind: h2d}
  - {name: decode, kind: jpeg_decode, max: {width: 1024, height: 1536}}
  - {name: fit, kind: vpc_letterbox, out: {width: 416, height: 416}}
  - {name: detect, kind: model, path: m/yolo.om, latency_ms: 30, output_bytes: 98304, extra_outputs: [128]}
  - {name: fetch, kind: d2h}
  - {name: boxes, kind: detections, format: yolov3_detection_output}
  - {name: crops, kind: vpc_crop, image: decode, out: {width: 224, height: 224}}
  - {name: classify, kind: model, path: m/r50.om, reference: resnet50, batch: 8, gears: [1, 8]}
  - {name: labels, kind: d2h}
"""


def test_a_crop_reads_its_boxes_before_it_and_its_picture_above() -> None:
    _, plan = analyze_text(CROPS)
    crop = [(e.src, e.port, e.flow, e.written) for e in plan.graph.inputs_of("crops")]
    assert crop == [("boxes", "rois", "boxes", False), ("decode", "image", "image", True)]
    assert [(e.src, e.flow) for e in plan.graph.inputs_of("classify")] == [("crops", "image")]


def test_stages_after_a_crop_work_on_objects() -> None:
    from ascgen.plan.graph import per_object

    spec, _ = parse_text(CROPS, "spec.yaml")
    assert per_object(spec) == [False] * 6 + [True] * 3


def test_a_crop_may_name_its_boxes_and_the_model_of_objects_checks_its_own_batch() -> None:
    text = CROPS.replace("image: decode,", "image: decode, rois: boxes,").replace("gears: [1, 8]", "gears: [1, 4]")
    assert messages(text) == [
        (13, 89, "gears must ascend, each once, and end with the model's batch 8 (the model's largest batch): "
         "e.g. [1, 2, 4, 8]"),
    ]  # fmt: skip


def test_a_crop_names_its_picture_and_reads_detections() -> None:
    text = CROPS.replace("image: decode, ", "").replace("format: yolov3_detection_output", "format: yolo_raw")
    text = text.replace("kind: detections, format: yolo_raw", "kind: topk, k: 1")
    got = [m for _, _, m in messages(text)]
    assert got[0].startswith("a vpc_crop stage needs 'image: <stage>': the decoded picture")
    assert got[1].startswith("a vpc_crop stage cannot come after a topk stage; it takes its rois from detections")


@pytest.mark.parametrize("command", ["validate", "plan", "generate"])
def test_a_graph_with_fewer_frames_in_flight_than_a_batch_and_one_is_refused_by_every_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """The depth floor of per_stage's object part is a check of the plan (the crop kind's
    check_planned): validate and plan say it as generate does, at buffers.depth. Left out, the
    depth is the batch + 1 (4 for other programs); per_thread holds no picture."""
    written = CROPS.replace("batch: 4\n", "batch: 4\nbuffers: {depth: 3}\n")
    (tmp_path / "written.yaml").write_text(written, encoding="utf-8")
    (tmp_path / "crops.yaml").write_text(CROPS, encoding="utf-8")
    baseline = CROPS.replace("batch: 4\n", "batch: 4\nstreams: per_thread\nsync_every: 4\n")
    (tmp_path / "baseline.yaml").write_text(baseline, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    extra = ["--out", "out"] if command == "generate" else []
    result = CliRunner().invoke(cli, [command, "written.yaml", *extra], prog_name="ascgen")
    assert result.exit_code == 2, result.output
    line = 1 + written.splitlines().index("buffers: {depth: 3}")
    assert (
        f"written.yaml:{line}:18: error: stage 'crops': the program holds each decoded picture until its batch of 4 "
        "frames is detected and its crops submitted, so frames in flight must be at least the batch + 1 = 5, not "
        "buffers.depth 3; set 'buffers: {depth: 5}' or more (or leave depth out: a graph's default is the batch + 1)"
    ) in result.stderr
    assert not (tmp_path / "out").exists()
    for ok in ("crops.yaml", "baseline.yaml"):
        result = CliRunner().invoke(cli, [command, ok, *extra], prog_name="ascgen")
        assert result.exit_code == 0, result.output


def test_a_graph_left_at_the_default_depth_runs_the_batch_and_one_frames_in_flight() -> None:
    assert analyze_text(CROPS)[1].depth == 5  # batch 4: the default 4 would be refused
    assert analyze_text(CROPS.replace("batch: 4\n", "batch: 4\nbuffers: {depth: 7}\n"))[1].depth == 7
    assert analyze_text(SEED_SPEC)[1].depth == 8  # not a graph: as written


def test_generate_writes_a_graph_on_the_per_thread_layout_with_its_object_part_on_the_worker_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the baseline: no picture held (buffers.depth below the batch + 1 means nothing to it)
    text = CROPS.replace("batch: 4\n", "batch: 4\nstreams: per_thread\nsync_every: 8\n")
    (tmp_path / "crops.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["generate", "crops.yaml", "--out", "out"], prog_name="ascgen")
    assert result.exit_code == 0, result.output
    main = (tmp_path / "out" / "crops" / "main.cpp").read_text(encoding="utf-8")
    assert "ascgen::run_main<Worker, ascgen::PerThreadLayout>" in main
    # its object part on the worker's one stream, executions too (with an instance of its own), and
    # no hold on the decoded picture's slots
    assert "completions, cleanup, {}, stream);" in main
    assert "wait_image" not in main and "crops_step" not in main and "objects_model" not in main


def test_generate_writes_a_graph_with_its_object_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "crops.yaml").write_text(CROPS.replace("batch: 4\n", "batch: 4\nbuffers: {depth: 5}\n"), "utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["generate", "crops.yaml", "--out", "out"], prog_name="ascgen")
    assert result.exit_code == 0, result.output
    main = (tmp_path / "out" / "crops" / "main.cpp").read_text(encoding="utf-8")
    # the object part: configured, given its pools, and holding the decoded picture's slots
    assert "constexpr ascgen::objects::Config kObjectPart" in main
    assert "objects_pools = {crops_out, crops_batch, classify_out, labels_host}" in main
    assert "if (f >= decode_out.slots()) objects.wait_image(f - decode_out.slots(), decode_stream);" in main
    # no step of it is chained to the frame's: the host submits it
    assert "crops_step" not in main and "classify_step" not in main
    # its executions on the AI Core's one stream, the detector's (one thread: shared all the same,
    # the object thread submits to it too), under its lock, with one instance loaded for every worker
    assert "{shared->detect_stream, &shared->detect_mu, &shared->objects_model});" in main
    assert "objects_model.load(kObjectPart, ASCGEN_OBJECTS_MODEL, cleanup);" in main
    assert main.count('"crops_to_aicore"') == main.count('"aicore_to_scores"') == 1  # counted by the start-up check
    assert (tmp_path / "out" / "crops" / "sim" / "r50.om.acl_sim_model").is_file()


def test_a_crop_naming_itself_as_its_picture_is_an_error_not_a_crash() -> None:
    text = CROPS.replace("image: decode,", "image: crops,")
    assert messages(text) == [(12, 42, "'image: crops' names the stage itself; a stage reads a stage written above it")]


def test_a_picture_written_as_a_number_is_one_schema_error() -> None:
    text = CROPS.replace("image: decode,", "image: 123,")
    spec_data, smap = load_text(text, "spec.yaml")
    diags = semantic_diagnostics(spec_data, smap)
    assert not any("needs 'image" in d.message for d in diags), [d.message for d in diags]


def test_an_unknown_key_lists_from_as_it_is_written() -> None:
    text = CROPS.replace("image: decode,", "image: decode, frmo: boxes,")
    with pytest.raises(SpecError) as err:
        parse_text(text, "spec.yaml")
    said = [d.message for d in err.value.diagnostics]
    assert said == ["unknown key 'frmo' (did you mean 'from'?)"], said
