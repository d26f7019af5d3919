"""The per-user build cache: where builds go, the key of each entry, and `ascgen cache`.

Builds go to $ASCGEN_CACHE_DIR, else $XDG_CACHE_HOME/ascgen, else ~/.cache/ascgen, whichever
folder or checkout ascgen runs from (``--build-dir`` moves one command's builds elsewhere):

    sim-plain/, sim-asan/, sim-tsan/        the simulator's build trees, one per sanitizer setting
    acl_sim-install/<setting>-<key>/        installed simulators, keyed by a digest of the
                                            simulator's sources, the compiler and the flags
    runtime/<setting>-<key>/                the generated programs' runtime library (build.ensure_runtime),
                                            one per sanitizer setting and content
    programs/<name>-<hash>/<backend>-<setting>/  programs, keyed by the digest of their files
    probes/<name>-<hash>/...                the probes of `ascgen probe` and `ascgen calibrate`
    timings.json                            how long the last builds took (the bench's ETA)

An entry is complete or absent: a simulator is installed into a temporary folder renamed into
place, a program's build counts once its stamp is written, after the build succeeded.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ascgen.common.fileio import ensure_dir, write_atomic

F = TypeVar("F", bound=Callable[..., Any])
ENV = "ASCGEN_CACHE_DIR"
# A file to which every build that ran (not one found cached) appends a line: what, seconds,
# folder. Unset: no list. How to see what one test run compiled, and that no program was
# compiled twice (e.g. ASCGEN_BUILD_LOG=$PWD/build-tests/builds.log bash scripts/test.sh).
BUILD_LOG_ENV = "ASCGEN_BUILD_LOG"
LOCK = ".pytest-build.lock"  # the name the simulator tests lock (tests/simulator/conftest.py)
STAMP = ".ascgen-built"  # in a program's build folder: the configuration it was built with
TIMINGS = "timings.json"
# Before a build has been timed in this cache: a simulator (about 4 minutes on 2 cores) and a
# program (its main.cpp and the runtime headers).
DEFAULT_BUILD_S = {"simulator": 240.0, "program": 30.0}


def default_root() -> Path:
    """$ASCGEN_CACHE_DIR, else $XDG_CACHE_HOME/ascgen, else ~/.cache/ascgen."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV]).expanduser().resolve()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return (base / "ascgen").resolve()


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Holds ``folder``'s lock file: one process builds there at a time, others wait. A folder
    that cannot be made is a user error naming what is in the way (fileio.ensure_dir)."""
    ensure_dir(folder)
    with (folder / LOCK).open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def compiler_identity() -> str:
    """What else decides the compiled code: the compiler's version and the flags from the
    environment (CMake reads CXX, CXXFLAGS and LDFLAGS when it configures)."""
    cxx = os.environ.get("CXX") or "c++"
    try:
        version = subprocess.run([cxx, "--version"], capture_output=True, text=True, check=False).stdout
    except OSError:
        version = "missing"
    first = version.splitlines()[0] if version else ""
    env = "\0".join(f"{k}={os.environ.get(k, '')}" for k in ("CXX", "CC", "CXXFLAGS", "CFLAGS", "LDFLAGS"))
    return f"{first}\0{env}"


def tree_digest(folder: Path) -> str:
    """A digest of every file under ``folder`` (names and contents); hidden files and folders named
    build* or __pycache__ are left out."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        hidden = any(p.startswith(".") for p in rel.parts)
        if hidden or any(p.startswith("build") or p == "__pycache__" for p in rel.parts[:-1]):
            continue  # hidden files, and build folders someone made inside the sources
        if path.is_file():
            data = path.read_bytes()
            digest.update(f"{rel.as_posix()}\0{len(data)}\0".encode())
            digest.update(data)
    return digest.hexdigest()


def simulator_key(sources: Path, flags: list[str]) -> str:
    """The key of an installed simulator: its sources, the compiler and the configuration."""
    digest = hashlib.sha256()
    for part in (tree_digest(sources), compiler_identity(), *flags):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def install_atomically(prefix: Path, install: Callable[[Path], None]) -> None:
    """Runs ``install(folder)`` into a temporary folder beside ``prefix``, then renames it into
    place: an interrupted or failed install leaves no entry (and its leftovers are removed by
    the next build or by `ascgen cache clean`)."""
    temp = prefix.with_name(f".{prefix.name}.partial")
    shutil.rmtree(temp, ignore_errors=True)
    try:
        install(temp)
        temp.rename(prefix)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def stamp_matches(build: Path, stamp: str) -> bool:
    try:
        return (build / STAMP).read_text(encoding="utf-8") == stamp
    except OSError:
        return False


def write_stamp(build: Path, stamp: str) -> None:
    write_atomic(build / STAMP, stamp)


def build_seconds(root: Path, what: str) -> float:
    """How long building ``what`` (simulator, program) took here last time; else the default."""
    try:
        value = json.loads((root / TIMINGS).read_text(encoding="utf-8")).get(what)
    except (OSError, ValueError, AttributeError):
        value = None
    return float(value) if isinstance(value, (int, float)) and value > 0 else DEFAULT_BUILD_S[what]


def record_build_seconds(root: Path, what: str, seconds: float) -> None:
    with locked(root):
        try:
            known = json.loads((root / TIMINGS).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            known = {}
        if not isinstance(known, dict):
            known = {}
        known[what] = round(seconds, 1)
        write_atomic(root / TIMINGS, json.dumps(known, indent=2, sort_keys=True) + "\n")


def log_build(what: str, folder: Path, seconds: float) -> None:
    """One line for a build that ran, in $ASCGEN_BUILD_LOG when it names a file (appended whole
    by each process: the suite's workers share the file)."""
    path = os.environ.get(BUILD_LOG_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{what}\t{seconds:.1f}\t{folder}\n")


@dataclass(frozen=True)
class Part:
    name: str  # simulator, programs, probes, ...
    entries: int
    bytes: int


_PARTS = {
    "simulator": ("acl_sim-install", "sim-plain", "sim-asan", "sim-tsan"),
    "runtime": ("runtime",),
    "programs": ("programs",),
    "probes": ("probes",),
}


def _size(path: Path) -> int:
    if path.is_symlink() or path.is_file():
        return path.lstat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if not p.is_dir() or p.is_symlink())


def _entries(root: Path, name: str) -> int:
    folder = root / ("acl_sim-install" if name == "simulator" else name)
    if not folder.is_dir():
        return 0
    return sum(1 for p in folder.iterdir() if p.is_dir() and "-" in p.name and not p.name.startswith("."))


def info(root: Path) -> list[Part]:
    """The cache's parts with their entries and bytes; what is not in a part is under 'other'."""
    parts = [Part(name, _entries(root, name), sum(_size(root / f) for f in folders if (root / f).exists()))
             for name, folders in _PARTS.items()]  # fmt: skip
    known = {f for folders in _PARTS.values() for f in folders}
    other = sum(_size(p) for p in root.iterdir() if p.name not in known) if root.is_dir() else 0
    return [*parts, Part("other", 0, other)]


def clean(root: Path) -> int:
    """Removes every build (the parts info lists and the build timings); returns the bytes freed.
    What else lives there stays (the CANN headers the conformance tests fetch, under
    cann-headers/). Builds under way keep their lock files: a bench building at this moment fails
    its step instead of using half a tree."""
    freed = sum(p.bytes for p in info(root) if p.name != "other")
    if root.is_dir():
        with locked(root):
            for name in [f for folders in _PARTS.values() for f in folders] + [TIMINGS]:
                entry = root / name
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                elif entry.exists() or entry.is_symlink():
                    entry.unlink()
    return freed


def build_dir_option(fn: F) -> F:
    """The --build-dir option of every command that builds: a build root, by default the cache."""
    import click

    return click.option(
        "--build-dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        callback=lambda _ctx, _param, value: value if value is not None else default_root(),
        help=f"Where builds go [default: the per-user cache, ${ENV} or $XDG_CACHE_HOME/ascgen or ~/.cache/ascgen].",
    )(fn)
