"""Mutation testing of a generated program: remove any event wait, and the simulator notices.

Each mutant is the seed example's main.cpp with one `<ring>.wait(...)` or `<ring>.host_wait(...)`
statement (the wait and the reset that follows it) replaced by `(void)0`. All mutants and the
unmutated control are targets of one CMake project (a copy of the generated folder per
program, added with add_subdirectory, beside a copy of the shared runtime), so they compile
in one `cmake --build -j2` against the installed plain simulator. Each then runs with a small
depth, so every ring wraps many times.

A removed wait is reported one of two ways, and must be: as a race (the hazard detector,
ACL_SIM_HAZARD=1: exit 86 with a HAZARD line) where data can be overwritten or read too early,
or as a device rule violation (exit 87 with a RULE line: the event is recorded again while its
last record was never waited on and reset, event.record_not_reset) where another mechanism
covers the race: a batch pool's reuse wait is also implied by the worker's completion gate,
which on a device with classic events does not make the wait optional. The control must run
clean: exit 0, neither line.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from program_harness import BUILD_ROOT, REPO, run_program

from ascgen.codegen.build import compile_program

EXAMPLE = REPO / "generated" / "resnet50_b16"
INPUTS = REPO / "pipelines" / "data" / "images"
# Two frame slots and two batch slots: every ring wraps after two frames (or batches).
RUN_ARGS = ("--threads", "2", "--depth", "2", "--warmup", "0", "--frames", "256", "--input", str(INPUTS))
CAUGHT = {86: "[acl_sim] HAZARD", 87: "[acl_sim] RULE"}  # exit status: the line that says why
WAIT = re.compile(r"\b\w+\.(?:host_)?wait\s*\(")


@dataclass(frozen=True)
class Mutant:
    index: int
    line: int  # 1-based line of the removed call in main.cpp
    call: str  # the removed call, whitespace collapsed
    why: str  # the generated comment above the statement
    source: str  # main.cpp with the call replaced by ACL_SUCCESS

    def describe(self) -> str:
        return f"main.cpp:{self.line}: {self.call}  // {self.why}"


def _call_end(text: str, open_paren: int) -> int:
    """Index just past the parenthesis that closes the one at `open_paren`."""
    depth = 0
    for i in range(open_paren, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError(f"unbalanced parentheses after offset {open_paren}")


def _comment_above(lines: list[str], line: int) -> str:
    for text in reversed(lines[: line - 1]):
        stripped = text.strip()
        if stripped.startswith("//"):
            return stripped.lstrip("/ ")
    return ""


def mutants_of(source: str) -> list[Mutant]:
    lines = source.splitlines()
    out = []
    for m in WAIT.finditer(source):
        end = _call_end(source, m.end() - 1)
        line = source.count("\n", 0, m.start()) + 1
        # the comment above the statement says which edge the wait is
        out.append(
            Mutant(
                index=len(out) + 1,
                line=line,
                call=" ".join(source[m.start() : end].split()),
                why=_comment_above(lines, line),
                source=source[: m.start()] + "(void)0" + source[end:],
            )
        )
    return out


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def build_programs(name: str, sources: dict[str, str], root: Path) -> dict[str, Path]:
    """Build `sources` (target suffix -> main.cpp) as copies of the example, in one CMake project."""
    root.mkdir(parents=True, exist_ok=True)
    cmake = (EXAMPLE / "CMakeLists.txt").read_text(encoding="utf-8")
    subdirs = []
    for suffix, main_cpp in sources.items():
        target = f"{name}_{suffix}"
        sub = root / suffix
        sub.mkdir(exist_ok=True)
        for item in EXAMPLE.iterdir():
            if item.name in ("main.cpp", "CMakeLists.txt"):
                continue
            if item.is_dir():
                shutil.copytree(item, sub / item.name, dirs_exist_ok=True)
            elif not (sub / item.name).exists() or (sub / item.name).read_bytes() != item.read_bytes():
                shutil.copy2(item, sub / item.name)
        _write_if_changed(sub / "main.cpp", main_cpp)
        _write_if_changed(sub / "CMakeLists.txt", re.sub(rf"\b{re.escape(name)}\b", target, cmake))
        subdirs.append(suffix)
    shutil.copytree(EXAMPLE.parent / "runtime", root / "runtime", dirs_exist_ok=True)  # the copies' ../runtime
    top = "\n".join(
        [
            "cmake_minimum_required(VERSION 3.20)",
            f"project({name}_mutants LANGUAGES CXX)",
            "# -O0: half the compile time of Release; the detector does not depend on optimisation.",
            "# No -g either (a seventh of the rest): no debugger reads these binaries.",
            "set(CMAKE_BUILD_TYPE Debug)",
            'set(CMAKE_CXX_FLAGS_DEBUG "-O0")',
            'set(CMAKE_RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}")',
            *(f"add_subdirectory({s})" for s in subdirs),
            "",
        ]
    )
    _write_if_changed(root / "CMakeLists.txt", top)
    first = f"{name}_{subdirs[0]}"
    compile_program(first, root, root / "build", "sim", None, BUILD_ROOT)
    return {s: root / "build" / f"{name}_{s}" for s in subdirs}


@pytest.mark.slow
def test_removing_an_event_wait_is_caught_as_a_hazard(
    tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    source = (EXAMPLE / "main.cpp").read_text(encoding="utf-8")
    mutants = mutants_of(source)
    assert mutants, "no event wait found in the example"
    assert all(len(WAIT.findall(m.source)) == len(mutants) - 1 for m in mutants)
    record_property("mutants", len(mutants))  # read by scripts/reliability.py (JUnit XML)

    binaries = build_programs(
        EXAMPLE.name,
        {"control": source, **{f"m{m.index}": m.source for m in mutants}},
        BUILD_ROOT / "mutants" / EXAMPLE.name,
    )

    control = run_program(binaries["control"], *RUN_ARGS, cwd=tmp_path / "control")
    assert control.returncode == 0, control.stderr[-3000:]
    assert not any(line in control.stderr for line in CAUGHT.values()), control.stderr[-3000:]

    escaped, by = [], {line: 0 for line in CAUGHT.values()}
    for m in mutants:
        run = run_program(binaries[f"m{m.index}"], *RUN_ARGS, cwd=tmp_path / f"m{m.index}")
        line = CAUGHT.get(run.returncode)
        if line is None or line not in run.stderr:
            tail = (run.stderr.strip().splitlines()[-1:] or ["(no stderr)"])[0][:300]
            escaped.append(f"{m.describe()}\n    exit {run.returncode}; {tail}")
        else:
            by[line] += 1
    record_property("mutants_needed", len(mutants))
    record_property("mutants_caught", len(mutants) - len(escaped))
    record_property("mutants_as_races", by[CAUGHT[86]])
    record_property("mutants_as_rules", by[CAUGHT[87]])
    assert not escaped, f"{len(escaped)} of {len(mutants)} removed event waits went unnoticed:\n" + "\n".join(escaped)
