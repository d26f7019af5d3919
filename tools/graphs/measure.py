"""The generated graph examples (pipelines/graphs/*.yaml) measured on the simulator at 0, 1 and 8
objects a frame (pipelines/data/make_shapes.py pictures), against the plan's prediction at the
same count: `python -m tools.graphs --measure` runs them (a few minutes: two builds, six runs of
a few seconds) and keeps what it found in docs/graphs/measured.json, which the page shows.
Measurements stay out of the test suite: a busy machine measures less."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ascgen.codegen.build import build_variant
from tools.graphs.page import DURATION_S, MEASURED, OBJECTS, ROOT, WARMUP_S, plan_at

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


def _run(binary: Path, folder: Path, threads: int, at: Path) -> dict[str, Any]:
    report = at / "report.json"
    subprocess.run(
        [str(binary), "--input", str(folder), "--threads", str(threads), "--warmup", str(WARMUP_S),
         "--duration", str(DURATION_S), "--json", str(report), "--quiet"],
        check=True, capture_output=True,
    )  # fmt: skip
    doc: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return doc


def measure() -> dict[str, object]:
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


def write() -> None:
    MEASURED.write_text(json.dumps(measure(), indent=2) + "\n", encoding="utf-8")
    print(f"wrote {MEASURED.relative_to(ROOT)}")
