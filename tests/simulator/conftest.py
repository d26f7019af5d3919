"""Shared fixtures for the simulator's pytest tests.

``sim_build`` (session scope) is a function ``sim_build(variant="plain") -> Path``
that configures and builds the simulator (simulator/CMakeLists.txt: library
``acl_sim``, its ctest tests and the bench) once per session and returns the
build directory ``build-tests/sim-<variant>`` (tests/build_dirs.py: never the user's build/):

=========  ==========================================  ====================
variant    CMake                                       build directory
=========  ==========================================  ====================
plain      RelWithDebInfo                              build-tests/sim-plain
asan       ``-DACL_SIM_SANITIZE=address`` (ASan+UBSan)   build-tests/sim-asan
tsan       ``-DACL_SIM_SANITIZE=thread``                 build-tests/sim-tsan
=========  ==========================================  ====================

Always Ninja and ``-j2`` (two shared cores). The returned directory holds
``libacl_sim.a``, ``tests/`` (sim_unit, sim_timing, ...), ``bench/acl_sim_bench``
(plain only: the sanitizer variants skip the bench and the imaging gtest suite)
and ``profiles/ascend310.flat`` (the default profile baked into the library).
Other tests reuse it: ``def test_x(sim_build): build = sim_build("plain")``.
This name and return value are a stable interface.

``sim_clips`` (session scope) makes the VDEC test clips in pipelines/data/clips, the one folder
every variant's ctest reads (-DACL_SIM_TEST_CLIPS) and the programs' tests use too.

The fixture fails when cmake or ninja is missing (run scripts/install.sh) and (with the build
log) when the build fails. A file lock serialises concurrent builds of one
directory (e.g. under pytest-xdist).
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from build_dirs import TEST_BUILD

from ascgen.codegen.cache import locked

REPO = Path(__file__).resolve().parents[2]
SIMULATOR = REPO / "simulator"
BUILD_ROOT = TEST_BUILD

# The VDEC test clips of pipelines/data/make_clips.py: one folder for every variant's ctest and for
# the programs' tests (tests/programs/program_harness.py makes them there too, under the same lock),
# so that they are made once rather than once per build; each ctest's sim.vdec_clips then finds
# them whole and writes nothing.
CLIPS = REPO / "pipelines" / "data" / "clips"

# The imaging library's gtest suite and the bench build in the plain variant
# only: the sanitizer variants build just the library and the ctest programs.
_LEAN = ["-DACL_SIM_IMAGING_TESTS=OFF", "-DACL_SIM_BUILD_BENCH=OFF"]
_CLIPS = [f"-DACL_SIM_TEST_CLIPS={CLIPS}"]
VARIANTS: dict[str, list[str]] = {
    "plain": ["-DACL_SIM_IMAGING_TESTS=ON", "-DACL_SIM_BUILD_BENCH=ON", *_CLIPS],
    "asan": ["-DACL_SIM_SANITIZE=address", *_LEAN, *_CLIPS],
    "tsan": ["-DACL_SIM_SANITIZE=thread", *_LEAN, *_CLIPS],
}


def _run(cmd: list[str], what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        pytest.fail(f"{what} failed ({' '.join(cmd)}):\n{proc.stdout[-12000:]}\n{proc.stderr[-4000:]}")


def build_simulator(variant: str) -> Path:
    """Configures (if needed) and builds one variant; returns its build directory."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown simulator build variant {variant!r}; want one of {sorted(VARIANTS)}")
    if not shutil.which("cmake") or not shutil.which("ninja"):
        pytest.fail("cmake and ninja are needed to build the simulator: run scripts/install.sh")
    build = BUILD_ROOT / f"sim-{variant}"
    build.mkdir(parents=True, exist_ok=True)
    with open(build / ".pytest-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        # Re-configure when the variant's options changed since the last configure.
        stamp = build / ".pytest-configure-args"
        args = " ".join(VARIANTS[variant])
        if not (build / "build.ninja").exists() or not stamp.exists() or stamp.read_text() != args:
            configure = ["cmake", "-S", str(SIMULATOR), "-B", str(build), "-G", "Ninja", *VARIANTS[variant]]
            _run(configure, f"configuring the {variant} simulator")
            stamp.write_text(args)
        _run(["cmake", "--build", str(build), "-j2"], f"building the {variant} simulator")
    return build


@pytest.fixture(scope="session")
def sim_build() -> Iterator[Callable[[str], Path]]:
    built: dict[str, Path] = {}

    def get(variant: str = "plain") -> Path:
        if variant not in built:
            built[variant] = build_simulator(variant)
        return built[variant]

    yield get


@pytest.fixture(scope="session")
def sim_clips() -> Path:
    """The test clips in CLIPS, made (or found whole) under the folder's lock: another worker's
    programs may be reading or making them at the same time. Returns CLIPS."""
    with locked(CLIPS):
        _run([sys.executable, str(REPO / "pipelines" / "data" / "make_clips.py"), "--out", str(CLIPS)], "make_clips")
    return CLIPS
