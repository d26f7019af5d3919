"""The environment fingerprint of the ``context`` block: host, CPUs, frequency governor,
NUMA balancing, the spec's hash and the git state. Every reader tolerates a missing file
(containers often hide cpufreq) and returns None for "unknown"."""

from __future__ import annotations

import hashlib
import os
import platform
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Machine:
    host: str
    cpu_model: str
    cpu_count: int
    governor: str | None  # one name, or "a,b" when CPUs differ
    numa_balancing: int | None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def cpu_model(proc: Path = Path("/proc")) -> str:
    text = _read(proc / "cpuinfo") or ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "Hardware") and value.strip():
            return value.strip()
    return platform.processor() or platform.machine() or "unknown"


def governor(sys_root: Path = Path("/sys")) -> str | None:
    cpus = sys_root / "devices" / "system" / "cpu"
    names = {_read(p) for p in sorted(cpus.glob("cpu[0-9]*/cpufreq/scaling_governor"))} - {None}
    return ",".join(sorted(n for n in names if n)) or None


def numa_balancing(proc: Path = Path("/proc")) -> int | None:
    text = _read(proc / "sys" / "kernel" / "numa_balancing")
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def machine(proc: Path = Path("/proc"), sys_root: Path = Path("/sys")) -> Machine:
    return Machine(
        host=socket.gethostname(),
        cpu_model=cpu_model(proc),
        cpu_count=os.cpu_count() or 1,
        governor=governor(sys_root),
        numa_balancing=numa_balancing(proc),
    )


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def git_state(where: Path) -> tuple[str | None, bool | None]:
    """(commit, dirty) of the work tree holding ``where``; (None, None) outside git."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(where), *args], capture_output=True, text=True, timeout=10, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if commit is None:
        return None, None
    status = git("status", "--porcelain", "--untracked-files=no")
    return commit.strip(), (bool(status.strip()) if status is not None else None)
