"""The hostile-input corpus: each case runs one command in a fresh folder under limits on time
and memory, then checks that it exited as expected with a short message, never a traceback,
never exit 70 (an internal error) for what is the user's mistake, and that a failed command
left nothing behind (no temporary, hidden or half-written file)."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MEMORY_BYTES = 1 << 30  # address space per case
CPU_SECONDS = 60
TIMEOUT_S = 60.0
SPEC_LINE = re.compile(r"^\S.*:\d+:\d+: (error|warning): \S")
COUNT_LINE = re.compile(r"^\d+ errors?$")
CLICK_USAGE = re.compile(r"^(Usage: |Try '|Error: )")

Setup = Callable[[Path], None]


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]  # after the program; "{tmp}" is the case's folder, "{root}" the repository
    code: int  # the exit code expected
    says: str = ""  # a piece of the message (stderr), or "" to check only its shape
    files: Mapping[str, str | bytes] = field(default_factory=dict)  # written into the folder first
    setup: Setup | None = None  # anything files cannot say (a FIFO, a read-only folder)
    env: Mapping[str, str] = field(default_factory=dict)
    program: str = "ascgen"  # or a path to a binary (fixtures supply it)
    stdout_has: str = ""


def limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _fill(text: str, tmp: Path) -> str:
    return text.replace("{tmp}", str(tmp)).replace("{root}", str(ROOT))


def prepare(case: Case, tmp: Path) -> None:
    for rel, content in case.files.items():
        path = tmp / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(_fill(content, tmp), encoding="utf-8")
    if case.setup:
        case.setup(tmp)


def snapshot(tmp: Path) -> set[str]:
    return {str(p.relative_to(tmp)) for p in tmp.rglob("*")}


def run_case(case: Case, tmp: Path, binary: Path | None = None) -> subprocess.CompletedProcess[str]:
    if case.program == "ascgen":
        cmd = [sys.executable, "-m", "ascgen"]
    else:
        assert binary is not None, case.id
        cmd = [str(binary)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASCGEN_")}
    env.update({k: _fill(v, tmp) for k, v in case.env.items()})
    env.setdefault("PYTHONPATH", str(ROOT))
    return subprocess.run(
        [*cmd, *(_fill(a, tmp) for a in case.args)],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=TIMEOUT_S,
        preexec_fn=limits,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def message_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip() and not line.startswith("progress:")]


def check(case: Case, proc: subprocess.CompletedProcess[str], before: set[str], after: set[str]) -> None:
    where = f"{case.id}: exit {proc.returncode}\nstdout: {proc.stdout[-800:]}\nstderr: {proc.stderr[-1500:]}"
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, where
    assert proc.returncode != 70, where
    assert proc.returncode == case.code, where
    if case.says:
        assert case.says in proc.stderr, where
    if case.stdout_has:
        assert case.stdout_has in proc.stdout, where
    if proc.returncode != 0:
        lines = message_lines(proc.stderr)
        assert lines, f"{where}\nno message"
        spec_errors = all(SPEC_LINE.match(x) or COUNT_LINE.match(x) for x in lines)
        click_usage = all(CLICK_USAGE.match(x) for x in lines) and len(lines) <= 3
        assert len(lines) == 1 or spec_errors or click_usage, f"{where}\nmore than one line"
        new = sorted(after - before)
        assert not new, f"{where}\nleft behind: {new}"
    hidden = sorted(p for p in after if any(part.startswith(".") for part in Path(p).parts) and p not in before)
    assert not hidden, f"{where}\nhidden files left: {hidden}"


def run_and_check(case: Case, tmp: Path, binary: Path | None = None) -> subprocess.CompletedProcess[str]:
    tmp.mkdir(parents=True, exist_ok=True)
    prepare(case, tmp)
    before = snapshot(tmp)
    proc = run_case(case, tmp, binary)
    after = snapshot(tmp)
    try:
        check(case, proc, before, after)
    finally:
        _make_removable(tmp)
    return proc


def _make_removable(tmp: Path) -> None:
    for p in [tmp, *tmp.rglob("*")]:
        if p.is_dir() and not p.is_symlink():
            p.chmod(0o755)
