"""Which CANN libraries the generated CMakeLists links (issue 27, item 8): NPU_HOST_LIB alone
when it is set; else the toolkit's link stubs before its lib64, as CANN's samples default
NPU_HOST_LIB to $DDK_PATH/runtime/lib64/stub (ACL_FACTS 6). Configure only: no compiler run
on main.cpp, no CANN headers needed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # CMake's configure compiles its compiler checks

REPO = Path(__file__).resolve().parents[2]
LIBS = ("libascendcl.so", "libacl_dvpp.so", "libmsprofiler.so")  # msprofiler: aclprof* (--profile)


def _libs(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for lib in LIBS:
        (folder / lib).write_bytes(b"")
    return folder


def _linked(tmp_path: Path, extra_env: dict[str, str]) -> dict[str, str]:
    root = tmp_path / "toolkit"
    _libs(root / "lib64")
    _libs(root / "runtime" / "lib64" / "stub")
    (root / "runtime" / "include").mkdir(parents=True)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DDK_PATH": str(root), **extra_env}
    build = tmp_path / "build"
    proc = subprocess.run(
        ["cmake", "-S", str(REPO / "generated" / "resnet50_b16"), "-B", str(build), "-G", "Ninja"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    cache = (build / "CMakeCache.txt").read_text().splitlines()
    found = {}
    for line in cache:
        for lib in ("ascendcl", "acl_dvpp", "msprofiler"):
            if line.startswith(f"ascgen_{lib}:"):
                found[lib] = line.split("=", 1)[1]
    return found


def test_the_stubs_come_before_lib64_without_npu_host_lib(tmp_path: Path) -> None:
    found = _linked(tmp_path, {})
    stub = tmp_path / "toolkit" / "runtime" / "lib64" / "stub"
    assert found == {lib: str(stub / f"lib{lib}.so") for lib in ("ascendcl", "acl_dvpp", "msprofiler")}


def test_npu_host_lib_alone_is_searched_when_set(tmp_path: Path) -> None:
    own = _libs(tmp_path / "own")
    found = _linked(tmp_path, {"NPU_HOST_LIB": str(own)})
    assert found == {lib: str(own / f"lib{lib}.so") for lib in ("ascendcl", "acl_dvpp", "msprofiler")}
