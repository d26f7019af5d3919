"""CI checks formatting: one C++ style file for hand-written and generated code, and
scripts/format.sh (make fmt; --check in scripts/test.sh) applying it and ruff's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from ascgen.codegen import render

REPO = Path(__file__).resolve().parent.parent
VENV = Path(sys.executable).parent.parent


def test_one_style_file_at_the_root_formats_generated_code_too() -> None:
    names = {".clang-format", "_clang-format", "clang-format.yaml"}
    skip = {".git", ".venv", "build", "build-tests", "generated", "bench-results"}
    found = []
    for folder, subdirs, files in os.walk(REPO):
        subdirs[:] = [d for d in subdirs if d not in skip]
        found += [(Path(folder) / f).relative_to(REPO).as_posix() for f in files if f in names]
    assert found == [".clang-format"]
    assert not (REPO / ".clang-format").is_symlink()
    assert render.STYLE_FILE.resolve() == (REPO / ".clang-format").resolve()


def test_ci_runs_the_format_check() -> None:
    assert "bash scripts/format.sh --check" in (REPO / "scripts" / "test.sh").read_text(encoding="utf-8")


def _tree(tmp_path: Path) -> Path:
    """A small repository: the formatter, the style, a badly laid out header and Python file."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "format.sh", tmp_path / "scripts")
    shutil.copy(REPO / ".clang-format", tmp_path)
    for folder in ("templates/runtime", "templates/stages", "simulator/src", "ascgen", "tests", "tools"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "templates/runtime/a.h").write_text("int  f( int x ){return x;}\n")
    (tmp_path / "simulator/src/b.cpp").write_text("int g() { return 1; }\n")
    (tmp_path / "ascgen/c.py").write_text("x = [1,2]\n")
    return tmp_path


def _format(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "scripts/format.sh", *args],
        cwd=root,
        env={"VENV": str(VENV), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_check_fails_on_unformatted_code_and_make_fmt_fixes_it(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    check = _format(root, "--check")
    assert check.returncode == 1
    assert "templates/runtime/a.h" in check.stderr and "ascgen/c.py" in check.stdout + check.stderr
    assert "run: make fmt" in check.stderr
    assert (root / "templates/runtime/a.h").read_text() == "int  f( int x ){return x;}\n"  # untouched
    assert _format(root).returncode == 0
    assert _format(root, "--check").returncode == 0
    assert (root / "ascgen/c.py").read_text() == "x = [1, 2]\n"
