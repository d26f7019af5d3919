"""Programs the flag cases run: the host-side driver (tests/hostile/host_driver.cpp, seconds to
compile) and one small generated program, built once per session under the system's temporary
folder (reused by later sessions through the build cache), never in build/."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from harness import ROOT


@pytest.fixture(scope="session")
def host_driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("driver") / "host_driver"
    subprocess.run(
        [
            "c++",
            "-std=c++17",
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-pthread",
            f"-I{ROOT / 'templates' / 'runtime'}",
            str(Path(__file__).with_name("host_driver.cpp")),
            "-o",
            str(out),
        ],
        check=True,
        timeout=300,
    )
    return out


@pytest.fixture(scope="session")
def small_program() -> Path:
    from ascgen.codegen.build import build_variant

    root = Path(tempfile.gettempdir()) / f"ascgen-hostile-build-{os.getuid()}"
    return build_variant(ROOT / "pipelines" / "decode_only.yaml", build_root=root).binary
