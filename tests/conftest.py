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
