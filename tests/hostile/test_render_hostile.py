"""Names and paths at the edge of what the spec types allow are rendered and compiled: if
validation lets a value through, the generated C++ and CMake must build and run with it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from build_dirs import TEST_BUILD
from harness import ROOT

# Stage names the generated code uses for locals, members or parameters (not namespace scope).
EDGE_STAGES = ["t", "slot", "frames"]
# Characters SafePath allows that shells or CMake might care about.
EDGE_FOLDER = "in put's & (x) é+=@,~"


@pytest.mark.slow
def test_edge_names_and_paths_compile_and_run(tmp_path: Path) -> None:
    from ascgen.codegen.build import build_variant

    data = tmp_path / EDGE_FOLDER
    shutil.copytree(ROOT / "pipelines" / "data" / "images", data / "images")
    spec = data / "edge spec.yaml"
    spec.write_text(
        f"""\
name: Edge_case_1
device: {{profile: ascend310}}
source: {{kind: jpeg_files, path: "images", max_bytes: 1MiB}}
threads: 1
stages:
  - {{name: {EDGE_STAGES[0]}, kind: h2d}}
  - {{name: {EDGE_STAGES[1]}, kind: jpeg_decode, max: {{width: 1024, height: 1536}}}}
""",
        encoding="utf-8",
    )
    binary = build_variant(spec, build_root=TEST_BUILD).binary
    proc = subprocess.run(
        [str(binary), "--duration", "0.2", "--warmup", "0", "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["program"] == "Edge_case_1" and report["frames"] > 0
