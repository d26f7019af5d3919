"""The one place where an exception becomes what the user sees: a message and an exit code.

Every command is wrapped in ``friendly``. An ``AscgenError`` prints its own lines (a
SpecError: its diagnostics, then "N errors"; each cut and escaped by ``shown`` as a backstop
for an echo no one cut) and exits with its code; Ctrl-C exits 130, SIGTERM (handled as Ctrl-C:
what was finished is kept) 143; children are stopped with SIGTERM first (``stop_child``);
an OSError about a path the user gave (a name too long, no permission, a full disk) is their
user error, exit 2; anything else is a bug: one line, exit 70 (``ASCGEN_TRACEBACK=1`` shows the trace).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ascgen.common.errors import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    EXIT_USER_ERROR,
    LINE_CHARS,
    AscgenError,
    Interrupted,
    shown,
)

F = TypeVar("F", bound=Callable[..., Any])


STOP_GRACE_S = 10.0  # a child asked to stop (SIGTERM) has this long to keep its results and clean up
_terminated = threading.Event()  # SIGTERM arrived: exit 143, not 130


class Terminated(KeyboardInterrupt):
    """SIGTERM (a scheduler's stop, `kill`): handled exactly as Ctrl-C, so every command keeps
    what it finished (tune's measured points, calibrate's figures, bench's runs), then exits 143."""


def _on_sigterm(signum: int, frame: object) -> None:
    _terminated.set()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM stops at once
    raise Terminated


def handle_sigterm() -> None:
    """SIGTERM as Ctrl-C from here on (the main thread of ``ascgen``)."""
    signal.signal(signal.SIGTERM, _on_sigterm)


def stop_child(proc: subprocess.Popen[Any], grace_s: float = STOP_GRACE_S) -> None:
    """Stop a child gracefully: SIGTERM (a generated program keeps its partial results and removes
    its temporary files, as at Ctrl-C), SIGKILL only if it has not ended within ``grace_s``."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        proc.terminate()
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def friendly(fn: F) -> F:
    """Run a command; turn ascgen's errors into their lines and exit codes, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AscgenError as exc:
            for line in exc.lines():
                click.echo(shown(line, LINE_CHARS), err=True)
            stopped = isinstance(exc, Interrupted) and _terminated.is_set()
            sys.exit(EXIT_TERMINATED if stopped else exc.exit_code)
        except KeyboardInterrupt:
            click.echo(f"ascgen: {'terminated (SIGTERM)' if _terminated.is_set() else 'interrupted'}", err=True)
            sys.exit(EXIT_TERMINATED if _terminated.is_set() else EXIT_INTERRUPTED)
        except (click.ClickException, click.exceptions.Exit, click.Abort, SystemExit):
            raise
        except OSError as exc:
            if exc.errno not in PATH_ERRNOS or exc.filename is None or os.environ.get("ASCGEN_TRACEBACK"):
                raise
            click.echo(path_refused_line(exc), err=True)  # the system refused a path: not a bug of ascgen
            sys.exit(EXIT_USER_ERROR)
        except Exception as exc:
            if os.environ.get("ASCGEN_TRACEBACK"):
                raise
            click.echo(internal_error_line(exc), err=True)
            sys.exit(EXIT_INTERNAL)

    return wrapper  # type: ignore[return-value]


# What the operating system says about a path the user gave (a name too long, a folder that is
# a file, no permission, a full or read-only disk): a user error wherever it surfaces.
PATH_ERRNOS = frozenset(
    {errno.ENAMETOOLONG, errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.EEXIST, errno.EACCES, errno.EPERM,
     errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.ELOOP, errno.EMLINK, errno.EXDEV, errno.ETXTBSY}
)  # fmt: skip


def path_refused_line(exc: OSError) -> str:
    name = os.fsdecode(exc.filename) if isinstance(exc.filename, bytes | str) else str(exc.filename)
    return f"ascgen: error: cannot use {shown(name)}: {exc.strerror or exc}"


def internal_error_line(exc: BaseException) -> str:
    first = shown(str(exc).splitlines()[0], LINE_CHARS) if str(exc) else ""
    return (
        f"ascgen: internal error: {type(exc).__name__}: {first} "
        "(run again with ASCGEN_TRACEBACK=1 for the trace, and report it)"
    )
