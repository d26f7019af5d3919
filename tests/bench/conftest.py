"""Fixtures of the bench tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_helpers import FakeBuilder


@pytest.fixture
def fake_builder(tmp_path: Path) -> FakeBuilder:
    (tmp_path / "bin").mkdir()
    return FakeBuilder(tmp_path / "bin")
