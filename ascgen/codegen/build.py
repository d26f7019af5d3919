"""`ascgen build`: generate a spec's program into a build folder and compile it with CMake.

Each program is rendered into build/programs/<name>-<hash of its files>/ and built there once
(``ascgen build`` and ``ascgen bench`` share it); unchanged sources build nothing.
The simulator is compiled and installed once per sanitizer setting and shared by all builds.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import re
import shutil
import subprocess
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ascgen.codegen.lower import lower
from ascgen.codegen.render import render
from ascgen.common.errors import StepFailed
from ascgen.common.fileio import write_tree_atomic
from ascgen.common.friendly import stop_child
from ascgen.common.resources import simulator_dir
from ascgen.dsl import spec as dsl
from ascgen.dsl.configure import configure
from ascgen.dsl.parse import parse_file
from ascgen.pipeline import analyze_data
from ascgen.plan.model import Plan

SANITIZERS = ("address", "thread")
Progress = Callable[[str, int, int], None]  # (what, done, total)


class BuildFailed(StepFailed):
    """A build step failed; the message is one line for the user (the log has the rest)."""


@dataclass(frozen=True)
class BuildResult:
    binary: Path
    spec: dsl.Spec
    plan: Plan
    cached: bool


_TOOLS = {
    "cmake": "apt-get install cmake (CMake >= 3.20)",
    "ninja": "apt-get install ninja-build",
    "c++": "apt-get install g++",
}


def check_tools() -> None:
    for tool, fix in _TOOLS.items():
        if shutil.which(tool) is None:
            raise BuildFailed(f"{tool} not found; install it: {fix}")


def _run(cmd: list[str], log: Path, what: str, progress: Progress | None = None) -> None:
    """Run a build command, logging everything; report its start and Ninja's [done/total]."""
    log.parent.mkdir(parents=True, exist_ok=True)
    if progress:
        progress(what, 0, 0)
    tail: deque[str] = deque(maxlen=40)
    with log.open("a", encoding="utf-8") as fh:
        fh.write(f"$ {' '.join(cmd)}\n")
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                fh.write(line)
                tail.append(line.rstrip())
                m = re.match(r"\[(\d+)/(\d+)\]", line)
                if m and progress:
                    progress(what, int(m.group(1)), int(m.group(2)))
            status = proc.wait()
        except BaseException:  # Ctrl-C, SIGTERM: CMake or Ninja stops too, not on in the background
            stop_child(proc)
            raise
    if status != 0:
        raise BuildFailed(f"{what} failed: {_first_error(list(tail))} (full log: {log})")


def _first_error(lines: list[str]) -> str:
    for key in ("CMake Error", "error:", "Error", "FAILED"):
        for i, line in enumerate(lines):
            if key in line:
                detail = line.strip()
                if key == "CMake Error" and i + 2 < len(lines):
                    detail = " ".join(x.strip() for x in lines[i : i + 3] if x.strip())
                return detail[:300]
    return lines[-1].strip() if lines else "no output"


def variant_name(sanitize: str | None) -> str:
    return sanitize or "plain"


_SIM_DIRS = {None: "sim-plain", "address": "sim-asan", "thread": "sim-tsan"}


def configured_source(build: Path) -> Path | None:
    """The source folder a CMake build folder was configured from (None: not configured)."""
    try:
        cache = (build / "CMakeCache.txt").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", cache, re.MULTILINE)
    return Path(m.group(1)).resolve() if m else None


LOCK_NAME = ".pytest-build.lock"


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Holds an exclusive lock on ``folder`` (created if missing): two processes that build the
    same folder (two ``ascgen bench`` runs, the test workers of pytest-xdist) take turns, and the
    second finds the first one's build done."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / LOCK_NAME).open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def ensure_simulator(build_root: Path, sanitize: str | None, progress: Progress | None = None) -> Path:
    """Build and install the simulator library for this sanitizer setting; returns the install prefix.

    The build folders are those of the simulator's own tests (build/sim-plain, -asan, -tsan),
    configured the same way, so the library is compiled once per setting whoever needs it first."""
    base = build_root / _SIM_DIRS[sanitize]
    prefix = build_root / "acl_sim-install" / variant_name(sanitize)
    flags = [f"-DACL_SIM_SANITIZE={sanitize}"] if sanitize else []
    log = build_root / "acl_sim-install" / f"{variant_name(sanitize)}.log"
    with locked(base):
        if configured_source(base) not in (None, simulator_dir().resolve()):
            # Configured from another checkout's simulator (a build root shared between clones):
            # building there would install that checkout's library and headers.
            for entry in base.iterdir():
                if entry.name != LOCK_NAME:
                    shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        if not (base / "build.ninja").exists():
            _run(
                ["cmake", "-G", "Ninja", "-S", str(simulator_dir()), "-B", str(base), *flags],
                log,
                "configure the simulator",
                progress,
            )
        _run(
            ["cmake", "--build", str(base), "-j2", "--target", "acl_sim", "acl_sim_imaging"],
            log,
            "build the simulator",
            progress,
        )
        _run(["cmake", "--install", str(base), "--prefix", str(prefix)], log, "install the simulator", progress)
    return prefix


def compile_program(
    name: str,
    src: Path,
    build: Path,
    backend: str,
    sanitize: str | None,
    build_root: Path,
    progress: Progress | None = None,
) -> Path:
    """Configure and build a generated program; returns its binary."""
    check_tools()
    flags = [f"-DASCGEN_BACKEND={backend}"]
    if sanitize:
        flags.append(f"-DASCGEN_SANITIZE={sanitize}")
    if backend == "sim":
        flags.append(f"-DCMAKE_PREFIX_PATH={ensure_simulator(build_root, sanitize, progress)}")
    log = build / "build.log"
    # Configure every time (a no-op when nothing changed) so the flags and the simulator's
    # install prefix in the cache are always the ones asked for.
    _run(["cmake", "-G", "Ninja", "-S", str(src), "-B", str(build), *flags], log, "configure", progress)
    _run(["cmake", "--build", str(build), "-j2"], log, "build", progress)
    binary = build / name
    if not binary.exists():
        raise BuildFailed(f"the build finished but {binary} is missing (log: {log})")
    return binary


def content_hash(files: dict[str, str]) -> str:
    """A short digest of a program's files: the name of its folder in the build cache."""
    digest = hashlib.sha256()
    for rel in sorted(files):
        digest.update(f"{rel}\0{len(files[rel])}\0{files[rel]}".encode())
    return digest.hexdigest()[:12]


def build_program(
    spec_path: Path,
    spec: dsl.Spec,
    plan: Plan,
    *,
    backend: str = "sim",
    sanitize: str | None = None,
    build_root: Path | None = None,
    progress: Progress | None = None,
) -> BuildResult:
    """Generate the program of a planned spec into the build cache and compile it.

    The cache holds one folder per program, build/programs/<name>-<hash of its files>/, so
    ``ascgen build`` and ``ascgen bench`` share a build whenever they generate the same program,
    and an unchanged program builds nothing."""
    build_root = build_root or Path.cwd() / "build"
    programs = build_root / "programs"
    # Rendered for a folder at the cache's depth: its relative paths hold for every folder there.
    files = render(lower(plan, programs / spec.name / "src"))
    base = programs / f"{spec.name}-{content_hash(files)}"
    src = base / "src"
    with locked(base):
        unchanged = src.is_dir() and all(
            (src / rel).is_file() and (src / rel).read_text(encoding="utf-8") == text for rel, text in files.items()
        )
        if not unchanged:
            write_tree_atomic(src, files)
        build = base / f"{backend}-{variant_name(sanitize)}"
        binary = compile_program(spec.name, src, build, backend, sanitize, build_root, progress)
    return BuildResult(binary=binary, spec=spec, plan=plan, cached=unchanged)


def build_variant(
    spec_path: Path,
    overrides: dict[str, object] | None = None,
    *,
    backend: str = "sim",
    sanitize: str | None = None,
    build_root: Path | None = None,
    progress: Progress | None = None,
) -> BuildResult:
    """Parse, configure (ascgen.dsl.configure), plan and build ``spec_path``."""
    spec, smap = parse_file(spec_path)
    if overrides:
        spec = configure(spec, overrides)
    plan = analyze_data(spec, smap)
    return build_program(
        spec_path, spec, plan, backend=backend, sanitize=sanitize, build_root=build_root, progress=progress
    )
