"""The harness runs most `ascgen` cases in the test's own process: it holds them to the limits a
process of their own had (memory, time), shows an escaped exception as the traceback a process
would print, and leaves the test's folder, environment and limits as it found them."""

from __future__ import annotations

import os
import resource
import time
from pathlib import Path

import pytest
from harness import MEMORY_BYTES, Case, CaseTimeout, in_a_process, inside, run_here, with_processes

SPEC = "name: x\nsource: {kind: tensor, path: in.bin, bytes: 4096}\nstages: [{name: up, kind: h2d}]\n"


def test_a_case_here_cannot_grow_the_process_by_more_than_its_memory(tmp_path: Path) -> None:
    before = resource.getrlimit(resource.RLIMIT_AS)
    with inside(tmp_path), pytest.raises(MemoryError):
        bytearray(MEMORY_BYTES + (64 << 20))
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    assert bytearray(64 << 20)  # and the process grows again once the case is over


def test_a_case_here_that_hangs_is_stopped(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(CaseTimeout), inside(tmp_path, timeout_s=0.2):
        time.sleep(10)
    assert time.monotonic() - started < 5


def test_a_case_runs_in_its_folder_without_the_suites_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = Path(__file__).resolve().parents[2] / "ascgen" / "profiles" / "ascend310.yaml"
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "mine.yaml").write_text(shipped.read_text().replace("name: ascend310", "name: mine"))
    (tmp_path / "p.yaml").write_text(SPEC.replace("name: x", "name: x\ndevice: {profile: mine}"))
    (tmp_path / "in.bin").write_bytes(b"\0" * 4096)
    monkeypatch.setenv("ASCGEN_PROFILE_PATH", str(tmp_path / "p"))  # the suite's, which a case does not see
    cwd = os.getcwd()
    refused = run_here(Case("no-profile", ("validate", "p.yaml"), 2), tmp_path)
    assert refused.returncode == 2 and "'mine'" in refused.stderr, refused.stderr
    found = run_here(Case("profile", ("validate", "p.yaml"), 0, env={"ASCGEN_PROFILE_PATH": "{tmp}/p"}), tmp_path)
    assert found.returncode == 0 and found.stdout.startswith("p.yaml: ok"), found.stderr
    assert os.getcwd() == cwd and os.environ["ASCGEN_PROFILE_PATH"] == str(tmp_path / "p")


def test_an_exception_that_escapes_a_command_is_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ascgen.pipeline

    def broken(path: Path) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(ascgen.pipeline, "analyze_file", broken)
    (tmp_path / "p.yaml").write_text(SPEC)
    bug = run_here(Case("bug", ("validate", "p.yaml"), 2), tmp_path)
    assert bug.returncode == 70 and "internal error: RuntimeError: a bug" in bug.stderr, bug.stderr
    shown = run_here(Case("trace", ("validate", "p.yaml"), 2, env={"ASCGEN_TRACEBACK": "1"}), tmp_path)
    assert "Traceback (most recent call last)" in shown.stderr and "RuntimeError: a bug" in shown.stderr


def test_the_process_itself_is_tested_where_it_matters() -> None:
    assert in_a_process(Case("columns", ("validate",), 2, env={"COLUMNS": "abc"}))
    assert not in_a_process(Case("profiles", ("validate",), 2, env={"ASCGEN_PROFILE_PATH": "p"}))
    assert in_a_process(Case("driver", ("--help",), 0, program="driver"))
    (marked,) = with_processes([Case("a", ("validate",), 2)], {"a"})
    assert in_a_process(marked)
    with pytest.raises(AssertionError):
        with_processes([Case("a", ("validate",), 2)], {"renamed"})
