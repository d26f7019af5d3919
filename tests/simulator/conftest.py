"""Shared fixtures for the simulator's pytest tests.

``sim_build`` (session scope) is a function ``sim_build(variant="plain") -> Path``
that configures and builds the simulator (simulator/CMakeLists.txt: library
``acl_sim``, its ctest tests and the bench) once per session and returns the
build directory ``build/sim-<variant>``:

=========  ==========================================  ====================
variant    CMake                                       build directory
=========  ==========================================  ====================
plain      RelWithDebInfo                              build/sim-plain
asan       ``-DACL_SIM_SANITIZE=address`` (ASan+UBSan)   build/sim-asan
tsan       ``-DACL_SIM_SANITIZE=thread``                 build/sim-tsan
=========  ==========================================  ====================

Always Ninja and ``-j2`` (two shared cores). The returned directory holds
``libacl_sim.a``, ``tests/`` (sim_unit, sim_timing), ``bench/acl_sim_bench``
and ``profiles/ascend310.flat`` (the default profile baked into the library).
Other tests reuse it: ``def test_x(sim_build): build = sim_build("plain")``.
This name and return value are a stable interface.

The fixture skips when cmake or ninja is missing and fails (with the build
log) when the build fails. A file lock serialises concurrent builds of one
directory (e.g. under pytest-xdist).
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SIMULATOR = REPO / "simulator"
BUILD_ROOT = REPO / "build"

VARIANTS: dict[str, list[str]] = {
    "plain": [],
    "asan": ["-DACL_SIM_SANITIZE=address"],
    "tsan": ["-DACL_SIM_SANITIZE=thread"],
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
        pytest.skip("cmake and ninja are needed to build the simulator")
    build = BUILD_ROOT / f"sim-{variant}"
    build.mkdir(parents=True, exist_ok=True)
    with open(build / ".pytest-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (build / "build.ninja").exists():
            configure = ["cmake", "-S", str(SIMULATOR), "-B", str(build), "-G", "Ninja", *VARIANTS[variant]]
            _run(configure, f"configuring the {variant} simulator")
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
