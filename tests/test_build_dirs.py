"""The tests build in a folder of their own, never in the user's build/ (which ascgen build and
ascgen bench use): a test run must not fill or disturb it."""

from __future__ import annotations

import re

from build_dirs import REPO, TEST_BUILD


def test_the_test_build_folder_is_not_the_user_s() -> None:
    user = REPO.joinpath("build")
    assert user != TEST_BUILD and user not in TEST_BUILD.parents


def test_no_test_builds_under_build() -> None:
    """Every build folder of the tests derives from TEST_BUILD; none is the repository's build/."""
    offenders = [
        f"{path.relative_to(REPO)}:{n}"
        for path in sorted((REPO / "tests").rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"""(REPO|ROOT|parents\[\d\]) / ["']build["']""", line)
    ]
    assert offenders == []
