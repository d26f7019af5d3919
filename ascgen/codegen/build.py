"""`ascgen build`: generate a spec's program into a build folder and compile it with CMake.

Builds go to the per-user build cache (ascgen.codegen.cache: $ASCGEN_CACHE_DIR, else
$XDG_CACHE_HOME/ascgen) unless a command's --build-dir names another root. Each program is
rendered into <root>/programs/<name>-<hash of its files>/ and built there once (``ascgen build``
and ``ascgen bench`` share it); unchanged sources build nothing. The simulator is compiled and
installed once per sanitizer setting and content (its sources, compiler, flags) for all builds.
The runtime's .cpp files are compiled once per setting and content as well, into a library the
programs of the simulator backend link (ensure_runtime): each program compiles only its main.cpp.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ascgen.codegen import cache
from ascgen.codegen.lower import lower
from ascgen.codegen.render import render
from ascgen.common.errors import StepFailed
from ascgen.common.fileio import write_tree_atomic
from ascgen.common.friendly import stop_child
from ascgen.common.progress import CACHED
from ascgen.common.resources import simulator_dir, templates_dir
from ascgen.dsl import spec as dsl
from ascgen.dsl.configure import configure
from ascgen.dsl.parse import parse_file
from ascgen.pipeline import analyze_data
from ascgen.plan.model import Plan

SANITIZERS = ("address", "thread")
Progress = Callable[[str, int, int], None]  # (what, done, total)
# ASCGEN_QUICK_BUILDS=1: programs and the runtime library are compiled at -O1 instead of
# Release's -O3 (a third less compile time, slower host code), ASan+UBSan builds at -O0 instead
# of -O1 (40 % less; TSan builds stay at -O1, which TSan needs to run at a usable speed). The test
# suite sets it (tests/conftest.py): it builds dozens of programs and times none of them against
# another build. The flags are part of each build's stamp and key, so switching rebuilds.
QUICK_ENV = "ASCGEN_QUICK_BUILDS"
_QUICK_FLAGS = {
    None: ["-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG"],
    "address": ["-DASCGEN_SANITIZE_OPT=-O0"],  # templates/runtime/cmake/ascgen_flags.cmake
    "thread": [],
}


def quick_flags(sanitize: str | None) -> list[str]:
    """The CMake flags of a quick build (QUICK_ENV) with this sanitizer setting, else none."""
    return list(_QUICK_FLAGS[sanitize]) if os.environ.get(QUICK_ENV) == "1" else []


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


def simulator_prefix(build_root: Path, sanitize: str | None) -> Path:
    """Where the simulator of this checkout installs for this sanitizer setting: a folder named
    by the setting and a key of the simulator's sources, the compiler and the flags."""
    flags = [f"-DACL_SIM_SANITIZE={sanitize}"] if sanitize else []
    key = cache.simulator_key(simulator_dir().resolve(), [variant_name(sanitize), *flags])
    return build_root / "acl_sim-install" / f"{variant_name(sanitize)}-{key}"


def ensure_simulator(build_root: Path, sanitize: str | None, progress: Progress | None = None) -> Path:
    """Build and install the simulator library for this sanitizer setting; returns the install prefix.

    The prefix, build_root/acl_sim-install/<setting>-<key>, is keyed by the simulator's sources,
    the compiler and the flags (ascgen.codegen.cache), so every checkout with the same simulator
    shares it and one whose simulator differs installs its own. The build folders are those of
    the simulator's own tests (build_root/sim-plain, -asan, -tsan), configured the same way."""
    flags = [f"-DACL_SIM_SANITIZE={sanitize}"] if sanitize else []
    sources = simulator_dir().resolve()
    prefix = simulator_prefix(build_root, sanitize)
    if prefix.is_dir():  # renamed into place complete, never half written
        _say_cached(progress, f"simulator ({variant_name(sanitize)})", prefix)
        return prefix
    base = build_root / _SIM_DIRS[sanitize]
    log = build_root / "acl_sim-install" / f"{variant_name(sanitize)}.log"
    with cache.locked(base):
        if prefix.is_dir():  # another process installed it while this one waited
            _say_cached(progress, f"simulator ({variant_name(sanitize)})", prefix)
            return prefix
        started = time.monotonic()
        if configured_source(base) not in (None, sources):
            # Configured from another checkout's simulator (a build root shared between clones):
            # building there would install that checkout's library and headers.
            for entry in base.iterdir():
                if entry.name != cache.LOCK:
                    shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        if not (base / "build.ninja").exists():
            _run(
                ["cmake", "-G", "Ninja", "-S", str(sources), "-B", str(base), *flags],
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
        cache.install_atomically(
            prefix,
            lambda into: _run(
                ["cmake", "--install", str(base), "--prefix", str(into)], log, "install the simulator", progress
            ),
        )
        seconds = time.monotonic() - started
        cache.record_build_seconds(build_root, "simulator", seconds)
        cache.log_build("simulator", prefix, seconds)
    return prefix


def simulator_flags(prefix: Path) -> list[str]:
    """CMake flags that find the simulator installed at ``prefix``. acl_sim_DIR is given as well:
    find_package keeps the folder it found in the build's cache, so a rebuilt simulator (a new
    prefix) would otherwise leave an old build linking the old one."""
    return [f"-DCMAKE_PREFIX_PATH={prefix}", f"-Dacl_sim_DIR={prefix / 'lib' / 'cmake' / 'acl_sim'}"]


def ensure_runtime(build_root: Path, sanitize: str | None, progress: Progress | None = None) -> Path:
    """Compile the runtime's .cpp files (templates/runtime/*.cpp) into a static library for
    programs of the simulator backend with this sanitizer setting; returns the library.

    Compiled once per setting and content (the runtime, the kinds' headers some of its .cpp files
    include, its build, the simulator's install) in build_root/runtime/<setting>-<key>/, with the
    flags the programs use (templates/runtime/cmake/ascgen_flags.cmake, through
    templates/runtime_library/): each program then compiles only its main.cpp and links the
    library."""
    prefix = ensure_simulator(build_root, sanitize, progress)
    runtime, project = templates_dir() / "runtime", (templates_dir() / "runtime_library").resolve()
    quick = quick_flags(sanitize)
    stages = cache.tree_digest(templates_dir() / "stages")
    key = cache.simulator_key(
        runtime, [variant_name(sanitize), cache.tree_digest(project), stages, str(prefix), *quick]
    )
    build = build_root / "runtime" / f"{variant_name(sanitize)}-{key}"
    library = build / "libascgen_runtime.a"
    if cache.stamp_matches(build, key) and library.is_file():
        return library
    flags = [f"-DASCGEN_RUNTIME_DIR={runtime}", *simulator_flags(prefix)]
    flags += [f"-DASCGEN_SANITIZE={sanitize}"] if sanitize else []
    flags += quick
    log = build / "build.log"
    with cache.locked(build):
        if cache.stamp_matches(build, key) and library.is_file():  # built while this one waited
            return library
        started = time.monotonic()
        if configured_source(build) not in (None, project):  # the same runtime in another checkout
            for entry in build.iterdir():
                if entry.name != cache.LOCK:
                    shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        configure = ["cmake", "-G", "Ninja", "-S", str(project), "-B", str(build), *flags]
        _run(configure, log, "configure the runtime", progress)
        _run(["cmake", "--build", str(build), "-j2"], log, "build the runtime", progress)
        cache.write_stamp(build, key)
        cache.log_build("runtime", build, time.monotonic() - started)
    return library


_announced: set[Path] = set()


def _say_cached(progress: Progress | None, what: str, where: Path) -> None:
    """One line for a build step that had nothing to do (once per process for the simulator)."""
    if progress and where not in _announced:
        _announced.add(where)
        progress(f"{what}: cached, {where}", CACHED, CACHED)


# Where the program's CMakeLists looks for CANN: a build against another toolkit builds again.
_TOOLKIT_ENV = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "DDK_PATH", "NPU_HOST_LIB")


def compile_program(
    name: str,
    src: Path,
    build: Path,
    backend: str,
    sanitize: str | None,
    build_root: Path,
    progress: Progress | None = None,
    quick: list[str] | None = None,
) -> Path:
    """Configure and build a generated program; returns its binary. A build folder whose stamp
    says it was built with this configuration is not touched (one "cached" line); one process
    builds in a folder at a time, and the stamp is written only after a successful build.
    ``quick``: the flags of a quick build (quick_flags)."""
    check_tools()
    flags = [f"-DASCGEN_BACKEND={backend}"]
    if sanitize:
        flags.append(f"-DASCGEN_SANITIZE={sanitize}")
    flags += quick or []
    if backend == "sim":
        flags += simulator_flags(ensure_simulator(build_root, sanitize, progress))
        flags.append(f"-DASCGEN_RUNTIME_LIBRARY={ensure_runtime(build_root, sanitize, progress)}")
    binary = build / name
    toolkit = [f"{k}={os.environ.get(k, '')}" for k in _TOOLKIT_ENV] if backend != "sim" else []
    stamp = "\n".join([str(src), *flags, *toolkit, cache.compiler_identity()]) + "\n"
    if cache.stamp_matches(build, stamp) and binary.is_file():
        _say_cached(progress, f"{name} ({build.name})", binary)
        return binary
    log = build / "build.log"
    with cache.locked(build):
        if cache.stamp_matches(build, stamp) and binary.is_file():  # built while this one waited
            _say_cached(progress, f"{name} ({build.name})", binary)
            return binary
        started = time.monotonic()
        (build / cache.STAMP).unlink(missing_ok=True)
        # Configure every time (a no-op when nothing changed) so the flags and the simulator's
        # install prefix in the cache are always the ones asked for.
        _run(["cmake", "-G", "Ninja", "-S", str(src), "-B", str(build), *flags], log, "configure", progress)
        _run(["cmake", "--build", str(build), "-j2"], log, "build", progress)
        if not binary.exists():
            raise BuildFailed(f"the build finished but {binary} is missing (log: {log})")
        cache.write_stamp(build, stamp)
        seconds = time.monotonic() - started
        cache.record_build_seconds(build_root, "program", seconds)
        cache.log_build("program", build, seconds)
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

    The cache holds one folder per program, <root>/programs/<name>-<hash of its files>/, so
    ``ascgen build`` and ``ascgen bench`` share a build whenever they generate the same program,
    and an unchanged program builds nothing."""
    build_root = build_root or cache.default_root()
    base, files = _program_folder(spec, plan, build_root)
    src = base / "src"
    with cache.locked(base):  # two processes (pytest-xdist workers) may write the same program
        unchanged = src.is_dir() and all(
            (src / rel).is_file() and (src / rel).read_text(encoding="utf-8") == text for rel, text in files.items()
        )
        if not unchanged:
            write_tree_atomic(src, files)
    build = base / f"{backend}-{variant_name(sanitize)}"
    before = _stamp_time(build)
    quick = quick_flags(sanitize)
    binary = compile_program(spec.name, src, build, backend, sanitize, build_root, progress, quick=quick)
    return BuildResult(binary=binary, spec=spec, plan=plan, cached=before is not None and before == _stamp_time(build))


def _stamp_time(build: Path) -> int | None:
    try:
        return (build / cache.STAMP).stat().st_mtime_ns
    except OSError:
        return None


def _program_folder(spec: dsl.Spec, plan: Plan, build_root: Path) -> tuple[Path, dict[str, str]]:
    """Where the program of ``plan`` lies in the cache, and its files."""
    programs = build_root / "programs"
    # Rendered for a folder at the cache's depth: its relative paths hold for every folder there.
    src = programs / spec.name / "src"
    program = lower(plan, src)  # its errors name the spec as the user did
    # The generated header names the spec: the copy in the cache names it by its absolute path,
    # so that one program is one folder (one build) however the path was spelled.
    absolute = Path(plan.spec_path).resolve()
    if absolute.is_file() and str(absolute) != plan.spec_path:
        program = lower(plan.model_copy(update={"spec_path": str(absolute)}), src)
    files = render(program)
    return programs / f"{spec.name}-{content_hash(files)}", files


def build_estimate_s(
    programs: list[tuple[dsl.Spec, Plan]], backend: str = "sim", sanitize: str | None = None,
    build_root: Path | None = None,
) -> float:  # fmt: skip
    """Seconds of building still to do for these programs: the simulator unless installed, and
    each program not yet built, at the pace the cache measured last time (else a default)."""
    build_root = build_root or cache.default_root()
    seconds = 0.0
    if backend == "sim" and not simulator_prefix(build_root, sanitize).is_dir():
        seconds += cache.build_seconds(build_root, "simulator")
    for spec, plan in programs:
        base, _ = _program_folder(spec, plan, build_root)
        if _stamp_time(base / f"{backend}-{variant_name(sanitize)}") is None:
            seconds += cache.build_seconds(build_root, "program")
    return seconds


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
