"""Mutation testing of a generated program: remove any event wait that guards a race, and the
simulator's hazard detector (ACL_SIM_HAZARD=1) notices.

Each mutant is the seed example's main.cpp with one `aclrtStreamWaitEvent(...)` call replaced
by `ACL_SUCCESS`. All mutants and the unmutated control are targets of one CMake project
(a copy of the generated folder per program, added with add_subdirectory), so they compile in
one `cmake --build -j2` against the installed plain simulator. Each then runs with a small
depth, so every slot ring wraps many times: the mutant must exit 86 with a HAZARD line, the
control must exit 0 with none.

Equivalent mutants: a reuse wait on a batch-indexed pool (`.at(b - t.<pool>.slots())`) is
also implied by the worker's completion gate: before submitting batch b the worker waits
(`completions.wait_until_done`) until batch b - batch_slots has completed, and every batch
pool has batch_slots slots. The generator keeps these waits so that each pool is safe on its
own event edge (tests/codegen/test_lower.py checks that edge for every pool); removing one
leaves no race, so such a mutant must run clean (no false positive) rather than be caught.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from program_harness import BUILD_ROOT, REPO, run_program

from ascgen.build import compile_program

EXAMPLE = REPO / "generated" / "resnet50_b16"
INPUTS = REPO / "pipelines" / "data" / "images"
# Two frame slots and two batch slots: every ring wraps after two frames (or batches).
RUN_ARGS = ("--threads", "2", "--depth", "2", "--warmup", "0", "--frames", "256", "--input", str(INPUTS))
HAZARD_EXIT = 86
WAIT = re.compile(r"\baclrtStreamWaitEvent\s*\(")
BATCH_REUSE = re.compile(r"\.at\(\s*b\s*-\s*t\.\w+\.slots\(\)\s*\)")
GATE = "completions.wait_until_done("


@dataclass(frozen=True)
class Mutant:
    index: int
    line: int  # 1-based line of the removed call in main.cpp
    call: str  # the removed call, whitespace collapsed
    why: str  # the generated comment above the statement
    source: str  # main.cpp with the call replaced by ACL_SUCCESS

    def describe(self) -> str:
        return f"main.cpp:{self.line}: {self.call}  // {self.why}"

    @property
    def equivalent(self) -> bool:
        """A batch pool's reuse wait, also implied by the worker's completion gate."""
        return bool(BATCH_REUSE.search(self.call))


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
        # The statement's first line: the comment above it says which edge the wait is.
        first = line - 1 if "ASCGEN_CHECK" not in lines[line - 1] else line
        out.append(Mutant(
            index=len(out) + 1,
            line=line,
            call=" ".join(source[m.start():end].split()),
            why=_comment_above(lines, first),
            source=source[: m.start()] + "ACL_SUCCESS" + source[end:],
        ))
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
    top = "\n".join([
        "cmake_minimum_required(VERSION 3.20)",
        f"project({name}_mutants LANGUAGES CXX)",
        "# -O0: half the compile time of Release; the detector does not depend on optimisation.",
        "set(CMAKE_BUILD_TYPE Debug)",
        'set(CMAKE_RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}")',
        *(f"add_subdirectory({s})" for s in subdirs),
        "",
    ])
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
    assert mutants, "no aclrtStreamWaitEvent call found in the example"
    assert all(len(WAIT.findall(m.source)) == len(mutants) - 1 for m in mutants)
    record_property("mutants", len(mutants))  # read by scripts/reliability.py (JUnit XML)

    binaries = build_programs(EXAMPLE.name, {"control": source, **{f"m{m.index}": m.source for m in mutants}},
                              BUILD_ROOT / "mutants" / EXAMPLE.name)

    control = run_program(binaries["control"], *RUN_ARGS, cwd=tmp_path / "control")
    assert control.returncode == 0, control.stderr[-3000:]
    assert "[acl_sim] HAZARD" not in control.stderr, control.stderr[-3000:]

    assert GATE in source, "the worker's completion gate is gone: no mutant is equivalent any more"
    escaped, false_alarms = [], []
    for m in mutants:
        run = run_program(binaries[f"m{m.index}"], *RUN_ARGS, cwd=tmp_path / f"m{m.index}")
        hazards = [line for line in run.stderr.splitlines() if line.startswith("[acl_sim] HAZARD")]
        tail = (run.stderr.strip().splitlines()[-1:] or ["(no stderr)"])[0][:300]
        if m.equivalent and (run.returncode != 0 or hazards):
            false_alarms.append(f"{m.describe()}\n    exit {run.returncode}, {len(hazards)} HAZARD lines; {tail}")
        elif not m.equivalent and (run.returncode != HAZARD_EXIT or not hazards):
            escaped.append(f"{m.describe()}\n    exit {run.returncode}, {len(hazards)} HAZARD lines; {tail}")
    needed = [m for m in mutants if not m.equivalent]
    record_property("mutants_needed", len(needed))
    record_property("mutants_caught", len(needed) - len(escaped))
    record_property("mutants_equivalent", len(mutants) - len(needed))
    assert needed, "every wait is equivalent: the test no longer tests anything"
    assert not escaped, f"{len(escaped)} of {len(needed)} removed event waits went unnoticed:\n" + "\n".join(escaped)
    assert not false_alarms, (
        "removing a batch pool's reuse wait (covered by the completion gate) was reported:\n" + "\n".join(false_alarms)
    )
