"""The generated graph examples (pipelines/graphs/*.yaml) measured on the simulator at 0, 1 and 8
objects a frame (pipelines/data/make_shapes.py pictures), against the plan's prediction at the
same count: `python -m tools.graphs --measure` runs them (a few minutes: two builds, six runs of
a few seconds) and keeps what it found in docs/graphs/measured.json, which the page shows.
Measurements stay out of the test suite: a busy machine measures less.

It also compares the stream layouts (``compare``): each example at the objects a frame its spec
expects, at its best over the same small grid (threads x frames in flight) in both layouts built
from the one spec (ascgen.dsl.configure, as bench sweeps them): per_stage (ours; frames in flight
= --depth) and the baseline, per_thread by frame and by step (the study's hand-written style;
frames in flight = sync_every, its window), kept in docs/graphs/compared.json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ascgen.codegen.build import build_variant
from ascgen.dsl.parse import parse_file
from tools.graphs.shared import (
    COMPARED,
    DURATION_S,
    GRID_FRAMES,
    GRID_THREADS,
    MEASURED,
    OBJECTS,
    ROOT,
    TIME_SCALE,
    WARMUP_S,
    plan_at,
)

GRAPHS = ROOT / "pipelines" / "graphs"
SHAPES = {0: "shapes_vga_0obj", 1: "shapes_vga_1obj", 8: "shapes_vga_8obj"}


def _pictures(out: Path) -> dict[int, Path]:
    """A folder of one shapes picture per object count."""
    script = ROOT / "pipelines" / "data" / "make_shapes.py"
    subprocess.run([sys.executable, str(script), "--out", str(out), "--only", *SHAPES.values()], check=True)
    folders = {}
    for n, name in SHAPES.items():
        folders[n] = out / f"{n}"
        folders[n].mkdir()
        (folders[n] / f"{name}.jpg").write_bytes((out / f"{name}.jpg").read_bytes())
    return folders


def _run(
    binary: Path, folder: Path, threads: int, at: Path, *flags: str, env: dict[str, str] | None = None
) -> dict[str, Any]:
    report = at / "report.json"
    subprocess.run(
        [str(binary), "--input", str(folder), "--threads", str(threads), "--warmup", str(WARMUP_S),
         "--duration", str(DURATION_S), "--json", str(report), "--quiet", *flags],
        check=True, capture_output=True, env=env,
    )  # fmt: skip
    doc: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return doc


def measure() -> dict[str, object]:
    """Each example at 0, 1 and 8 objects a frame on the wall clock: the latency breakdown's parts the
    host times and those the device's timing marks time (model time) agree only without a time scale."""
    out: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folders = _pictures(Path(tmp) / "shapes")
        for spec in sorted(GRAPHS.glob("*.yaml")):
            built = build_variant(spec)
            rows = []
            for n in OBJECTS:
                report = _run(built.binary, folders[n], built.plan.threads, Path(tmp))
                rows.append({
                    "objects": n,
                    "predicted_qps": round(plan_at(spec, n).roofline_qps, 1),
                    "measured_qps": round(report["qps"], 1),
                    "latency_ms": round(report["latency_ms"]["p50"], 1),
                    "breakdown_ms": {k: round(v, 2) for k, v in report.get("latency_breakdown_ms", {}).items()},
                    "object_ms": {
                        k: round(v, 2) for k, v in report.get("object_latency_ms", {}).get("from_crop", {}).items()
                    },
                })  # fmt: skip
            out[built.plan.name] = {"spec": spec.relative_to(ROOT).as_posix(), "profile": built.plan.profile,
                                    "rows": rows}  # fmt: skip
    return out


# The layouts compared, as the spec configured: name -> (overrides but the frames in flight, whether
# the frames in flight are its sync_every (built in) rather than --depth (a run-time flag))
LAYOUTS: dict[str, tuple[dict[str, object], bool]] = {
    "per_stage": ({}, False),
    "per_thread by_frame": ({"streams": "per_thread", "submit": "by_frame"}, True),
    "per_thread by_step": ({"streams": "per_thread", "submit": "by_step"}, True),
}


def _layout_points(spec: Path, layout: str, folder: Path, at: Path) -> list[dict[str, object]]:
    """The layout's QPS (model time: ACL_SIM_TIME_SCALE) at each point of the grid."""
    overrides, built_in = LAYOUTS[layout]
    env = {**os.environ, "ACL_SIM_TIME_SCALE": f"{TIME_SCALE:g}"}
    points = []
    for frames in GRID_FRAMES:
        built = build_variant(spec, {**overrides, "sync_every": frames} if built_in else overrides or None)
        for threads in GRID_THREADS:
            flags = [] if built_in else ["--depth", str(frames)]
            point: dict[str, object] = {"threads": threads, "frames_in_flight": frames}
            try:
                report = _run(built.binary, folder, threads, at, *flags, env=env)
            except subprocess.CalledProcessError as exc:  # e.g. more events than the device has
                point["failed"] = exc.stderr.decode(errors="replace").strip().splitlines()[-1]
                points.append(point)
                continue
            assert report["frames_failed"] == 0, (spec, layout, frames, threads)
            points.append({**point, "qps": round(report["qps"] * TIME_SCALE, 1)})
    return points


def compare() -> dict[str, object]:
    """Each example at the objects its spec expects: every layout's points and best, and the plan's roofline."""
    out: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folders = _pictures(Path(tmp) / "shapes")
        for spec in sorted(GRAPHS.glob("*.yaml")):
            parsed, _ = parse_file(spec)
            objects = parsed.expect.objects_per_frame if parsed.expect else None
            assert objects in folders, f"{spec}: expects {objects} objects a frame; pictures of {sorted(folders)} only"
            plan = plan_at(spec, objects)
            layouts = {name: _layout_points(spec, name, folders[objects], Path(tmp)) for name in LAYOUTS}
            out[plan.name] = {
                "spec": spec.relative_to(ROOT).as_posix(), "profile": plan.profile, "objects": objects,
                "roofline_qps": round(plan.roofline_qps, 1), "bottleneck": plan.bottleneck, "layouts": layouts,
            }  # fmt: skip
    return out


def write(measured: bool = True) -> None:
    """docs/graphs/measured.json (unless not ``measured``: the comparison alone) and compared.json."""
    if measured:
        MEASURED.write_text(json.dumps(measure(), indent=2) + "\n", encoding="utf-8")
        print(f"wrote {MEASURED.relative_to(ROOT)}")
    COMPARED.write_text(json.dumps(compare(), indent=2) + "\n", encoding="utf-8")
    print(f"wrote {COMPARED.relative_to(ROOT)}")
