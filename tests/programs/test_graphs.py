"""The graph examples (pipelines/graphs/): detect -> crop -> classify, generated and run on the
simulator's detector over pipelines/data/make_shapes.py pictures (0, 1 and 8 objects). The join in
the reference run's report holds, for each input, its boxes in the picture's pixels (each a shape
drawn, of its class, within a tolerance) and each object's region (the box snapped to what the
device accepts: left/top even, right/bottom odd, inside the picture, holding the box), its crop's
distance from a CPU crop-and-resize of that region, and its top-k; --verify compares every
frame's detections and every object's scores with the reference run's; the report breaks each
frame's latency down by stage. A frame without objects runs no object work: the simulator's trace
holds no execution of the model of objects for it. Each holds for both stream layouts generated from
the one spec: per_stage (ours) and the baseline, per_thread (the study's hand-written style: each
thread's one stream, synchronised every window; its objects submitted on it after the frames),
by frame and by step."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from program_harness import REPO, built, run_program

SHAPES = ["shapes_vga_0obj", "shapes_vga_1obj", "shapes_vga_8obj"]
GRAPHS = [Path("pipelines/graphs/detect_classify_310.yaml"), Path("pipelines/graphs/detect_classify_310p.yaml")]
TOLERANCE = 2.0  # pixels of the detector's 416 x 416 input on each edge (as tests/programs/test_detections_truth.py)
SIDE = 416
K = 5  # the examples' top-k
# the stream layouts, as the spec configured (ascgen.dsl.configure: what bench and tune sweep)
LAYOUTS: dict[str, dict[str, object] | None] = {
    "per_stage": None,
    "per_thread": {"streams": "per_thread", "sync_every": 8},
    "per_thread_by_step": {"streams": "per_thread", "sync_every": 8, "submit": "by_step"},
}


@pytest.fixture(scope="module")
def pictures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shapes")
    script = REPO / "pipelines" / "data" / "make_shapes.py"
    made = subprocess.run(
        [sys.executable, str(script), "--out", str(out / "made"), "--only", *SHAPES],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    for name in SHAPES:  # one folder of all, and one per picture
        for folder in ("all", name):
            (out / folder).mkdir(exist_ok=True)
            shutil.copy(out / "made" / f"{name}.jpg", out / folder)
    return out


def _truth(pictures: Path, name: str) -> dict:  # type: ignore[type-arg]
    return json.loads((pictures / "made" / f"{name}.json").read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "layout"),
    [(GRAPHS[0], "per_stage"), (GRAPHS[1], "per_stage"), (GRAPHS[0], "per_thread"), (GRAPHS[1], "per_thread_by_step")],
    ids=lambda v: v.stem if isinstance(v, Path) else v,
)
def test_each_shape_is_found_cut_out_and_classified(spec: Path, layout: str, pictures: Path, tmp_path: Path) -> None:
    result = built(spec, overrides=LAYOUTS[layout])
    assert result.plan.streams == layout.removesuffix("_by_step")
    run = run_program(
        result.binary, "--input", str(pictures / "all"), "--threads", "2", "--frames", "48", "--warmup", "0",
        "--verify", cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.report is not None and run.report["verified"] is True
    found = {Path(r["input"]).name: r["found"] for r in run.report["results"]}
    assert sorted(found) == sorted(f"{name}.jpg" for name in SHAPES)
    for name in SHAPES:
        truth = _truth(pictures, name)
        width, height = truth["width"], truth["height"]
        scale = min(SIDE / width, SIDE / height)  # the letterbox's, to within a pixel
        joined = found[f"{name}.jpg"]
        boxes, objects = joined["boxes"], joined["objects"]
        assert len(boxes) == len(truth["objects"]) == len(objects), (name, joined)
        for obj in truth["objects"]:
            near = [
                b for b in boxes
                if b[0] == obj["class"] and max(abs(g - t) for g, t in zip(b[1:5], obj["box"], strict=True))
                <= (TOLERANCE + 1) / scale
            ]  # fmt: skip
            assert len(near) == 1, (name, obj, boxes)
        for box, o in zip(boxes, objects, strict=True):
            left, top, right, bottom = o["roi"]
            # the device's rules (ACL_FACTS 8): left/top even, right/bottom odd, 10x6 at least, inside
            assert left % 2 == 0 and top % 2 == 0 and right % 2 == 1 and bottom % 2 == 1, o
            assert right - left + 1 >= 10 and bottom - top + 1 >= 6 and right < width and bottom < height, o
            # the region holds the box (grown by the spec's expand 1.1, snapped outward)
            assert left <= box[1] + 1 and top <= box[2] + 1 and right >= box[3] - 1 and bottom >= box[4] - 1, (o, box)
            assert len(o["top"]) == K and len(set(o["top"])) == K and all(0 <= c < 1000 for c in o["top"])
            # --verify cut each crop out on the CPU too: the simulator's VPC is within a level of it
            # (the program's own tolerance, crop::kCropTolerance, is 2 levels: the device's filter differs)
            assert 0 <= o["crop_error"] <= 1.0, o


# the breakdown's parts: the stages' names (the frame part's stages on the device, the detections,
# the crops, the model of objects) and the parts no stage is (docs/graphs.md, the latency breakdown)
PARTS = ["queue", "upload", "decode", "fit", "detect", "fetch", "handoff", "boxes", "crops", "classify",
         "objects_queue", "join"]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("spec", GRAPHS, ids=lambda p: p.stem)
@pytest.mark.parametrize(("name", "objects"), [("shapes_vga_0obj", 0), ("shapes_vga_1obj", 1), ("shapes_vga_8obj", 8)])
def test_the_latency_breakdown_partitions_each_frame_and_times_each_object(
    spec: Path, name: str, objects: int, pictures: Path, tmp_path: Path
) -> None:
    result = built(spec)
    run = run_program(
        result.binary, "--input", str(pictures / name), "--threads", "2", "--frames", "48", "--warmup", "0",
        cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.report is not None
    # each frame's latency by stage, partitioning it: their means sum to the mean latency (read off
    # the histogram, whose buckets are within 1 % of their frames' latencies)
    breakdown = run.report["latency_breakdown_ms"]
    assert list(breakdown) == PARTS
    assert all(v >= 0 for v in breakdown.values()), breakdown
    histogram = run.report["latency_histogram_us"]
    mean_ms = sum(us * n for us, n in histogram) / sum(n for _, n in histogram) / 1000
    assert sum(breakdown.values()) == pytest.approx(mean_ms, rel=0.05), breakdown
    # the frame part's device stages took time (the decode and the detector most); the object part
    # only with objects
    assert breakdown["decode"] > 0.5 and breakdown["detect"] > 1, breakdown
    assert (breakdown["crops"] > 0 and breakdown["classify"] > breakdown["crops"]) == (objects > 0), breakdown
    # each object's latency: from its crop call submitted, and from its frame's arrival, to its scores
    timed = run.report["object_latency_ms"]
    assert timed["objects"] == run.report["frames"] * objects
    crop, arrival = timed["from_crop"], timed["from_arrival"]
    if objects:
        assert 0 < crop["p50"] <= crop["p99"] <= crop["max"] and 0 < arrival["p50"] <= arrival["p99"] <= arrival["max"]
        assert arrival["p50"] > crop["p50"] and crop["p50"] >= breakdown["classify"] * 0.5, (timed, breakdown)
    else:
        assert crop == arrival == {"p50": 0, "p99": 0, "max": 0}


def _executions(trace: Path, model: str) -> int:
    """Executions of `model` in the simulator's trace (each task once, whatever its tracks)."""
    doc = json.loads(trace.read_text(encoding="utf-8"))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    return len({e["args"]["task"] for e in events if e.get("ph") == "X" and e.get("name") == f"model_{model}"})


@pytest.mark.slow
@pytest.mark.parametrize(("name", "objects"), [("shapes_vga_0obj", 0), ("shapes_vga_1obj", 1), ("shapes_vga_8obj", 8)])
@pytest.mark.parametrize("layout", ["per_stage", "per_thread"])
def test_the_model_of_objects_runs_on_a_batchs_objects_and_never_without_them(
    name: str, objects: int, layout: str, pictures: Path, tmp_path: Path
) -> None:
    result = built(GRAPHS[0], overrides=LAYOUTS[layout])
    trace = tmp_path / "trace.json"
    run = run_program(
        result.binary, "--input", str(pictures / name), "--threads", "1", "--frames", "16", "--warmup", "0",
        cwd=tmp_path, env={"ACL_SIM_TRACE": str(trace)},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.report is not None
    frames = run.report["frames"]
    assert frames >= 16 and _executions(trace, "detect") == frames // result.plan.batch
    if layout == "per_stage":
        # a detector batch's objects (its 4 frames') in executions of up to 8 (the model's batch), no
        # wait for the next batch's (max_queue_delay_us 0): 0, 1 (at gear 4) and 4 (at gear 8) a batch
        assert _executions(trace, "classify") == frames // 4 * -(-objects * 4 // 8)
    else:  # the baseline batches objects per frame: 0, 1 and 1 a frame
        assert _executions(trace, "classify") == frames * -(-objects // 8)


@pytest.mark.slow
def test_fewer_frames_in_flight_than_a_batch_and_one_is_a_usage_error(pictures: Path, tmp_path: Path) -> None:
    result = built(GRAPHS[0])
    run = run_program(result.binary, "--input", str(pictures / "all"), "--depth", "4", "--frames", "8", cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    assert "--depth 4: a graph program needs at least the batch + 1 = 5 frames in flight" in run.stderr


@pytest.mark.slow
def test_the_start_up_check_counts_the_events_that_hold_each_decoded_picture(pictures: Path, tmp_path: Path) -> None:
    """The object part records an event per slot of the decoded pictures' pool after each frame's
    crops (ascgen_objects.h, crops_to_image): the start-up check of --threads and --depth counts
    them with the frame part's, so a run the device's 1023 synchronising events cannot hold is a
    usage error naming the numbers (exit 2), not an AscendCL failure at set-up (exit 3).
    At depth 16 a worker has 116 events (16 of them the hold's, 4 to and from the AI Core's
    stream): 8 workers fit, 9 do not."""
    binary = built(GRAPHS[0]).binary
    frames = ("--input", str(pictures / "all"), "--depth", "16", "--frames", "8")
    run = run_program(binary, *frames, "--threads", "9", cwd=tmp_path)
    assert run.returncode == 2, run.stderr[-2000:]
    assert "--threads 9 with a window of 16 frames needs 1044 events, the device has 1023" in run.stderr
    assert run_program(binary, *frames, "--threads", "8", cwd=tmp_path).returncode == 0
