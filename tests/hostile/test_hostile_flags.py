"""Hostile flags and inputs for the generated program (templates/runtime/ascgen_options.h and ascgen_inputs.h).

Most cases run the host-side driver, which parses flags and loads inputs exactly as a
generated program does, in milliseconds; a few run one small generated program (built once
per session) for what needs the whole program: the final JSON, --quiet, --json's start-up
check and the exit codes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from harness import Case, run_and_check
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.slow  # every test runs a program compiled for it (host_driver, small_program)

IMAGES = "{root}/pipelines/data/images"


def fifo(name: str):  # type: ignore[no-untyped-def]
    return lambda tmp: os.mkfifo(tmp / name)


def bad(id: str, *args: str, says: str) -> Case:
    return Case(f"flag-{id}", args, 2, says, program="driver")


REJECTED = [
    bad("threads-fraction", "--threads", "1.5", says="--threads takes a whole number in 1..64, not '1.5'"),
    bad("threads-eq-fraction", "--threads=1.5", says="not '1.5'"),
    bad("threads-zero", "--threads", "0", says="1..64"),
    bad("threads-too-many", "--threads", "65", says="1..64"),
    bad("threads-hex", "--threads", "0x2", says="not '0x2'"),
    bad("threads-exp", "--threads", "1e1", says="not '1e1'"),
    bad("threads-space", "--threads", " 2", says="not ' 2'"),
    bad("threads-trailing", "--threads", "2x", says="not '2x'"),
    bad("threads-empty-eq", "--threads=", says="--threads"),
    bad("threads-missing", "--threads", says="--threads needs a value"),
    bad("threads-overflow", "--threads", "99999999999999999999999", says="1..64"),
    bad("depth-negative", "--depth", "-1", says="1..256"),
    bad("frames-float", "--frames", "1e3", says="--frames takes a whole number"),
    bad("duration-nan", "--duration", "nan", says="--duration takes a number of seconds in 0.1..86400, not 'nan'"),
    bad("duration-inf", "--duration", "inf", says="not 'inf'"),
    bad("duration-eq-nan", "--duration=NaN", says="not 'NaN'"),
    bad("duration-huge", "--duration", "1e400", says="not '1e400'"),
    bad("duration-hex", "--duration", "0x10", says="not '0x10'"),
    bad("duration-negative", "--duration", "-5", says="not '-5'"),
    bad("duration-zero", "--duration", "0", says="0.1..86400"),
    bad("warmup-nan", "--warmup", "nan", says="--warmup takes a number of seconds in 0..3600, not 'nan'"),
    bad("warmup-negative", "--warmup", "-1", says="not '-1'"),
    bad("warmup-infinity", "--warmup", "Infinity", says="not 'Infinity'"),
    bad("verify-with-value", "--verify=yes", says="--verify takes no value"),
    bad("unknown-flag", "--frobnicate", says="unknown flag '--frobnicate'"),
    bad("unknown-eq-flag", "--frobnicate=1", says="unknown flag '--frobnicate'"),
    bad("single-dash", "-threads", "2", says="unknown flag '-threads'"),
    bad("stray-argument", "images", says="unexpected argument 'images'"),
    bad("input-empty", "--input=", says="--input needs a value"),
    bad("json-missing-folder", "--json", "{tmp}/no/such/r.json", says="--json: cannot write"),
    bad("json-proc", "--json", "/proc/r.json", says="--json: cannot write '/proc/r.json'"),
    bad("json-folder", "--json", "{tmp}", says="it is a folder"),
    bad("model-dev-zero", "--model", "/dev/zero", says="--model: '/dev/zero' is a character device"),
    Case(
        "flag-model-fifo", ("--model", "m.om"), 2, "is a FIFO, not a regular file", setup=fifo("m.om"), program="driver"
    ),
    Case("flag-json-under-file", ("--json", "f/r.json"), 2, "--json: cannot write", files={"f": "x"}, program="driver"),
]


@pytest.mark.parametrize("c", REJECTED, ids=[c.id for c in REJECTED])
def test_rejected_flag(c: Case, tmp_path: Path, host_driver: Path) -> None:
    proc = run_and_check(c, tmp_path, host_driver)
    assert proc.stdout == ""


ACCEPTED = [
    (("--threads=2", "--depth", "8"), {"threads": 2, "depth": 8}),
    (("--threads", "2", "--depth=8"), {"threads": 2, "depth": 8}),
    (("--duration=2.5", "--warmup", "0"), {"duration_s": 2.5, "warmup_s": 0}),
    (("--frames=16", "--verify"), {"frames": 16, "verify": True}),
    (("--input=a=b.jpg",), {"input": "a=b.jpg"}),  # only the first '=' splits
    (("--quiet",), {"quiet": True, "quiet_progress": True}),
    (("--json", "{tmp}/r.json"), {}),
    (("--pin=0",), {"pin": "0"}),
    (("--model", "/tmp"), {"model": "/tmp"}),  # a folder: programs without a model stage get one by default
]


@pytest.mark.parametrize(("args", "expect"), ACCEPTED, ids=[" ".join(a) for a, _ in ACCEPTED])
def test_accepted_flags(args: tuple[str, ...], expect: dict[str, object], tmp_path: Path, host_driver: Path) -> None:
    proc = run_and_check(Case("accepted", args, 0, program="driver"), tmp_path, host_driver)
    got = json.loads(proc.stdout)
    assert {k: got[k] for k in expect} == expect
    assert not (tmp_path / "r.json").exists()  # the start-up check leaves nothing behind


def test_help_describes_every_flag(tmp_path: Path, host_driver: Path) -> None:
    proc = run_and_check(Case("help", ("--help",), 0, program="driver"), tmp_path, host_driver)
    for flag in (
        "--threads",
        "--depth",
        "--duration",
        "--warmup",
        "--frames",
        "--input",
        "--model",
        "--json",
        "--pin",
        "--verify",
        "--quiet",
    ):
        (line,) = [x for x in proc.stdout.splitlines() if x.strip().startswith(flag + " ")]
        assert len(line.split(None, 2 if flag in ("--verify", "--quiet") else 3)) >= 2, line


LOAD = {"ASCGEN_DRIVER_LOAD": "1", "ASCGEN_DRIVER_MAX": "100000"}
INPUTS = [
    Case(
        "input-fifo",
        ("--input", "in.jpg"),
        3,
        "input 'in.jpg' is a FIFO, not a regular file",
        setup=fifo("in.jpg"),
        env=LOAD,
        program="driver",
    ),
    Case("input-dev-zero", ("--input", "/dev/zero"), 3, "a character device", env=LOAD, program="driver"),
    Case("input-dev-urandom", ("--input", "/dev/urandom"), 3, "a character device", env=LOAD, program="driver"),
    Case(
        "input-too-big",
        ("--input", "big.jpg"),
        3,
        "more than the spec's max_bytes 100000",
        files={"big.jpg": b"\xff" * 100_001},
        env=LOAD,
        program="driver",
    ),
    Case(
        "input-folder-with-fifo",
        ("--input", "d"),
        3,
        "is a FIFO",
        setup=lambda tmp: ((tmp / "d").mkdir(), os.mkfifo(tmp / "d" / "a.jpg")),
        env=LOAD,
        program="driver",
    ),
    Case(
        "input-missing",
        ("--input", "nope.jpg"),
        3,
        "cannot read input 'nope.jpg': No such file",
        env=LOAD,
        program="driver",
    ),
    Case("input-empty-file", ("--input", "e.jpg"), 3, "is empty", files={"e.jpg": b""}, env=LOAD, program="driver"),
    Case(
        "input-empty-folder",
        ("--input", "d"),
        3,
        "no .jpg or .jpeg files",
        setup=lambda tmp: (tmp / "d").mkdir(),
        env=LOAD,
        program="driver",
    ),
    Case(
        "input-proc-file",
        ("--input", "/proc/self/status"),
        3,
        "",
        env={**LOAD, "ASCGEN_DRIVER_MAX": "100"},
        program="driver",
    ),
]


@pytest.mark.parametrize("c", INPUTS, ids=[c.id for c in INPUTS])
def test_hostile_input(c: Case, tmp_path: Path, host_driver: Path) -> None:
    run_and_check(c, tmp_path, host_driver)


def test_a_folder_of_inputs_at_the_limit_loads(tmp_path: Path, host_driver: Path) -> None:
    files = {"d/a.jpg": b"\xff" * 100_000, "d/b.JPEG": b"\xd8", "d/skip.txt": b"x" * 200_000}
    proc = run_and_check(
        Case("ok", ("--input", "d"), 0, files=files, env=LOAD, program="driver"), tmp_path, host_driver
    )
    assert json.loads(proc.stdout)["inputs"] == 2


# The whole program: a short run of the small example.
RUN = ("--duration", "0.3", "--warmup", "0", "--threads", "1", "--input", IMAGES)


@pytest.mark.slow
def test_program_quiet_drops_progress_but_keeps_the_result(tmp_path: Path, small_program: Path) -> None:
    proc = run_and_check(Case("quiet", (*RUN, "--quiet"), 0, program="program"), tmp_path, small_program)
    assert "progress:" not in proc.stderr
    assert json.loads(proc.stdout)["schema_version"] == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    "c",
    [
        Case("program-json-proc", (*RUN, "--json", "/proc/r.json"), 2, "--json: cannot write", program="program"),
        Case("program-duration-nan", ("--duration", "nan"), 2, "not 'nan'", program="program"),
        Case("program-warmup-nan", ("--warmup", "nan"), 2, "not 'nan'", program="program"),
        Case(
            "program-threads-eq",
            ("--threads=1", "--duration=0.2", "--warmup=0", "--input", IMAGES),
            0,
            program="program",
        ),
        Case("program-input-fifo", (*RUN[:-1], "in.jpg"), 3, "is a FIFO", setup=fifo("in.jpg"), program="program"),
        Case("program-input-dev-zero", (*RUN[:-1], "/dev/zero"), 3, "a character device", program="program"),
        Case(
            "program-json-disk-full",
            (*RUN, "--json", "/dev/full"),
            3,
            "cannot write the JSON report to '/dev/full'",
            program="program",
        ),
    ],
    ids=lambda c: c.id,
)
def test_program_flags(c: Case, tmp_path: Path, small_program: Path) -> None:
    proc = run_and_check(c, tmp_path, small_program)
    if c.code == 0:
        report = json.loads(proc.stdout)
        assert report["threads"] == 1 and "nan" not in proc.stdout


# Fuzzing the flags: any argv either parses into options within the limits or is one line, exit 2.
FLAGS = [
    "--threads",
    "--depth",
    "--duration",
    "--warmup",
    "--frames",
    "--input",
    "--model",
    "--pin",
    "--verify",
    "--quiet",
    "--json",
    "--nope",
    "-h",
]
VALUES = [
    "1",
    "2",
    "64",
    "65",
    "0",
    "-1",
    "1.5",
    "nan",
    "inf",
    "-inf",
    "1e3",
    "0x10",
    "",
    " ",
    "2 ",
    "abc",
    "=",
    "9" * 30,
    "0.1",
    "3600",
    "86400.5",
    "\u00e9",
    "--threads",
]


@st.composite
def argvs(draw: st.DrawFn) -> list[str]:
    out: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        flag = draw(st.sampled_from(FLAGS))
        if flag in ("--json", "-h"):
            continue  # --json would write; -h prints help (tested above)
        form = draw(st.integers(0, 2))
        value = draw(st.sampled_from(VALUES))
        out += [f"{flag}={value}"] if form == 0 else [flag, value] if form == 1 else [flag]
    return out


@settings(
    max_examples=120,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(argv=argvs())
def test_fuzzed_flags_parse_or_fail_in_one_line(argv: list[str], host_driver: Path) -> None:
    proc = subprocess.run([str(host_driver), *argv], capture_output=True, text=True, timeout=10, check=False)
    assert proc.returncode in (0, 2), (argv, proc.returncode, proc.stderr)
    if proc.returncode == 2:
        assert proc.stdout == "" and proc.stderr.count("\n") == 1 and proc.stderr.endswith("(see --help)\n"), argv
        return
    got = json.loads(proc.stdout)
    assert 1 <= got["threads"] <= 64 and 1 <= got["depth"] <= 256, argv
    assert 0.1 <= got["duration_s"] <= 86400 and 0 <= got["warmup_s"] <= 3600, argv
