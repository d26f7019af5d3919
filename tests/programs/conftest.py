"""The programs the collected tests will run are built before the first of them, two at a time."""

from __future__ import annotations

from pathlib import Path

import pytest
from program_harness import prebuild


@pytest.fixture(scope="session", autouse=True)
def _programs_built_two_at_a_time(request: pytest.FixtureRequest) -> None:
    """Every (spec, sanitizer) that a collected test is parametrized with: test_programs,
    test_faults and test_sanitizers each build one program per spec, which would otherwise
    build one after the other with a core idle."""
    wanted: list[tuple[Path, str | None]] = []
    for item in request.session.items:
        params = getattr(item, "callspec", None)
        spec = params.params.get("spec") if params else None
        if isinstance(spec, Path) and item.get_closest_marker("slow"):
            wanted.append((spec, params.params.get("sanitize")))
    prebuild(wanted)
