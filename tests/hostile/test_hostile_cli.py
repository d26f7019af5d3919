"""Hostile command lines, output folders, results files for compare and environment
variables: each one `ascgen` command under limits, exit code and one-line message checked."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from harness import ROOT, Case, run_and_check, with_processes

SEED = "{root}/pipelines/decode_only.yaml"
BASE_RESULTS: dict[str, Any] = json.loads((ROOT / "tests/fixtures/bench/compare/base.json").read_text())
BASE_TEXT = json.dumps(BASE_RESULTS)


def fifo(name: str) -> Any:
    return lambda tmp: os.mkfifo(tmp / name)


def folder(name: str) -> Any:
    return lambda tmp: (tmp / name).mkdir()


CLI = [
    Case("validate-missing", ("validate", "nope.yaml"), 2, "No such file"),
    Case("validate-dev-zero", ("validate", "/dev/zero"), 2, "a character device"),
    Case("validate-dev-urandom", ("validate", "/dev/urandom"), 2, "a character device"),
    Case("validate-fifo", ("validate", "p.yaml"), 2, "a FIFO", setup=fifo("p.yaml")),
    Case("validate-empty-folder", ("validate", "d"), 2, "no spec in this folder", setup=folder("d")),
    Case("validate-folder-of-text", ("validate", "d"), 2, "no spec", files={"d/readme.txt": "x"}),
    Case(
        "validate-folder-named-yaml",
        ("validate", "d"),
        2,
        "no spec",
        setup=lambda tmp: (tmp / "d" / "x.yaml").mkdir(parents=True),
    ),
    Case(
        "validate-fifo-in-folder",
        ("validate", "d"),
        2,
        "a FIFO",
        setup=lambda tmp: ((tmp / "d").mkdir(), os.mkfifo(tmp / "d" / "p.yaml")),
    ),
    Case("validate-proc-self-mem", ("validate", "/proc/self/mem"), 2, "p"),
    Case("validate-no-args", ("validate",), 2, "Missing argument"),
    Case("plan-missing", ("plan", "nope.yaml"), 2, "No such file"),
    Case("plan-fifo", ("plan", "p.yaml"), 2, "a FIFO", setup=fifo("p.yaml")),
    Case("generate-out-proc", ("generate", SEED, "--out", "/proc/ascgen"), 2, "cannot write /proc/ascgen"),
    Case("generate-out-file", ("generate", SEED, "--out", "f"), 2, "cannot write", files={"f": "x"}),
    Case("generate-out-under-file", ("generate", SEED, "--out", "f/sub"), 2, "is a file", files={"f": "x"}),
    Case(
        "generate-over-file",
        ("generate", SEED, "--out", "g"),
        2,
        "a file is in the way",
        files={"g/decode_only": "mine"},
    ),
    Case("generate-empty-folder", ("generate", "d"), 2, "no spec", setup=folder("d")),
    Case("schema-proc", ("schema", "-o", "/proc/x.json"), 2, "cannot write /proc/x.json"),
    Case("schema-into-folder", ("schema", "-o", "d"), 2, "is a folder", setup=folder("d")),
    Case("schema-under-file", ("schema", "-o", "f/x.json"), 2, "is a file", files={"f": "x"}),
    Case("init-proc", ("init", "/proc/p.yaml"), 2, "cannot write"),
    Case("init-exists", ("init", "p.yaml"), 2, "exists", files={"p.yaml": "mine"}),
    Case("init-under-file", ("init", "f/p.yaml"), 2, "is a file", files={"f": "x"}),
    Case("build-dir-under-file", ("build", SEED, "--build-dir", "f/b"), 2, "is a file", files={"f": "x"}),
    Case("build-dir-proc", ("build", SEED, "--build-dir", "/proc/b"), 2, "cannot write"),
    Case("build-missing-spec", ("build", "nope.yaml"), 2, "No such file"),
    Case("bench-out-proc", ("bench", SEED, "--out", "/proc/o", "--build-dir", "b"), 2, "cannot write /proc/o"),
    Case("bench-out-under-file", ("bench", SEED, "--out", "f/o", "--build-dir", "b"), 2, "is a file", files={"f": "x"}),
    Case(
        "bench-json-under-file",
        ("bench", SEED, "--json", "f/r.json", "--build-dir", "b"),
        2,
        "is a file",
        files={"f": "x"},
    ),
    Case(
        "bench-input-fifo", ("bench", SEED, "--input", "in.jpg"), 2, "neither a file nor a folder", setup=fifo("in.jpg")
    ),
    Case("bench-input-dev-zero", ("bench", SEED, "--input", "/dev/zero"), 2, "neither a file nor a folder"),
    Case("bench-duration-nan", ("bench", SEED, "--duration", "nan"), 2, "not a number"),
    Case("bench-warmup-inf", ("bench", SEED, "--warmup", "inf"), 2, "--warmup"),
    Case("bench-bad-sweep", ("bench", SEED, "--sweep", "threads=a,b", "--build-dir", "b"), 2, "threads"),
    Case("bench-unknown-sweep-key", ("bench", SEED, "--sweep", "colour=red", "--build-dir", "b"), 2, "colour"),
    Case("profile-dotdot", ("profile", "../profiles/ascend310"), 2, "not a profile name"),
    Case("profile-absolute", ("profile", "/etc/passwd"), 2, "not a profile name"),
    Case("profile-slash", ("profile", "a/b"), 2, "not a profile name"),
    Case("profile-unknown", ("profile", "ascend999"), 2, "unknown profile"),
    Case("profile-newline", ("profile", "a\nb"), 2, "not a profile name"),
    Case("unknown-command", ("frobnicate",), 2, "No such command"),
    Case("unknown-option", ("validate", "--frobnicate", SEED), 2, "No such option"),
]


def results(**summary: Any) -> str:
    doc = copy.deepcopy(BASE_RESULTS)
    doc["summary"][0].update(summary)
    return json.dumps(doc)


def with_token(field: str, token: str) -> str:
    return results(**{field: 424242.5}).replace("424242.5", token)


def edited(change: Any) -> str:
    doc = copy.deepcopy(BASE_RESULTS)
    change(doc)
    return json.dumps(doc)


COMPARE_FILES: dict[str, tuple[str | bytes | None, str]] = {
    "nan-median": (with_token("qps_median", "NaN"), "finite number"),
    "inf-median": (with_token("qps_median", "Infinity"), "finite number"),
    "neg-inf-min": (with_token("qps_min", "-Infinity"), "finite number"),
    "huge-number": (with_token("qps_max", "1e999"), "finite number"),
    "nan-cv": (with_token("qps_cv", "NaN"), "finite number"),
    "negative-cv": (results(qps_cv=-0.5), "greater than or equal to 0"),
    "negative-window-cv": (results(window_cv=-1.0), "greater than or equal to 0"),
    "min-above-max": (results(qps_min=1e6), "not in order"),
    "negative-median": (results(qps_median=-5.0), "greater than or equal to 0"),
    "nan-p99": (
        with_token("latency_ms", '{"p50": 1, "p90": 1, "p99": NaN, "max": 1}').replace("424242.5", "0"),
        "finite number",
    ),
    "no-runs": (edited(lambda d: d.update(runs=[], summary=[])), "holds no runs"),
    "summary-without-runs": (edited(lambda d: d.update(runs=d["runs"][:1])), "no run behind it"),
    "other-spec": (edited(lambda d: d["context"].update(spec="x/other.yaml", spec_sha256="f" * 64)), "another spec"),
    "schema-version-2": (edited(lambda d: d.update(schema_version=2)), "schema_version 2"),
    "no-schema-version": (edited(lambda d: d.pop("schema_version")), "schema_version None"),
    "string-number": (results(qps_median="fast"), "qps_median"),
    "missing-context": (edited(lambda d: d.pop("context")), "context"),
    "truncated": (BASE_TEXT[: len(BASE_TEXT) // 2], "not JSON"),
    "empty-file": ("", "not JSON"),
    "json-null": ("null", "not an ascgen bench results file"),
    "json-list": ("[1, 2]", "not an ascgen bench results file"),
    "json-string": ('"runs"', "not an ascgen bench results file"),
    "deep-nesting": ("[" * 100_000, "nested too deeply"),
    "non-utf8": (b'{"runs": "\xff\xfe"}', "not UTF-8"),
    "utf16": (BASE_TEXT.encode("utf-16"), "not UTF-8"),
    "bom": (b"\xef\xbb\xbf" + BASE_TEXT.encode(), "BOM"),
    "nul-bytes": (b"\0" * 100, "not JSON"),
    "trailing-garbage": (BASE_TEXT + " xyz", "Extra data"),
}
COMPARE = [
    *(
        Case(
            f"compare-{k}",
            ("compare", "{root}/tests/fixtures/bench/compare/base.json", "new.json"),
            2,
            says,
            files={"new.json": text} if text is not None else {},
        )
        for k, (text, says) in COMPARE_FILES.items()
    ),
    Case("compare-missing", ("compare", "nope.json", "nope.json"), 2, "No such file"),
    Case("compare-dev-zero", ("compare", "/dev/zero", "/dev/zero"), 2, "a character device"),
    Case("compare-fifo", ("compare", "r.json", "r.json"), 2, "a FIFO", setup=fifo("r.json")),
    Case("compare-folder", ("compare", "d", "d"), 2, "", setup=folder("d")),
    Case("compare-threshold-nan", ("compare", "a", "b", "--p99-threshold", "nan"), 2, "not a number"),
    Case("compare-threshold-negative", ("compare", "a", "b", "--threshold", "-5"), 2, "--threshold"),
]

ENV = [
    Case("env-columns-garbage", ("validate", "nope.yaml"), 2, "No such file", env={"COLUMNS": "abc"}),
    Case("env-columns-huge", ("validate", "nope.yaml"), 2, "No such file", env={"COLUMNS": "9" * 50}),
    Case("env-traceback-user-error", ("validate", "/dev/zero"), 2, "a character device", env={"ASCGEN_TRACEBACK": "1"}),
    Case(
        "env-c-locale",
        ("validate", "p.yaml"),
        2,
        "U+2028",
        files={
            "p.yaml": "name: x\nsource: {kind: tensor, "
            'path: "a\\u2028b", bytes: 4096}\nstages: [{name: up, kind: h2d}]\n'
        },
        env={"LC_ALL": "C", "LANG": "C"},
    ),
    Case(
        "env-ascii-io",
        ("validate", "p.yaml"),
        2,
        "p.yaml",
        files={"p.yaml": "name: hostilé\n"},
        env={"PYTHONIOENCODING": "ascii"},
    ),
    Case("env-tmpdir-missing", ("schema", "-o", "/proc/s.json"), 2, "cannot write", env={"TMPDIR": "/nonexistent"}),
    Case("env-home-garbage", ("profile", "../x"), 2, "not a profile name", env={"HOME": "/nonexistent\n"}),
    Case("env-no-path", ("validate", "nope.yaml"), 2, "No such file", env={"PATH": ""}),
]

# Every ENV case runs in a process of its own (harness.in_a_process); of the others, a few.
CASES = with_processes(
    [*CLI, *COMPARE, *ENV],
    {"validate-fifo", "generate-out-proc", "unknown-command", "unknown-option", "compare-nan-median"},
)


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_hostile_command(c: Case, tmp_path: Path) -> None:
    run_and_check(c, tmp_path)
