"""Suite-wide settings for every program the tests start."""

import os

import pytest
from build_dirs import TEST_BUILD


def pytest_configure(config: pytest.Config) -> None:
    # The simulator charges the profile's device-open time (engines.host.device_open_ms,
    # 0.8 s on ascend310) to a program's first aclrtSetDevice. The suite starts generated
    # programs hundreds of times and never measures start-up, so it skips that wait;
    # the simulator's own timing test (ctest sim.timing, timing.device_open) covers it.
    os.environ.setdefault("ACL_SIM_DEVICE_OPEN_MS", "0")
    # Builds that name no --build-dir (ascgen build, bench, tune in a subprocess or CliRunner) go
    # to the tests' own folder, never the user's build cache (~/.cache/ascgen).
    os.environ["ASCGEN_CACHE_DIR"] = str(TEST_BUILD)
    # pytest-xdist's workers start with COLUMNS=80 and LINES=24 in their environment (seen with
    # 3.8) where the controlling process has none: the width of ascgen's tables (COLUMNS, else
    # 140 off a terminal: ascgen/common/console.py) must not depend on which process runs a test.
    if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("COLUMNS") == "80":
        os.environ.pop("COLUMNS")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The files that build C++ (any test marked slow) run first, each file's tests in their
    order: on the two workers of scripts/test.sh (pytest-xdist, a file to a worker, in this
    order with --no-loadscope-reorder) the long C++ files start early and the short Python
    files fill the end, so neither worker is left with a long file while the other has none."""
    building = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in building)
