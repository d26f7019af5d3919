"""Suite-wide settings for every program the tests start."""

import os
from typing import Any

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
    # The programs are compiled at -O1, not -O3 (ascgen.codegen.build.QUICK_ENV): a third less CPU
    # a program, ~65 programs a run. No test compares the host code of two builds; the rates the
    # tests measure are those of one build, on a simulated clock slowed so that the host's CPU
    # does not limit them.
    os.environ.setdefault("ASCGEN_QUICK_BUILDS", "1")
    # pytest-xdist's workers start with COLUMNS=80 and LINES=24 in their environment (seen with
    # 3.8) where the controlling process has none: the width of ascgen's tables (COLUMNS, else
    # 140 off a terminal: ascgen/common/console.py) must not depend on which process runs a test.
    if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("COLUMNS") == "80":
        os.environ.pop("COLUMNS")


# The longest units of work that build no example program, longest first (wall seconds on a fresh
# clone, 3 workers on 2 cores, in brackets). They start first, so that the short Python files fill
# the end of the run rather than one worker finishing a long file alone (it did: ctest[asan], the
# conformance build and the calibrate round trip, queued after tests/programs in file order, ran
# 55 s after the other workers had ended). The simulator's ctest suite under TSan leads (122 s: the
# simulator and its test programs to compile, then tests that mostly wait on model time); the
# simulator library it builds is the one the TSan builds of the programs link. The files of
# tests/programs follow, then the other files that build C++: the first file of tests/programs a
# worker runs builds that worker's share of every example program (tests/programs/conftest.py).
FIRST = (
    "tests/simulator/test_ctest.py::test_ctest[tsan]",  # [122]
    "tests/bench/test_bench_e2e.py",  # [97]
    "tests/simulator/test_ctest.py::test_ctest[asan]",  # [68]
    "tests/serving/test_batcher.py",  # [66]
    "tests/simulator/test_conformance.py",  # [50]
    "tests/transfers/test_calibrate.py",  # [40]
)
# Files whose tests are each a unit of work of their own for pytest-xdist (--dist loadfile
# gives a worker a whole file): the three builds of the simulator's ctest suite, so that the
# workers share them.
SPLIT_FILES = frozenset({"tests/simulator/test_ctest.py"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """FIRST, then the files of tests/programs, then the other files that build C++ (any test
    marked slow), then the rest, each file's tests in their order: on the workers of
    scripts/test.sh (pytest-xdist, a file to a worker, in this order with --no-loadscope-reorder)
    the long C++ files start early and the short Python files fill the end, so that no worker is
    left with a long file while the others have none."""
    building = {item.path for item in items if item.get_closest_marker("slow")}

    def rank(item: pytest.Item) -> tuple[int, int]:
        for unit in (item.nodeid, item.nodeid.split("::")[0]):
            if unit in FIRST:
                return (0, FIRST.index(unit))
        if item.path in building:
            return (1 if "tests/programs/" in item.nodeid else 2, 0)
        return (3, 0)

    items.sort(key=rank)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """--dist loadfile, except that each test of SPLIT_FILES is a unit of its own."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SplitFileScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return nodeid if scope in SPLIT_FILES else scope

    return SplitFileScheduling(config, log)
