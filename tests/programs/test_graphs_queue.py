"""The object queue of a graph program (templates/runtime/ascgen_objects.h): the objects of
consecutive detector batches share the model of objects' executions within max_queue_delay_us, and
the 310 example measured against the plan's prediction at 0, 1 and 8 objects a frame
(docs/graphs.md, "Measured against predicted"), in model time."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from build_dirs import TEST_BUILD
from program_harness import REPO, built, run_program

from tools.graphs.shared import plan_at

EXAMPLE = REPO / "pipelines" / "graphs" / "detect_classify_310.yaml"
SHAPES = {0: "shapes_vga_0obj", 1: "shapes_vga_1obj", 8: "shapes_vga_8obj"}


@pytest.fixture(scope="module")
def pictures(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    out = tmp_path_factory.mktemp("shapes")
    script = REPO / "pipelines" / "data" / "make_shapes.py"
    made = subprocess.run(
        [sys.executable, str(script), "--out", str(out / "made"), "--only", *SHAPES.values()],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    folders = {}
    for n, name in SHAPES.items():
        folders[n] = out / name
        folders[n].mkdir()
        shutil.copy(out / "made" / f"{name}.jpg", folders[n])
    return folders


def _executions(trace: Path, model: str) -> int:
    doc = json.loads(trace.read_text(encoding="utf-8"))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    return len({e["args"]["task"] for e in events if e.get("ph") == "X" and e.get("name") == f"model_{model}"})


def _queue_spec(delay_us: int) -> Path:
    """The 310 example with 8 frames in flight (two detector batches' pictures) and a queue delay."""
    text = EXAMPLE.read_text(encoding="utf-8")
    text = text.replace("buffers: {depth: 6}", "buffers: {depth: 8}").replace(
        "gears: [1, 2, 4, 8]}", f"gears: [1, 2, 4, 8], max_queue_delay_us: {delay_us}}}"
    )
    text = text.replace("../data/", f"{REPO / 'pipelines' / 'data'}/")
    name = f"detect_classify_queue_{delay_us}"
    spec = TEST_BUILD / "queue" / f"{name}.yaml"  # the suite's build folder (ASCGEN_TEST_BUILD)
    spec.parent.mkdir(parents=True, exist_ok=True)
    spec.write_text(text.replace("name: detect_classify_310", f"name: {name}"), encoding="utf-8")
    return spec


@pytest.mark.slow
@pytest.mark.parametrize(
    ("delay_us", "joined"),
    [
        (2_000_000, 2),  # the next batch comes within 2 s: two batches' 8 objects an execution, at gear 8
        (1000, 1),  # it comes tens of ms later: a batch's 4 objects wait 1 ms at most, then run at gear 4
    ],
)
def test_the_next_batchs_objects_join_an_execution_within_the_queue_delay(
    delay_us: int, joined: int, pictures: dict[int, Path], tmp_path: Path
) -> None:
    """1 object a frame, 4 frames a detector batch, 8 objects an execution, 8 frames in flight: the
    objects of the batches that come within the delay share an execution; a frame without objects
    still runs none."""
    result = built(_queue_spec(delay_us))
    assert result.plan.fanout is not None and result.plan.fanout.batches_joined == joined
    per_execution = 4 * joined
    for objects in (1, 0):
        trace = tmp_path / f"trace{objects}.json"
        run = run_program(
            result.binary, "--input", str(pictures[objects]), "--threads", "1", "--frames", "32", "--warmup", "0",
            cwd=tmp_path, env={"ACL_SIM_TRACE": str(trace)},
        )  # fmt: skip
        assert run.returncode == 0, run.stderr[-3000:]
        assert run.report is not None
        frames, executions = run.report["frames"], _executions(trace, "classify")
        if objects == 0:
            assert executions == 0
        else:  # each of per_execution objects; the run's last perhaps of 4 (its batch alone at the end)
            assert executions == -(-frames // per_execution), (frames, executions)


# On a clock 2x slower (model time, as docs/graphs.md measures), so that the host's CPU, which a busy
# machine takes, limits neither: not a timing test. 3 runs on a machine at load 7.6 to 9.0 (6 agents
# on 2 cores) measured 0.998, 0.999 and 0.939-0.940 of the plan at 0, 1 and 8 objects, as the real
# clock did on a quiet one with 1 + 3 s windows (the 0.94 at 8 objects is the plan's, every run).
TIME_SCALE = 2


@pytest.mark.slow
def test_the_310_example_measures_within_10_percent_of_the_plan(pictures: dict[int, Path], tmp_path: Path) -> None:
    result = built(EXAMPLE)
    for objects, folder in pictures.items():
        run = run_program(
            result.binary, "--input", str(folder), "--threads", str(result.plan.threads), "--warmup", "0.5",
            "--duration", "2", cwd=tmp_path, env={"ACL_SIM_TIME_SCALE": str(TIME_SCALE)},
        )  # fmt: skip
        assert run.returncode == 0, run.stderr[-3000:]
        assert run.report is not None
        measured = run.report["qps"] * TIME_SCALE  # frames per second of the simulated device's clock
        predicted = plan_at(EXAMPLE, objects).roofline_qps
        assert measured / predicted == pytest.approx(1.0, abs=0.10), (objects, measured, predicted)
