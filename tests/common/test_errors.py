"""The one error model: every failure ascgen raises for a user is an AscgenError whose class
gives the exit code, mapped to a message in one place (ascgen.common.friendly)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from ascgen.bench.points import BadSweep
from ascgen.bench.roofline import PointDoesNotFit
from ascgen.bench.runner import RunFailed
from ascgen.bench.schema import BadResults
from ascgen.bench.session import BenchFailed
from ascgen.codegen.build import BuildFailed
from ascgen.codegen.render import ToolMissing
from ascgen.common import errors
from ascgen.common.friendly import friendly
from ascgen.dsl.diagnostics import Diagnostic, Position, SpecError

ASCGEN = Path(__file__).resolve().parents[2] / "ascgen"


@pytest.mark.parametrize(
    ("kind", "code"),
    [
        (SpecError, 2),
        (BadSweep, 2),
        (BadResults, 2),
        (PointDoesNotFit, 2),
        (ToolMissing, 2),
        (BuildFailed, 3),
        (RunFailed, 3),
        (BenchFailed, 3),
        (errors.CheckFailed, 1),
        (errors.InternalError, 70),
    ],
)
def test_every_user_facing_failure_is_an_ascgen_error_with_its_exit_code(kind: type[Exception], code: int) -> None:
    assert issubclass(kind, errors.AscgenError)
    assert kind.exit_code == code  # type: ignore[attr-defined]


def invoke(exc: BaseException) -> tuple[int, str]:
    @click.command()
    @friendly
    def failing() -> None:
        raise exc

    result = CliRunner().invoke(failing, [])
    return result.exit_code, result.stderr


def test_a_step_failure_is_one_line_and_exit_3() -> None:
    assert invoke(BuildFailed("configure failed: no compiler")) == (3, "ascgen: error: configure failed: no compiler\n")


def test_a_spec_error_prints_its_diagnostics_then_the_count() -> None:
    diag = Diagnostic("s.yaml", Position(3, 1), "unknown key 'thread'")
    code, stderr = invoke(SpecError([diag, diag]))
    assert code == 2
    assert stderr.splitlines() == ["s.yaml:3:1: error: unknown key 'thread'"] * 2 + ["2 errors"]


def test_ctrl_c_exits_130_without_a_traceback() -> None:
    assert invoke(KeyboardInterrupt()) == (130, "ascgen: interrupted\n")


def test_a_bug_is_one_line_and_exit_70(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASCGEN_TRACEBACK", raising=False)
    code, stderr = invoke(KeyError("x\nsecond line"))
    assert code == 70 and len(stderr.splitlines()) == 1 and "Traceback" not in stderr


def test_one_wrapper_and_one_set_of_exit_codes() -> None:
    sources = {p: p.read_text(encoding="utf-8") for p in ASCGEN.rglob("*.py")}
    wrappers = [p.name for p, text in sources.items() if re.search(r"^def friendly\(", text, re.M)]
    constants = [p.name for p, text in sources.items() if re.search(r"^EXIT_\w+ = \d", text, re.M)]
    assert wrappers == ["friendly.py"]
    assert constants == ["errors.py"]


def test_the_bench_commands_do_not_import_the_cli() -> None:
    code = "import sys, ascgen.bench.command; assert 'ascgen.cli' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
