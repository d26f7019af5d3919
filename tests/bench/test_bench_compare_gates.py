"""compare refuses results it cannot trust (exit 2, one line) and gates p99 latency too (issue 20)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from bench_helpers import COMPARE
from click.testing import CliRunner, Result

from ascgen.cli import cli

BASE: dict[str, Any] = json.loads((COMPARE / "base.json").read_text())


def write(tmp_path: Path, doc: dict[str, Any] | str | bytes, name: str = "new.json") -> Path:
    path = tmp_path / name
    if isinstance(doc, bytes):
        path.write_bytes(doc)
    else:
        path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["compare", *args])


def edited(**changes: Any) -> dict[str, Any]:
    """base.json with summary[0]'s fields (or latency_ms's, as p99=...) replaced."""
    doc = copy.deepcopy(BASE)
    for key, value in changes.items():
        target = doc["summary"][0]["latency_ms"] if key in ("p50", "p90", "p99", "max") else doc["summary"][0]
        target[key] = value
    return doc


def nan_text(field: str, token: str) -> str:
    doc = edited(**{field: 123456.5})
    return json.dumps(doc).replace("123456.5", token)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (nan_text("qps_median", "NaN"), "finite number"),
        (nan_text("qps_median", "Infinity"), "finite number"),
        (nan_text("qps_median", "-Infinity"), "finite number"),
        (nan_text("p99", "NaN"), "finite number"),
        (nan_text("qps_cv", "NaN"), "finite number"),
        (json.dumps(edited(qps_cv=-0.5)), "greater than or equal to 0"),
        (json.dumps(edited(qps_min=900.0)), "not in order"),
        (json.dumps(edited(qps_median=-1.0)), "greater than or equal to 0"),
        (json.dumps({**BASE, "runs": [], "summary": []}), "holds no runs"),
        (json.dumps({**BASE, "runs": BASE["runs"][:1]}), "has no run behind it"),
        ("[" * 200_000, "nested too deeply"),
        ('{"runs": ' + "[" * 500 + "]" * 500 + "}", "schema_version"),
    ],
)
def test_untrustworthy_new_file_is_a_user_error(tmp_path: Path, text: str, words: str) -> None:
    result = run(str(COMPARE / "base.json"), str(write(tmp_path, text)))
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1, result.stderr
    assert words in result.stderr


def test_non_utf8_is_a_user_error(tmp_path: Path) -> None:
    result = run(str(COMPARE / "base.json"), str(write(tmp_path, b'{"runs": "\xff"}')))
    assert result.exit_code == 2
    assert "not UTF-8 text (byte 0xff" in result.stderr


def test_another_spec_is_refused_unless_asked(tmp_path: Path) -> None:
    doc = copy.deepcopy(BASE)
    doc["context"]["spec"] = "pipelines/decode_only.yaml"
    doc["context"]["spec_sha256"] = "1" * 64
    new = write(tmp_path, doc)
    result = run(str(COMPARE / "base.json"), str(new))
    assert result.exit_code == 2
    assert "another spec" in result.stderr and "--other-spec" in result.stderr
    assert run(str(COMPARE / "base.json"), str(new), "--other-spec").exit_code == 0


def test_the_same_spec_edited_is_comparable(tmp_path: Path) -> None:
    doc = copy.deepcopy(BASE)
    doc["context"]["spec_sha256"] = "1" * 64
    assert run(str(COMPARE / "base.json"), str(write(tmp_path, doc))).exit_code == 0


def _p99_scaled(factor: float) -> dict[str, Any]:
    doc = copy.deepcopy(BASE)
    for item in (*doc["runs"], *doc["summary"]):
        if item["threads"] == 2:
            item["latency_ms"]["p99"] *= factor
    return doc


def test_a_24_percent_p99_regression_fails_the_gate(tmp_path: Path) -> None:
    new = write(tmp_path, _p99_scaled(1.24))
    result = run(str(COMPARE / "base.json"), str(new))
    assert result.exit_code == 1, result.output
    assert "p99 regression: threads=2" in result.output
    assert "+24.0%" in result.output
    assert run(str(COMPARE / "base.json"), str(new), "--p99-threshold", "30").exit_code == 0


def test_a_p99_improvement_passes(tmp_path: Path) -> None:
    assert run(str(COMPARE / "base.json"), str(write(tmp_path, _p99_scaled(0.7)))).exit_code == 0


def test_the_qps_threshold_option(tmp_path: Path) -> None:
    slower = str(COMPARE / "slower.json")
    assert run(str(COMPARE / "base.json"), slower).exit_code == 1
    assert run(str(COMPARE / "base.json"), slower, "--threshold", "20", "--p99-threshold", "25").exit_code == 0


@pytest.mark.parametrize("value", ["-1", "nan", "abc"])
def test_bad_thresholds_are_usage_errors(value: str) -> None:
    base = str(COMPARE / "base.json")
    assert run(base, base, "--p99-threshold", value).exit_code == 2
