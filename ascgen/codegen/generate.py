"""`ascgen generate`: render every spec, then write (atomically) or compare with what is there.

Each program folder is standalone (its own runtime/), or with ``shared_runtime`` the programs
share one OUT/runtime/ folder beside them that holds every runtime header and every shipped
device profile (how generated/ is committed: the runtime once, not once per program)."""

from __future__ import annotations

import difflib
from pathlib import Path

from ascgen.codegen.lower import RUNTIME_FOLDER, lower
from ascgen.codegen.render import render, runtime_files
from ascgen.common.errors import UserError
from ascgen.common.fileio import write_tree_atomic
from ascgen.dsl import profile as profiles
from ascgen.dsl.diagnostics import SpecError
from ascgen.dsl.parse import parse_file
from ascgen.pipeline import analyze_data


def render_all(specs: list[Path], out_dir: Path, *, shared_runtime: bool = False) -> dict[str, dict[str, str]]:
    """{folder name: {relative path: text}} for every spec's program, then, with
    ``shared_runtime``, the shared runtime folder; all spec errors reported at once."""
    outputs: dict[str, dict[str, str]] = {}
    origin: dict[str, Path] = {}
    problems = SpecError()
    for path in specs:
        try:
            spec, smap = parse_file(path)
            plan = analyze_data(spec, smap)
        except SpecError as exc:
            problems.diagnostics += exc.diagnostics
            continue
        if spec.name in origin:
            message = f"name '{spec.name}' is already used by {origin[spec.name]}; each program needs its own"
            problems.diagnostics.append(smap.error(("name",), message))
            continue
        if shared_runtime and spec.name == RUNTIME_FOLDER:
            problems.diagnostics.append(
                smap.error(("name",), f"name '{spec.name}' is the shared runtime's folder; rename it")
            )
            continue
        origin[spec.name] = path
        outputs[spec.name] = render(lower(plan, out_dir / spec.name, shared_runtime=shared_runtime))
    if problems.diagnostics:
        raise problems
    if shared_runtime:
        shipped = {f"sim/{name}.profile": text for name, text in profiles.shipped_flat().items()}
        outputs[RUNTIME_FOLDER] = {**runtime_files(), **shipped}
    return outputs


def refuse_mixing(out_dir: Path, *, shared_runtime: bool) -> None:
    """Standalone programs are not written into a folder that holds a shared runtime (a program
    folder has a CMakeLists.txt, the runtime folder none): regenerating generated/ without
    --shared-runtime would put a copy of the runtime in every program folder."""
    runtime = out_dir / RUNTIME_FOLDER
    if not shared_runtime and runtime.is_dir() and not (runtime / "CMakeLists.txt").exists():
        raise UserError(
            f"{runtime}/ is a shared runtime: regenerate these programs with --shared-runtime, "
            "or write standalone programs to another --out"
        )


def write_all(outputs: dict[str, dict[str, str]], out_dir: Path) -> None:
    for name, files in sorted(outputs.items()):
        write_tree_atomic(out_dir / name, files)


def check_tree(outputs: dict[str, dict[str, str]], out_dir: Path, *, specs_cover_all: bool) -> str:
    """A unified diff between what is in ``out_dir`` and what the generator emits ("" if none).

    With ``specs_cover_all`` a program folder that no spec generates is stale too."""
    chunks: list[str] = []
    for name, files in sorted(outputs.items()):
        root = out_dir / name
        present = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} if root.is_dir() else set()
        for rel in sorted(present | set(files)):
            old = (root / rel).read_text(encoding="utf-8") if rel in present else ""
            new = files.get(rel, "")
            if old != new:
                chunks += difflib.unified_diff(
                    old.splitlines(keepends=True),
                    new.splitlines(keepends=True),
                    f"a/{out_dir.as_posix()}/{name}/{rel}",
                    f"b/{out_dir.as_posix()}/{name}/{rel}",
                )
    if specs_cover_all and out_dir.is_dir():
        for extra in sorted(p.name for p in out_dir.iterdir() if p.is_dir() and p.name not in outputs):
            chunks.append(f"{out_dir.as_posix()}/{extra}/: no spec generates this folder\n")
    return "".join(chunks)
