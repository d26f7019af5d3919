"""Programs the flag cases run: the host-side driver (tests/hostile/host_driver.cpp, seconds to
compile) and one small generated program, built once per session under the system's temporary
folder (reused by later sessions through the build cache), never in build/."""

from __future__ import annotations

import hashlib
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


def _built(spec: str) -> Path:
    """A program built under the system's temporary folder, one build root per checkout (two
    clones' simulators must not take turns rebuilding one folder)."""
    from ascgen.codegen.build import build_variant

    checkout = hashlib.sha256(str(ROOT).encode()).hexdigest()[:8]
    root = Path(tempfile.gettempdir()) / f"ascgen-hostile-build-{os.getuid()}-{checkout}"
    return build_variant(ROOT / "pipelines" / spec, build_root=root).binary


@pytest.fixture(scope="session")
def small_program() -> Path:
    return _built("decode_only.yaml")  # a frame program; --devices 0,1 makes it a deployment


@pytest.fixture(scope="session")
def server_program() -> Path:
    return _built("serving/textline_batched.yaml")  # a server with a batcher and an open loop


@pytest.fixture(scope="session")
def seed_program() -> Path:
    return _built("resnet50_b16.yaml")  # a frame program whose outputs --verify compares
