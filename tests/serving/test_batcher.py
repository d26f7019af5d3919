"""The serving headers' C++ unit tests (templates/runtime/ascgen_batching.h, ascgen_batcher.h,
ascgen_loadgen.h, ascgen_serving_stats.h).

Builds tests/serving/*.cpp with the system C++ compiler into a temporary folder, plain and
under ASan+UBSan and TSan, and runs every test group in each build. The tests themselves
(the batcher's rule against a fake clock, the padding rule, the load generator's arrival
statistics) are in the .cpp files beside this one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ascgen.codegen.render import runtime_files

REPO = Path(__file__).resolve().parents[2]
SUPPORT = REPO / "templates" / "runtime"
HERE = Path(__file__).resolve().parent
# The tests, and the runtime's .cpp files that define what their headers declare.
SOURCES = sorted(HERE.glob("*.cpp")) + [
    SUPPORT / rel
    for rel in runtime_files(("ascgen_batcher.h", "ascgen_loadgen.h", "ascgen_serving_stats.h"))
    if rel.endswith(".cpp")
]
# -g1: line tables, all a sanitizer's report needs (file:line), at a quarter less compile time
# than full debug information.
FLAGS = ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-O1", "-g1", "-pthread"]
VARIANTS = {
    "plain": [],
    "asan": ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"],
    "tsan": ["-fsanitize=thread"],
}
RUN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0:halt_on_error=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
    "TSAN_OPTIONS": "halt_on_error=1:second_deadlock_stack=1",
}

pytestmark = pytest.mark.slow


def _compiler() -> str:
    cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    assert cxx, "no C++ compiler (run scripts/install.sh)"
    return cxx


@pytest.fixture(scope="module", params=sorted(VARIANTS))
def serving_tests(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    variant = request.param
    binary = tmp_path_factory.mktemp(f"serving-{variant}") / "serving_tests"
    cmd = [_compiler(), *FLAGS, *VARIANTS[variant], f"-I{SUPPORT}", *map(str, SOURCES), "-o", str(binary)]
    build = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert build.returncode == 0, f"{' '.join(cmd)}\n{build.stdout}{build.stderr}"
    return binary


@pytest.mark.parametrize("group", ["alloc", "batcher", "batcher_threads", "padding", "loadgen", "loadgen_threads"])
def test_group(serving_tests: Path, group: str) -> None:
    run = subprocess.run(
        [str(serving_tests), group],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **RUN_ENV},
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 failed" in run.stderr
