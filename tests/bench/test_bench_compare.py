"""Two results files compared, on checked-in fixtures (regenerate them with
tests/fixtures/bench/make_compare_fixtures.py)."""

from __future__ import annotations

import math

import pytest
from bench_helpers import COMPARE
from click.testing import CliRunner

from ascgen.bench.compare import MIN_THRESHOLD, compare, noise, threshold, verdict
from ascgen.bench.schema import load_results
from ascgen.cli import cli

base = load_results(COMPARE / "base.json")


def verdicts(name: str) -> dict[int, str]:
    result = compare(base, load_results(COMPARE / f"{name}.json"))
    return {r.config.threads: r.verdict for r in result.rows}


def test_every_checked_in_fixture_is_a_valid_results_file() -> None:
    for path in sorted(COMPARE.glob("*.json")):
        assert load_results(path).runs, path


def test_identical_files_are_within_noise() -> None:
    result = compare(base, base)
    assert {r.verdict for r in result.rows} == {"within noise"}
    assert [r.ratio for r in result.rows] == [1.0, 1.0, 1.0]
    assert not result.only_old and not result.only_new and not result.context_changes


def test_faster() -> None:
    assert verdicts("faster") == {1: "within noise", 2: "within noise", 4: "faster"}


def test_slower() -> None:
    result = compare(base, load_results(COMPARE / "slower.json"))
    (row,) = result.slower
    assert row.config.threads == 4
    assert row.ratio == pytest.approx(0.85)
    assert row.threshold == MIN_THRESHOLD


def test_a_drop_inside_the_noise_is_not_a_regression() -> None:
    result = compare(base, load_results(COMPARE / "noisy.json"))
    row = next(r for r in result.rows if r.config.threads == 4)
    assert row.ratio == pytest.approx(0.92)
    assert row.threshold > 0.08  # 3 x pooled CV of ~1 % and ~6 %
    assert row.verdict == "within noise"


def test_missing_points_are_listed_both_ways() -> None:
    result = compare(base, load_results(COMPARE / "missing.json"))
    assert [c.threads for c in result.only_old] == [1]
    assert [c.threads for c in result.only_new] == [8]
    assert [r.config.threads for r in result.rows] == [2, 4]


def test_single_repeat_noise_comes_from_the_windows() -> None:
    single = load_results(COMPARE / "single.json")
    summary = single.summary[0]
    assert summary.qps_cv is None
    run = single.runs[0]
    assert noise(summary, single.runs) == pytest.approx((run.window_cv or 0) / math.sqrt(len(run.windows_qps)))


def test_threshold_and_verdict() -> None:
    assert threshold(0.0, 0.0) == MIN_THRESHOLD
    assert threshold(0.03, 0.05) == pytest.approx(3 * math.sqrt((0.03**2 + 0.05**2) / 2))
    assert verdict(1.06, 0.05) == "faster"
    assert verdict(0.94, 0.05) == "slower"
    assert verdict(0.96, 0.05) == "within noise"


def test_context_changes_are_reported() -> None:
    other = base.model_copy(update={"context": base.context.model_copy(update={"host": "other-host"})})
    assert compare(base, other).context_changes == ["host: bench-host -> other-host"]


@pytest.mark.parametrize(("name", "code"), [("faster", 0), ("noisy", 0), ("missing", 1), ("slower", 1)])
def test_compare_command_exit_codes(name: str, code: int) -> None:
    result = CliRunner().invoke(cli, ["compare", str(COMPARE / "base.json"), str(COMPARE / f"{name}.json")])
    assert result.exit_code == code, result.output
    if name == "slower":
        assert "0 faster, 1 slower, 2 within noise" in result.output
    if name == "missing":
        assert "missing in" in result.output and "threads=1 depth=8" in result.output
        assert "nothing to compare with): threads=8 depth=8" in result.output
        assert "2 of" in result.output and "3 configurations matched" in result.output


def test_compare_command_refuses_a_file_that_is_not_results() -> None:
    result = CliRunner().invoke(cli, ["compare", str(COMPARE / "base.json"), __file__])
    assert result.exit_code == 2
    assert "not JSON" in result.output
