"""Fixtures of the tune tests: the bench tests' fake builder (around their fake program)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))

from bench_helpers import FakeBuilder


@pytest.fixture
def fake_builder(tmp_path: Path) -> FakeBuilder:
    (tmp_path / "bin").mkdir()
    return FakeBuilder(tmp_path / "bin")
