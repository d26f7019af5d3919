"""The error corpus: every way a spec can be wrong, with the exact message the user sees.

One directory per case, ``tests/errors/<case>/``, holding ``spec.yaml`` (its first line, a
comment, says what is wrong) and ``expected_stderr.txt``: the exact stderr of
``ascgen validate spec.yaml`` run inside that directory, final "N errors" line included.
One runner discovers them all. After an intended change of wording, regenerate with

    ASCGEN_UPDATE_GOLDENS=1 python -m pytest tests/test_error_corpus.py

and review the diff of ``tests/errors/`` like any other change.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ascgen.cli import cli
from ascgen.common.errors import EXIT_USER_ERROR

ERRORS = Path(__file__).parent / "errors"
EXPECTED = "expected_stderr.txt"
CASES = sorted(p.name for p in ERRORS.iterdir() if (p / "spec.yaml").is_file())
UPDATE = os.environ.get("ASCGEN_UPDATE_GOLDENS") == "1"
DIAGNOSTIC = re.compile(r"^spec\.yaml:[1-9]\d*:[1-9]\d*: error: \S.*$")


def regenerate_command(case: str | None = None) -> str:
    target = "tests/test_error_corpus.py" + (f"::test_error_case[{case}]" if case else "")
    return f"ASCGEN_UPDATE_GOLDENS=1 python -m pytest '{target}'"


def validate_in(case_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Result:
    """``ascgen validate spec.yaml`` with cwd = ``case_dir``, in process (a subprocess per case
    would cost ~0.7 s each; test_corpus_through_real_cli covers the real entry point)."""
    monkeypatch.chdir(case_dir)
    return CliRunner().invoke(cli, ["validate", "spec.yaml"], prog_name="ascgen")


def read_expected(case: str) -> str:
    path = ERRORS / case / EXPECTED
    assert path.is_file(), f"tests/errors/{case} has no {EXPECTED}; create it with:\n  {regenerate_command(case)}"
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES)
def test_error_case(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    result = validate_in(ERRORS / case, monkeypatch)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a crash: show it as one
    if UPDATE:
        with (ERRORS / case / EXPECTED).open("w", encoding="utf-8", newline="\n") as fh:
            fh.write(result.stderr)
    assert "Traceback" not in result.output
    assert result.exit_code == EXIT_USER_ERROR, f"exit code {result.exit_code}, stderr:\n{result.stderr}"
    assert result.stdout == "", "a failing spec prints nothing on stdout"
    expected = read_expected(case)
    assert result.stderr == expected, (
        f"stderr of `ascgen validate spec.yaml` in tests/errors/{case} differs from {EXPECTED}.\n"
        f"If the new text is intended, regenerate it with:\n  {regenerate_command(case)}\n"
        f"--- expected\n{expected}--- got\n{result.stderr}"
    )


@pytest.mark.parametrize("case", CASES)
def test_golden_is_well_formed(case: str) -> None:
    """Each golden is diagnostics in file order, then a count that matches them."""
    *diags, count = read_expected(case).splitlines()
    assert diags, "an error case reports at least one error"
    bad = [d for d in diags if not DIAGNOSTIC.match(d)]
    assert not bad, f"not of the form spec.yaml:LINE:COL: error: MESSAGE: {bad}"
    positions = [tuple(map(int, d.split(":")[1:3])) for d in diags]
    assert positions == sorted(positions), "diagnostics are sorted by position"
    assert count == f"{len(diags)} error{'s' if len(diags) != 1 else ''}"
    first = (ERRORS / case / "spec.yaml").read_bytes().split(b"\n", 1)[0]
    assert case.startswith("empty") or first.startswith(b"# "), "spec.yaml opens with a comment saying what is wrong"


def test_corpus_covers_enough() -> None:
    assert len(CASES) >= 30
    counts = {case: len(read_expected(case).splitlines()) - 1 for case in CASES}
    assert max(counts.values()) >= 3, "some case reports three or more errors at once"


def test_corpus_through_real_cli() -> None:
    """One real `python -m ascgen validate` over every case: same lines, exit 2, no traceback."""
    paths = sorted(f"{case}/spec.yaml" for case in CASES)
    proc = subprocess.run(
        [sys.executable, "-m", "ascgen", "validate", *paths],
        cwd=ERRORS,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "ASCGEN_TRACEBACK": ""},
    )
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.returncode == EXIT_USER_ERROR
    expected: list[str] = []
    for path in paths:
        case = path.split("/")[0]
        expected += [f"{case}/{line}" for line in read_expected(case).splitlines()[:-1]]
    assert proc.stderr.splitlines() == [*expected, f"{len(expected)} errors"], (
        f"`ascgen validate` in a real process disagrees with the goldens; regenerate with:\n  {regenerate_command()}"
    )
