"""Runs the simulator's ctest suite (simulator/tests) in each build variant."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["plain", "asan", "tsan"])
def test_ctest(variant: str, sim_build: Callable[[str], Path]) -> None:
    build = sim_build(variant)
    cmd = ["ctest", "--test-dir", str(build), "--output-on-failure", "-j2", "--timeout", "300"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, f"ctest failed in {build}:\n{proc.stdout[-20000:]}\n{proc.stderr[-4000:]}"
