"""A probe program's build and run, shared by `ascgen probe transfer` and `ascgen calibrate`'s
engine probe. A probe is generated like a pipeline's program (templates/probes/), cached by the
hash of its files in build_root/probes/<name>-<hash>/, and prints one JSON object per case."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from ascgen.codegen import cache
from ascgen.codegen.build import compile_program, content_hash, variant_name
from ascgen.common.errors import UserError
from ascgen.common.fileio import write_tree_atomic
from ascgen.common.friendly import stop_child
from ascgen.dsl import profile as profiles

T = TypeVar("T")


class ProbeFailed(UserError):
    """The probe program could not run or printed something unexpected."""


def source_dir(build_root: Path, name: str) -> Path:
    """Where a probe's files are rendered for (its relative paths hold at the cache's depth)."""
    return build_root / "probes" / name / "src"


def build_probe(
    name: str,
    files: dict[str, str],
    build_root: Path,
    backend: str = "sim",
    sanitize: str | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Path:
    """Writes the probe's files into build_root/probes/<name>-<hash>/ (unless already there) and
    compiles them; returns the binary."""
    base = build_root / "probes" / f"{name}-{content_hash(files)}"
    src = base / "src"
    with cache.locked(base):  # two processes (pytest-xdist workers) may write the same probe
        if not (src.is_dir() and all((src / k).is_file() and (src / k).read_text() == v for k, v in files.items())):
            write_tree_atomic(src, files)
    return compile_program(
        name, src, base / f"{backend}-{variant_name(sanitize)}", backend, sanitize, build_root, progress
    )


def run_probe(
    cmd: Sequence[str],
    profile: str,
    parse: Callable[[str], T],
    on_item: Callable[[T], None] | None = None,
    time_scale: float = 1.0,
    env: dict[str, str] | None = None,
) -> list[T]:
    """Runs a probe (on the simulator: as a device of ``profile``, its flat form, the clock slowed
    by ``time_scale``) and parses each line it prints as it arrives (``on_item``). An interrupted
    run is stopped (SIGTERM, then SIGKILL after a grace); a failed one raises ProbeFailed with the end of its stderr."""
    items: list[T] = []
    with tempfile.TemporaryDirectory(prefix="ascgen-probe-") as tmp:
        flat = Path(tmp) / f"{profile}.profile"
        flat.write_text(profiles.flatten(profiles.load(profile)), encoding="utf-8")
        run_env = {**os.environ, "ACL_SIM_PROFILE": str(flat), "ACL_SIM_TIME_SCALE": repr(time_scale), **(env or {})}
        proc = subprocess.Popen(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=run_env)
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                item = parse(line)
                items.append(item)
                if on_item:
                    on_item(item)
        except BaseException:
            stop_child(proc)
            raise
        err = proc.stderr.read() if proc.stderr else ""
        if proc.wait() != 0:
            raise ProbeFailed(f"the probe {cmd[0]} failed (exit {proc.returncode}): {err.strip()[-600:]}")
    return items
