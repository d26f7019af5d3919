"""The tests build in a folder of their own, never in the user's build/ (which ascgen build and
ascgen bench use): a test run must not fill or disturb it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from build_dirs import REPO, TEST_BUILD


def test_the_test_build_folder_is_not_the_user_s() -> None:
    user = REPO.joinpath("build")
    assert user != TEST_BUILD and user not in TEST_BUILD.parents


def test_builds_without_a_build_dir_go_to_the_tests_folder() -> None:
    """tests/conftest.py points the build cache at the tests' folder: a test that runs `ascgen
    build` or `bench` without --build-dir never fills the user's ~/.cache/ascgen."""
    from ascgen.codegen import cache

    assert cache.default_root() == TEST_BUILD


def test_no_test_builds_under_build() -> None:
    """Every build folder of the tests derives from TEST_BUILD; none is the repository's build/."""
    offenders = [
        f"{path.relative_to(REPO)}:{n}"
        for path in sorted((REPO / "tests").rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"""(REPO|ROOT|parents\[\d\]) / ["']build["']""", line)
    ]
    assert offenders == []


def test_a_simulator_build_of_another_checkout_is_configured_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build root shared between clones (the hostile tests' one in /tmp) holds a simulator
    configured from another checkout: it is wiped and configured from this one, never built as it
    is (that would install the other checkout's library and headers)."""
    from ascgen.codegen import build
    from ascgen.common.resources import simulator_dir

    base = tmp_path / "sim-plain"
    base.mkdir()
    (base / "CMakeCache.txt").write_text("CMAKE_HOME_DIRECTORY:INTERNAL=/elsewhere/simulator\n")
    (base / "build.ninja").write_text("# from the other checkout\n")
    (base / "CMakeFiles").mkdir()
    assert build.configured_source(base) == Path("/elsewhere/simulator").resolve()
    commands: list[list[str]] = []

    def run(cmd: list[str], *args: object, **kw: object) -> None:
        commands.append(cmd)
        if cmd[:2] == ["cmake", "--install"]:
            Path(cmd[-1]).mkdir(parents=True)

    monkeypatch.setattr(build, "_run", run)
    build.ensure_simulator(tmp_path, None)
    assert commands[0][:3] == ["cmake", "-G", "Ninja"] and str(simulator_dir()) in commands[0]
    assert not (base / "build.ninja").exists() and not (base / "CMakeFiles").exists()
    # Configured from this checkout: built as it is.
    (base / "CMakeCache.txt").write_text(f"CMAKE_HOME_DIRECTORY:INTERNAL={simulator_dir().resolve()}\n")
    (base / "build.ninja").write_text("# ours\n")
    commands.clear()
    shutil.rmtree(build.simulator_prefix(tmp_path, None))
    build.ensure_simulator(tmp_path, None)
    assert commands[0][:2] == ["cmake", "--build"] and (base / "build.ninja").exists()
