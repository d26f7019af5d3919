"""Programs the flag cases run: the host-side driver (tests/hostile/host_driver.cpp, seconds to
compile) and the generated programs, built once per session in the tests' build folder, never in build/."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from build_dirs import TEST_BUILD
from harness import ROOT

from ascgen.codegen.render import runtime_files

RUNTIME = ROOT / "templates" / "runtime"
DRIVER_HEADERS = ("ascgen_inputs.h", "ascgen_json.h", "ascgen_options.h")  # what host_driver.cpp includes


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
            f"-I{RUNTIME}",
            str(Path(__file__).with_name("host_driver.cpp")),
            *(str(RUNTIME / rel) for rel in runtime_files(DRIVER_HEADERS) if rel.endswith(".cpp")),
            "-o",
            str(out),
        ],
        check=True,
        timeout=300,
    )
    return out


def _built(spec: str) -> Path:
    """A program built in the tests' own build folder (tests/build_dirs.py, one per checkout), so
    it shares the simulator build and the program builds of tests/programs instead of compiling
    them a second time."""
    from ascgen.codegen.build import build_variant

    return build_variant(ROOT / "pipelines" / spec, build_root=TEST_BUILD).binary


@pytest.fixture(scope="session")
def small_program() -> Path:
    return _built("decode_only.yaml")  # a frame program; --devices 0,1 makes it a deployment


@pytest.fixture(scope="session")
def server_program() -> Path:
    return _built("serving/textline_batched.yaml")  # a server with a batcher and an open loop


@pytest.fixture(scope="session")
def seed_program() -> Path:
    return _built("resnet50_b16.yaml")  # a frame program whose outputs --verify compares
