"""The program's JSON document and the results file: parsing, versions, records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_helpers import COMPARE, SPEC

from ascgen.bench import stats
from ascgen.bench.schema import (
    SCHEMA_VERSION,
    BadResults,
    Config,
    dumps,
    load_results,
    parse_program_report,
)
from ascgen.pipeline import analyze_file
from ascgen.plan.model import Plan

# The example of the program contract, verbatim but for the windows.
PROGRAM_DOC = {
    "schema_version": 1, "program": "resnet50_b16", "backend": "simulator", "profile": "ascend310",
    "streams": "per_stage", "threads": 4, "depth": 8, "batch": 16, "sync_every": 64,
    "frames": 12345, "duration_s": 10.0, "qps": 734.1,
    "latency_ms": {"p50": 40.1, "p90": 44.0, "p99": 51.2, "max": 60.3},
    "stages": {"upload": 12345, "decode": 12345, "resize": 12345, "infer": 771, "fetch": 771, "top5": 12345},
    "host_cpu_s": 1.23, "process_cpu_s": 2.5, "device_memory_bytes": 580573696,
    "windows_qps": [730.2, 735.9, 736.0], "interrupted": False, "verified": None,
}  # fmt: skip


def test_program_report_parses_the_contract_example() -> None:
    report = parse_program_report(json.dumps(PROGRAM_DOC), "run.json")
    assert report.qps == 734.1
    assert report.latency_ms.p99 == 51.2
    assert report.stages["infer"] == 771
    assert report.windows_qps == [730.2, 735.9, 736.0]
    assert report.verified is None


def test_program_report_ignores_keys_a_newer_program_adds() -> None:
    report = parse_program_report(json.dumps({**PROGRAM_DOC, "simulator_cpu_s": 3.0}), "run.json")
    assert report.frames == 12345


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({**PROGRAM_DOC, "schema_version": 2}, "run.json: program schema_version 2; this ascgen reads 1"),
        ({k: v for k, v in PROGRAM_DOC.items() if k != "qps"}, "run.json: qps: Field required"),
        ({**PROGRAM_DOC, "streams": "per_frame"}, "run.json: streams: Input should be 'per_stage' or 'per_thread'"),
        ([1, 2], "run.json: expected a JSON object"),
    ],
)
def test_program_report_refuses_bad_documents(doc: object, message: str) -> None:
    with pytest.raises(BadResults) as err:
        parse_program_report(json.dumps(doc), "run.json")
    assert str(err.value) == message


def test_program_report_not_json_names_line_and_column() -> None:
    with pytest.raises(BadResults, match=r"^run.json:1:2: not JSON"):
        parse_program_report("{oops", "run.json")


def _plan(roofline: float) -> Plan:
    plan = analyze_file(SPEC)[1]
    return plan.model_copy(update={"roofline_qps": roofline})


def test_record_derives_cpu_per_1000_frames_and_efficiency() -> None:
    report = parse_program_report(json.dumps(PROGRAM_DOC), "run.json")
    config = Config(threads=4, depth=8, batch=16, streams="per_stage", sync_every=None)
    run = stats.record(config, 2, report, _plan(800.0), "raw/x.json")
    assert run.repeat == 2
    assert run.host_cpu_s_per_1000_frames == pytest.approx(1.23 * 1000 / 12345)
    assert run.process_cpu_s_per_1000_frames == pytest.approx(2.5 * 1000 / 12345)
    assert run.efficiency == pytest.approx(734.1 / 800.0)
    assert run.window_cv == pytest.approx(stats.cv([730.2, 735.9, 736.0]))
    assert run.latency_ms.p90 == 44.0


def test_summary_takes_median_and_spread_over_repeats() -> None:
    report = parse_program_report(json.dumps(PROGRAM_DOC), "run.json")
    config = Config(threads=4, depth=8, batch=16, streams="per_stage", sync_every=None)
    runs = [
        stats.record(config, i + 1, report.model_copy(update={"qps": q}), _plan(800.0), "raw")
        for i, q in enumerate([700.0, 760.0, 730.0])
    ]
    (summary,) = stats.summarize(runs)
    assert (summary.qps_median, summary.qps_min, summary.qps_max) == (730.0, 700.0, 760.0)
    assert summary.qps_cv == pytest.approx(30.0 / 730.0)
    assert summary.efficiency == pytest.approx(730.0 / 800.0)
    assert summary.repeats == 3


def test_cv_needs_two_values() -> None:
    assert stats.cv([5.0]) is None
    assert stats.cv([1.0, 3.0]) == pytest.approx(2**0.5 / 2)


def test_results_round_trip(tmp_path: Path) -> None:
    results = load_results(COMPARE / "base.json")
    path = tmp_path / "again.json"
    path.write_text(dumps(results), encoding="utf-8")
    again = load_results(path)
    assert again == results
    assert json.loads(path.read_text())["schema_version"] == SCHEMA_VERSION
    assert {"host", "cpu_model", "governor", "numa_balancing", "git_commit", "git_dirty", "spec_sha256"} <= set(
        json.loads(path.read_text())["context"]
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"schema_version": 99, "runs": []}', "results schema_version 99; this ascgen reads 1"),
        ('{"qps": 1}', "not an ascgen bench results file"),
        ("[", "not JSON"),
    ],
)
def test_load_results_refuses_other_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BadResults, match=message):
        load_results(path)


def test_load_results_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BadResults, match="No such file"):
        load_results(tmp_path / "absent.json")
