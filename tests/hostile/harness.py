"""The hostile-input corpus: each case runs one command in a fresh folder under limits on time
and memory, then checks that it exited as expected with a short message, never a traceback,
never exit 70 (an internal error) for what is the user's mistake, and that a failed command
left nothing behind (no temporary, hidden or half-written file).

An `ascgen` case runs in this process (click's CliRunner, under the same limits: ``inside``),
not in a new Python process that would import ascgen again (0.45 CPU s a case, some 300 cases),
unless the process itself is what the case tests (``in_a_process``): an environment variable
read at start-up (COLUMNS, the locale, PYTHONIOENCODING, TMPDIR, ...), or a case marked
``process=True`` so that each kind of case also goes through the installed entry point."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import resource
import signal
import subprocess
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping
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
    process: bool = False  # an `ascgen` case: run `python -m ascgen`, not the command in this process


def with_processes(cases: list[Case], ids: set[str]) -> list[Case]:
    """``cases`` with those named by ``ids`` run through a real `python -m ascgen` (its start-up,
    its exit status, its limits): a few of each kind, so the installed entry point stays tested."""
    assert ids <= {c.id for c in cases}, ids - {c.id for c in cases}
    return [dataclasses.replace(c, process=True) if c.id in ids else c for c in cases]


def in_a_process(case: Case) -> bool:
    """Whether the case needs a process of its own: a program, a case marked so, or an environment
    variable other than ascgen's own (which ascgen reads when a command runs, not at start-up)."""
    return case.program != "ascgen" or case.process or any(not k.startswith("ASCGEN_") for k in case.env)


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


class CaseTimeout(BaseException):
    """A case in this process ran past its time (a BaseException: no command may catch it)."""


def _address_space() -> int:
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[0]) * resource.getpagesize()


@contextlib.contextmanager
def inside(tmp: Path, timeout_s: float = TIMEOUT_S) -> Iterator[None]:
    """Run in ``tmp`` with a case's limits, in this process: at most MEMORY_BYTES of address space
    more than it holds now, and ``timeout_s`` of wall clock; then back where it was, as it was."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    bound = min(b for b in (_address_space() + MEMORY_BYTES, soft, hard) if b != resource.RLIM_INFINITY)

    def stop(signum: int, frame: object) -> None:
        raise CaseTimeout(f"still running after {timeout_s} s")

    cwd = os.getcwd()
    old_alarm = signal.signal(signal.SIGALRM, stop)
    resource.setrlimit(resource.RLIMIT_AS, (bound, hard))
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    os.chdir(tmp)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_alarm)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        os.chdir(cwd)


def run_here(case: Case, tmp: Path) -> subprocess.CompletedProcess[str]:
    """One `ascgen` command in this process, as `python -m ascgen` would run it in ``tmp``: the
    environment without the suite's ASCGEN_ settings plus the case's, no standard input; an
    exception that escapes the command is a traceback on stderr, as a process would print it."""
    from click.testing import CliRunner

    from ascgen.cli import cli

    args = [_fill(a, tmp) for a in case.args]
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("ASCGEN_")}
    env.update({k: _fill(v, tmp) for k, v in case.env.items()})
    with inside(tmp):
        result = CliRunner().invoke(cli, args, prog_name="ascgen", env=env)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    return subprocess.CompletedProcess(["ascgen", *args], result.exit_code, result.stdout, stderr)


def run_case(case: Case, tmp: Path, binary: Path | None = None) -> subprocess.CompletedProcess[str]:
    if not in_a_process(case):
        return run_here(case, tmp)
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
