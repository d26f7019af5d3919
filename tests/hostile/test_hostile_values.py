"""Hostile spec values whose messages lied or doubled: YAML 1.2 numbers YAML 1.1 reads as text,
`id` beside `ids`, one bad value reported twice (a union's every alternative, a check that read a
broken stage), and a duplicate program name placed at 1:1. One `ascgen` command each, under limits."""

from __future__ import annotations

from pathlib import Path

import pytest
from harness import ROOT, Case, run_and_check, with_processes

PIPELINES = ROOT / "pipelines"
DETECT = (PIPELINES / "crop_910b.yaml").read_text(encoding="utf-8").replace("data/", "{root}/pipelines/data/")
DEPLOYED = (PIPELINES / "resnet50_atlas800.yaml").read_text(encoding="utf-8").replace("data/", "{root}/pipelines/data/")
SERVER = (
    (PIPELINES / "serving" / "textline_batched.yaml")
    .read_text(encoding="utf-8")
    .replace("../data/", "{root}/pipelines/data/")
)
LATENCY = "latency_ms: {1: 1.8, 8: 9.5}"
DEVICES = "device: {ids: all, profile: ascend910b, deploy: processes}"
GEARS = "hw_gears: [[32, 80], [32, 160], [32, 320]]"
SERVER_LATENCY = "latency_ms: {1: 1.2, 8: 4.8}"


def edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def ok(id: str, text: str) -> Case:
    return Case(f"value-{id}", ("validate", "p.yaml"), 0, stdout_has="p.yaml: ok", files={"p.yaml": text})


def one_error(id: str, text: str, says: str) -> Case:
    return Case(f"value-{id}", ("validate", "p.yaml"), 2, says, files={"p.yaml": text})


def numa(value: str) -> str:
    return edit(SERVER, "threads: 2", f"threads: 2\nhost: {{numa: {value}}}")


ACCEPTED = [
    ok("latency-1e-3", edit(DETECT, LATENCY, "latency_ms: 1e-3")),
    ok("latency-exponents", edit(DETECT, LATENCY, "latency_ms: {1: 18E-1, 8: 9.5e+0}")),
    ok("latency-1e0-per-batch", edit(DETECT, LATENCY, "latency_ms: {1: 2e0, 8: 1e1}")),
    ok("slo-1e3", DETECT + "slo: {min_qps: 1e1}\n"),
    ok("ids-without-id", edit(DEPLOYED, DEVICES, "device: {ids: [2, 3], profile: ascend910b}")),
]
REFUSED = [
    one_error("latency-quoted-1e-3", edit(DETECT, LATENCY, 'latency_ms: "1e-3"'), "expected a number"),
    one_error("latency-1e", edit(DETECT, LATENCY, "latency_ms: 1e"), "expected a number"),
    one_error(
        "id-0-with-ids",
        edit(DEPLOYED, DEVICES, "device: {id: 0, ids: [2, 3], profile: ascend910b}"),
        "p.yaml:5:14: error: give either 'id' (one device) or 'ids' (several), not both",
    ),
    one_error("id-1-with-ids", edit(DEPLOYED, DEVICES, "device: {id: 1, ids: all, profile: ascend910b}"), "not both"),
    one_error(
        "latency-nan", edit(DETECT, LATENCY, "latency_ms: {1: .nan, 8: 9.5}"), "expected a finite number, got nan"
    ),
    one_error("latency-inf", edit(DETECT, LATENCY, "latency_ms: .inf"), "expected a finite number, got inf"),
    one_error("latency-list", edit(DETECT, LATENCY, "latency_ms: []"), "got a list"),
    one_error("latency-word-key", edit(DETECT, LATENCY, "latency_ms: {a: 1}"), "latency_ms: key 'a': expected a whole"),
    one_error("threads-nan", edit(DETECT, "threads: 8", "threads: .nan"), "got nan (not a number)"),
    one_error("numa-256", numa("256"), "host.numa: input should be less than or equal to 255"),
    one_error("numa-negative", numa("-1"), "greater than or equal to 0"),
    one_error("numa-word", numa("abc"), "'abc' is not one of device or none"),
    one_error("numa-boolean", numa("yes"), "booleans"),
    one_error("numa-fraction", numa("1.5"), "a fractional part"),
    one_error("numa-list", numa("[1]"), "host.numa"),
    one_error("numa-mapping", numa("{a: 1}"), "host.numa"),
    one_error("raw-requests-bad-latency", edit(SERVER, SERVER_LATENCY, "latency_ms: abc"), "latency_ms"),
    one_error("raw-requests-bad-gears", edit(SERVER, GEARS, "hw_gears: x"), "hw_gears"),
    one_error("raw-requests-no-gears", edit(SERVER, "    " + GEARS + "\n", ""), "needs hw_gears"),
]
DUPLICATE = Case(
    "value-duplicate-program-name",
    ("generate", "d", "--out", "g"),
    2,
    "d/b.yaml:3:7: error: name 'crop_910b' is already used by d/a.yaml",
    files={"d/a.yaml": DETECT, "d/b.yaml": DETECT},
)


ACCEPTED = with_processes(ACCEPTED, {"value-latency-1e-3"})
ONE_ERROR = with_processes([*REFUSED, DUPLICATE], {"value-numa-256", "value-duplicate-program-name"})


@pytest.mark.parametrize("c", ACCEPTED, ids=[c.id for c in ACCEPTED])
def test_accepted_value(c: Case, tmp_path: Path) -> None:
    run_and_check(c, tmp_path)


@pytest.mark.parametrize("c", ONE_ERROR, ids=[c.id for c in ONE_ERROR])
def test_one_bad_value_one_error(c: Case, tmp_path: Path) -> None:
    proc = run_and_check(c, tmp_path)
    errors = [line for line in proc.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1 and proc.stderr.rstrip().endswith("\n1 error"), proc.stderr
