"""The vpc_crop kind's C++ unit tests (templates/stages/vpc_crop.h, tests/stages/vpc_crop.cpp):
built with the system C++ compiler, plain and under ASan+UBSan, and run group by group."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.stages.header_tests import HEADER_VARIANTS, build_tests, run_group

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=HEADER_VARIANTS)
def vpc_crop_tests(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tests("vpc_crop.cpp", request.param, tmp_path_factory.mktemp(f"vpc-crop-{request.param}"))


@pytest.mark.parametrize("group", ["map", "snap", "reference"])
def test_group(vpc_crop_tests: Path, group: str) -> None:
    run_group(vpc_crop_tests, group)
