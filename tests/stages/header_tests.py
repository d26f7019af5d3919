"""Building and running a stage kind's C++ unit tests (a tests/stages/<kind>.cpp over its
templates/stages/<kind>.h): the system C++ compiler, plain or under ASan+UBSan, one group of
tests a run (tests/serving/check.h)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.serving.test_batcher import FLAGS, RUN_ENV, VARIANTS, _compiler

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
HEADER_VARIANTS = ["plain", "asan"]


def build_tests(source: str, variant: str, folder: Path) -> Path:
    """tests/stages/``source`` built into ``folder``; the binary's path."""
    binary = folder / Path(source).stem
    includes = [f"-I{REPO / 'templates' / 'stages'}", f"-I{REPO / 'tests' / 'serving'}"]
    cmd = [_compiler(), *FLAGS, *VARIANTS[variant], *includes, str(HERE / source), "-o", str(binary)]
    build = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert build.returncode == 0, f"{' '.join(cmd)}\n{build.stdout}{build.stderr}"
    return binary


def run_group(binary: Path, group: str) -> None:
    """Runs one group of the binary's tests; every one of them must pass."""
    run = subprocess.run(
        [str(binary), group], capture_output=True, text=True, timeout=120, env={**os.environ, **RUN_ENV}, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 failed" in run.stderr
