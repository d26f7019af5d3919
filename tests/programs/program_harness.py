"""Builds of the example pipelines on the simulator (cached per session), and running them."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from build_dirs import TEST_BUILD

from ascgen.codegen.build import BuildResult, build_variant
from ascgen.codegen.cache import locked
from ascgen.codegen.generate import render_all
from ascgen.pipeline import analyze_file

REPO = Path(__file__).resolve().parents[2]
PIPELINES = sorted((REPO / "pipelines").rglob("*.yaml"))
BUILD_ROOT = TEST_BUILD


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    report: dict[str, Any] | None
    pid: int = 0  # the program's process id (names what it leaves in /dev/shm, e.g.)


_builds: dict[tuple[str, str | None], BuildResult] = {}
_variants: dict[tuple[str, ...], BuildResult] = {}  # configured builds (built(..., overrides))


CLIPS = REPO / "pipelines" / "data" / "clips"  # the video examples' clips, made here (not committed)


def make_clips() -> None:
    """The test clips of pipelines/data/make_clips.py in pipelines/data/clips (kept once made),
    under the folder's lock: the suite's workers (pytest-xdist) ask for them at once, and a clip
    half-written by one must never be read by another."""
    with locked(CLIPS):
        proc = subprocess.run(
            [sys.executable, str(REPO / "pipelines" / "data" / "make_clips.py"), "--out", str(CLIPS)],
            capture_output=True,
            text=True,
            check=False,
        )
    assert proc.returncode == 0, f"make_clips failed: {proc.stderr}"


def built(spec: Path, sanitize: str | None = None, overrides: dict[str, object] | None = None) -> BuildResult:
    """``spec``'s program (configured with ``overrides``: e.g. its other stream layout), built once."""
    if overrides:
        key = (str(spec), sanitize or "", *sorted(f"{k}={v}" for k, v in overrides.items()))
        if key not in _variants:
            _variants[key] = build_variant(spec, overrides, sanitize=sanitize, build_root=BUILD_ROOT)
        return _variants[key]
    key = (str(spec), sanitize)
    if "kind: video" in spec.read_text(encoding="utf-8"):
        make_clips()  # its input (kept once made)
    if key not in _builds:
        _builds[key] = build_variant(spec, sanitize=sanitize, build_root=BUILD_ROOT)
    return _builds[key]


def prebuild(wanted: list[tuple[Path, str | None]]) -> None:
    """Builds these programs two at a time. A generated program is one translation unit, so one
    build keeps one core busy; the simulator library each variant links is built once under a
    lock (ascgen.codegen.build.ensure_simulator). Under pytest-xdist each worker builds one at a
    time, the workers starting at different points of the list: a program folder is locked while
    it builds, so the second worker to reach it waits and then finds it built. A build that fails
    is left to the test that asks for it (``built`` builds it again and reports its error there)."""
    todo = sorted({(str(spec), sanitize) for spec, sanitize in wanted} - set(_builds), key=str)
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1 and todo:
        index = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")) % workers
        start = index * len(todo) // workers
        todo = todo[start:] + todo[:start]

    def build(key: tuple[str, str | None]) -> None:
        with contextlib.suppress(Exception):  # reported by the test's own built() call
            _builds[key] = build_variant(Path(key[0]), sanitize=key[1], build_root=BUILD_ROOT)

    with ThreadPoolExecutor(max_workers=1 if workers > 1 else 2) as pool:
        list(pool.map(build, todo))


def first_devices(result: BuildResult, n: int) -> list[str]:
    """Flags that run a program planned for several devices on its first n (one process each):
    what the long sweeps need, the parent's own behaviour has tests of its own (test_devices.py)."""
    ids = result.plan.deployment.device_ids
    return ["--devices", ",".join(str(d) for d in ids[:n])] if len(ids) > n else []


def run_program(
    binary: Path, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 300
) -> Run:
    if cwd is not None:
        cwd.mkdir(parents=True, exist_ok=True)
    json_path = (cwd or binary.parent) / f"{binary.name}.result.json"
    json_path.unlink(missing_ok=True)
    # The simulator's hazard detector is on for every run (ACL_SIM_HAZARD=0 in the caller's
    # environment turns it off): a race makes the program exit 86 naming both operations.
    full_env = {"ACL_SIM_HAZARD": "1", **os.environ, **(env or {})}
    with subprocess.Popen(
        [str(binary), *args, "--json", str(json_path), "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=full_env,
    ) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    report = json.loads(json_path.read_text()) if json_path.exists() else None
    return Run(proc.returncode, stdout, stderr, report, proc.pid)


# What a program exercises beyond the code every program shares: the AscendCL calls and the
# runtime and standard-library entry points its main.cpp names, whole (ascgen::detections::
# decode_yolo_raw is not decode_yolov3: the stage blocks expand there; the stream layout is one
# of the ascgen:: policies), the V2 media calls, and the run-time defaults it sets
# (several devices, a load to serve: paths of the shared runtime code).
_EXERCISED = re.compile(r"\b(?:acl\w+|hi_mpi_\w+|ascgen::\w+(?:::\w+)*|std::\w+|defaults\.\w+)\b")


def exercised(spec: Path, shape: bool = False) -> frozenset[str]:
    """The calls and support entry points that ``spec``'s generated main.cpp names; with
    ``shape``, also the program's shape: its stream layout, and its source kind with batch 1 or
    several. Names alone miss paths that take the same calls in another order (a server without
    batching meets a failing call at another moment than one with it)."""
    names, program_shape = _names_and_shape(spec)
    return names | program_shape if shape else names


@functools.cache
def _names_and_shape(spec: Path) -> tuple[frozenset[str], frozenset[str]]:
    """What ``exercised`` reads from ``spec``'s program, rendered once per process: every pytest
    process that collects tests/programs computes both coverings below at import."""
    _, plan = analyze_file(spec)
    name, files = next(iter(render_all([spec], Path("generated")).items()))
    del name
    batch = "1" if plan.batch == 1 else "n"
    shape = frozenset({f"streams={plan.streams}", f"source={plan.source.kind}/batch={batch}"})
    return frozenset(_EXERCISED.findall(files["main.cpp"])), shape


def covering(specs: list[Path], shape: bool = False) -> list[Path]:
    """A small subset of ``specs`` whose programs together exercise everything any of them does
    (``exercised``; with ``shape``, every program shape as well).

    Greedy set cover (the spec adding most not-yet-exercised names first, ties by path), so the
    sweeps that repeat a whole program many times (every injected fault, each sanitizer) reach
    every call site class without repeating the same code for every example. ASCGEN_ALL_SPECS=1
    (scripts/reliability.py sets it) runs them on every spec instead."""
    if os.environ.get("ASCGEN_ALL_SPECS") == "1":
        return list(specs)
    left = {spec: exercised(spec, shape) for spec in specs}
    todo = frozenset().union(*left.values())
    chosen: list[Path] = []
    while todo:
        best = max(sorted(left), key=lambda s: len(left[s] & todo))
        chosen.append(best)
        todo -= left.pop(best)
    return sorted(chosen)


# The sanitizers look for memory and thread faults at every call site class; injected faults
# are handled on paths whose order differs by program shape, so that sweep covers the shapes too.
REPRESENTATIVE = covering(PIPELINES)
REPRESENTATIVE_SHAPES = covering(PIPELINES, shape=True)
# A graph's baseline stream layout (per_thread: its object part on the worker's one stream, after
# each window's frames), which no example spec has: the 310 graph configured so (as bench sweeps it).
BASELINE_GRAPH: tuple[Path, dict[str, object]] = (
    REPO / "pipelines" / "graphs" / "detect_classify_310.yaml",
    {"streams": "per_thread", "sync_every": 8},
)
