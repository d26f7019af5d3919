"""compare as a CI gate (issue 31 item 2): points match on every configuration key, a share of
the baseline must match (--min-matched), and the comparison is written as JSON and Markdown."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from bench_helpers import COMPARE
from click.testing import CliRunner, Result

from ascgen.bench.compare import compare
from ascgen.bench.schema import BenchResults, load_results
from ascgen.cli import cli

BASE: dict[str, Any] = json.loads((COMPARE / "base.json").read_text())


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["compare", *args], terminal_width=80)


def with_keys(**keys: Any) -> dict[str, Any]:
    """base.json with every run and summary given ``keys`` (a server's load, devices, ...)."""
    doc = copy.deepcopy(BASE)
    for record in [*doc["runs"], *doc["summary"]]:
        record.update(keys)
    return doc


def write(tmp_path: Path, doc: dict[str, Any], name: str) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    "keys",
    [{"devices": "0,1"}, {"deploy": "threads"}, {"clients": 8}, {"rate": 900.0}],
)
def test_points_differing_in_any_configuration_key_do_not_match(keys: dict[str, Any]) -> None:
    base = BenchResults.model_validate(BASE)
    other = BenchResults.model_validate(with_keys(**keys))
    result = compare(base, other)
    assert result.rows == [] and result.matched == 0.0
    assert len(result.only_old) == len(result.only_new) == 3


def test_two_unrelated_results_exit_1(tmp_path: Path) -> None:
    """A server measured at other rates than the baseline: nothing in common, the gate fails."""
    old = write(tmp_path, with_keys(rate=300.0), "old.json")
    new = write(tmp_path, with_keys(rate=900.0), "new.json")
    result = run(str(old), str(new))
    assert result.exit_code == 1, result.output
    assert "nothing compared" in result.output
    assert "0 compared (0 of the baseline's 3 matched)" in result.output


def test_min_matched_is_the_share_of_the_baseline_that_must_match() -> None:
    """missing.json lacks one of base.json's three points: 67 % matched."""
    old, new = str(COMPARE / "base.json"), str(COMPARE / "missing.json")
    default = run(old, new)
    assert default.exit_code == 1
    assert "2 of" in default.output and "(67%), --min-matched asks 100%" in default.output
    assert run(old, new, "--min-matched", "60").exit_code == 0
    assert run(old, new, "--min-matched", "70").exit_code == 1
    # NEW's extra point does not count: the baseline is OLD
    assert load_results(COMPARE / "missing.json") is not None
    assert run(new, old, "--min-matched", "100").exit_code == 1  # missing's 8-thread point is not in base


def test_json_and_markdown_outputs_say_what_the_gate_decided(tmp_path: Path) -> None:
    old, new = str(COMPARE / "base.json"), str(COMPARE / "slower.json")
    result = run(old, new, "--json", str(tmp_path / "c.json"), "--markdown", str(tmp_path / "c.md"))
    assert result.exit_code == 1
    doc = json.loads((tmp_path / "c.json").read_text())
    assert doc["passed"] is False and doc["failures"] == ["1 configuration(s) slower"]
    assert doc["matched"] == 1.0 and len(doc["rows"]) == 3
    slow = [r for r in doc["rows"] if r["verdict"] == "slower"]
    assert len(slow) == 1 and slow[0]["new_qps"] < slow[0]["old_qps"]
    assert slow[0]["configuration"]["threads"] == 2 or slow[0]["configuration"]["threads"] in (1, 4)
    md = (tmp_path / "c.md").read_text()
    assert "Gate **failed**: 1 configuration(s) slower." in md
    assert md.count("| `threads=") == 3 and "| slower |" in md

    ok = run(old, str(COMPARE / "faster.json"), "--json", str(tmp_path / "ok.json"))
    assert ok.exit_code == 0
    assert json.loads((tmp_path / "ok.json").read_text())["passed"] is True


def test_the_configuration_column_is_not_cut_at_default_width(tmp_path: Path) -> None:
    old = write(tmp_path, with_keys(clients=8, devices="0,1", deploy="processes"), "old.json")
    result = run(str(old), str(old))
    assert result.exit_code == 0, result.output
    label = "threads=1 depth=8 batch=16 streams=per_stage clients=8 devices=2 deploy=processes"
    assert label in result.output


def test_help_says_what_matches() -> None:
    text = " ".join(CliRunner().invoke(cli, ["compare", "--help"]).output.split())
    assert "match when every key is equal" in text
    keys = ("threads", "depth", "batch", "streams", "sync_every", "devices", "deploy", "clients", "rate", "arrival")
    for key in (*keys, "time_scale"):
        assert key in text
    assert "--min-matched" in text and "--json" in text and "--markdown" in text


def test_columns_name_the_unit_of_what_was_compared(tmp_path: Path) -> None:
    """A server's points are requests per second, a frame program's QPS (issue 31: the compare
    table said QPS for servers)."""
    server = write(tmp_path, with_keys(clients=8), "server.json")
    md = tmp_path / "server.md"
    assert run(str(server), str(server), "--markdown", str(md)).exit_code == 0
    header = md.read_text().splitlines()[4]
    assert "| old req/s | new req/s |" in header and "QPS" not in header
    frames = tmp_path / "frames.md"
    assert run(str(COMPARE / "base.json"), str(COMPARE / "base.json"), "--markdown", str(frames)).exit_code == 0
    assert "| old QPS | new QPS |" in frames.read_text()
