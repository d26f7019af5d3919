"""Runs the simulator's ctest suite (simulator/tests) in each build variant, and checks the
installed package works with find_package(acl_sim)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["plain", "asan", "tsan"])
def test_ctest(variant: str, sim_build: Callable[[str], Path], sim_clips: Path) -> None:
    build = sim_build(variant)  # its ctest finds the clips made in sim_clips, the variants' shared folder
    cmd = ["ctest", "--test-dir", str(build), "--output-on-failure", "-j2", "--timeout", "300"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, f"ctest failed in {build}:\n{proc.stdout[-20000:]}\n{proc.stderr[-4000:]}"


CONSUMER_CMAKE = """\
cmake_minimum_required(VERSION 3.16)
project(consumer CXX)
find_package(acl_sim REQUIRED)
add_executable(app main.cpp)
target_link_libraries(app PRIVATE acl_sim::acl_sim)
"""

CONSUMER_MAIN = """\
#include <cstdio>
#include "acl/acl.h"
#include "acl_sim/acl_sim.h"
int main() {
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) return 1;
  void* p = nullptr;
  if (aclrtMalloc(&p, 1024, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return 2;
  aclrtFree(p);
  std::printf("%s %d\\n", aclrtGetSocName(), ACL_SIM_ABI_VERSION);
  aclrtResetDevice(0);
  return aclFinalize();
}
"""


@pytest.mark.slow
def test_installed_package_works_with_find_package(sim_build: Callable[[str], Path], tmp_path: Path) -> None:
    build = sim_build("plain")
    prefix = tmp_path / "prefix"
    steps = [
        ["cmake", "--install", str(build), "--prefix", str(prefix)],
        ["cmake", "-S", str(tmp_path / "src"), "-B", str(tmp_path / "build"), "-G", "Ninja",
         f"-DCMAKE_PREFIX_PATH={prefix}"],
        ["cmake", "--build", str(tmp_path / "build")],
        [str(tmp_path / "build" / "app")],
    ]  # fmt: skip
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "CMakeLists.txt").write_text(CONSUMER_CMAKE)
    (tmp_path / "src" / "main.cpp").write_text(CONSUMER_MAIN)
    for cmd in steps:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
        assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}"
    assert proc.stdout.split() == ["Ascend310", "1"]
