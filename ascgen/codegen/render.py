"""Program IR -> the files of a generated program, as a pure function: {relative path: text}.

Nothing is written here. C++ passes through the pinned clang-format, so the output is
byte-identical on every machine.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from ascgen.codegen.ir import Program
from ascgen.codegen.lower import RUNTIME_FOLDER
from ascgen.common.errors import UserError
from ascgen.common.resources import clang_format_style, templates_dir

CLANG_FORMAT_VERSION = "23.1.3"
STYLE_FILE = clang_format_style()


class ToolMissing(UserError):
    """A tool the generator needs is not installed; the message says how to install it."""


@cache
def environment() -> Environment:
    """The one Jinja environment of templates/: the generated programs (main.cpp.j2, stages/)
    and the probe programs (probes/) render through it."""
    env = Environment(
        loader=FileSystemLoader(str(templates_dir())),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["cpp_bool"] = lambda value: "true" if value else "false"
    env.filters["mentions"] = mentions
    return env


_COMMENT_OR_STRING = re.compile(r'//[^\n]*|"(?:\\.|[^"\\])*"')


def mentions(cpp: str, name: str) -> bool:
    """Whether the C++ ``cpp`` uses the name ``name`` (in code: not in a comment or a string),
    so a function whose body it is names that parameter, and leaves it unnamed if not."""
    return re.search(rf"\b{re.escape(name)}\b", _COMMENT_OR_STRING.sub(" ", cpp)) is not None


@cache
def clang_format_path() -> str:
    """The pinned clang-format: the one installed beside this Python first, then PATH."""
    beside = Path(sys.executable).with_name("clang-format")
    exe = str(beside) if beside.exists() else shutil.which("clang-format")
    if exe is None:
        raise ToolMissing(f"clang-format not found; install it with: pip install clang-format=={CLANG_FORMAT_VERSION}")
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False).stdout
    if CLANG_FORMAT_VERSION not in version:
        raise ToolMissing(
            f"{exe} is '{version.strip()}', ascgen formats with clang-format {CLANG_FORMAT_VERSION}: "
            f"pip install clang-format=={CLANG_FORMAT_VERSION}"
        )
    return exe


def clang_format(text: str, name: str) -> str:
    proc = subprocess.run(
        [clang_format_path(), f"--style=file:{STYLE_FILE}", f"--assume-filename={name}"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"clang-format failed on {name}: {proc.stderr.strip()}")
    return proc.stdout


@cache
def _stage_templates() -> dict[str, str]:
    """Each stage kind's macro file, by kind (templates/stages/<kind>.j2; a file named _*.j2 holds
    macros several kinds import, and is no kind)."""
    stages = sorted((templates_dir() / "stages").glob("*.j2"))
    return {p.stem: f"stages/{p.name}" for p in stages if not p.stem.startswith("_")}


_INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


def _runtime_source(rel: str) -> Path:
    """Where the runtime file ``rel`` (its path in the runtime folder) comes from: a kind's
    header from templates/stages/, everything else from templates/runtime/."""
    if rel.startswith("stages/"):
        return templates_dir() / rel
    return templates_dir() / "runtime" / rel


def runtime_files(includes: tuple[str, ...] | None = None) -> dict[str, str]:
    """The runtime folder's files, {path in it: text}, verbatim: the headers ``includes`` names
    and every runtime header they include, or with None all of them (every kind's too), each
    with the .cpp file beside it that defines what it declares, if it has one; the CMake files
    (how a program is built, the compiler flags, the cross-compiling toolchain); and the
    README that says how to build and run a program, once for every program."""
    if includes is None:
        wanted = [p.name for p in sorted((templates_dir() / "runtime").glob("*.h"))]
        wanted += [f"stages/{p.name}" for p in sorted((templates_dir() / "stages").glob("*.h"))]
    else:
        wanted = list(includes)
    files: dict[str, str] = {}
    while wanted:
        rel = wanted.pop()
        if rel in files:
            continue
        files[rel] = _runtime_source(rel).read_text(encoding="utf-8")
        wanted += [h for h in _INCLUDE.findall(files[rel]) if _runtime_source(h).is_file()]
        if rel.endswith(".h") and _runtime_source(rel[:-2] + ".cpp").is_file():
            wanted.append(rel[:-2] + ".cpp")
    files = dict(sorted(files.items()))
    for toolchain in sorted((templates_dir() / "runtime" / "cmake").glob("*.cmake")):
        files[f"cmake/{toolchain.name}"] = toolchain.read_text(encoding="utf-8")
    files["README.md"] = (templates_dir() / "runtime" / "README.md").read_text(encoding="utf-8")
    return files


def render(program: Program) -> dict[str, str]:
    """All files of ``program``'s folder: {relative path: text}, its runtime/ folder too when it
    has its own (lower's ``shared_runtime`` not set). Pure: nothing is read but templates."""
    env = environment()
    kinds = {kind: env.get_template(name).make_module({"p": program}) for kind, name in _stage_templates().items()}
    cpp_header = "\n".join(f"// {line}" for line in program.header)
    main = env.get_template("main.cpp.j2").render(p=program, header=cpp_header, kinds=kinds)
    files = {"main.cpp": clang_format(main, "main.cpp")}
    if program.paths["runtime"] == RUNTIME_FOLDER:
        files.update({f"{RUNTIME_FOLDER}/{rel}": text for rel, text in runtime_files(program.includes).items()})
    cmake_header = "\n".join(f"# {line}" for line in program.header)
    sources = [rel for rel in runtime_files(program.includes) if rel.endswith(".cpp")]
    files["CMakeLists.txt"] = env.get_template("CMakeLists.txt.j2").render(
        p=program, header=cmake_header, runtime_sources=sources
    )
    files["README.md"] = env.get_template("README.md.j2").render(p=program)
    files.update(program.files)
    return files
