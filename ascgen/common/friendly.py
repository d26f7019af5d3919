"""The one place where an exception becomes what the user sees: a message and an exit code.

Every command is wrapped in ``friendly``. An ``AscgenError`` prints its own lines (a
SpecError: its diagnostics, then "N errors") and exits with its code; Ctrl-C exits 130;
anything else is a bug: one line, exit 70 (``ASCGEN_TRACEBACK=1`` shows the trace).
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ascgen.common.errors import EXIT_INTERNAL, EXIT_INTERRUPTED, AscgenError

F = TypeVar("F", bound=Callable[..., Any])


def friendly(fn: F) -> F:
    """Run a command; turn ascgen's errors into their lines and exit codes, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AscgenError as exc:
            for line in exc.lines():
                click.echo(line, err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("ascgen: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except (click.ClickException, click.exceptions.Exit, click.Abort, SystemExit):
            raise
        except Exception as exc:
            if os.environ.get("ASCGEN_TRACEBACK"):
                raise
            click.echo(internal_error_line(exc), err=True)
            sys.exit(EXIT_INTERNAL)

    return wrapper  # type: ignore[return-value]


def internal_error_line(exc: BaseException) -> str:
    first = str(exc).splitlines()[0] if str(exc) else ""
    return (
        f"ascgen: internal error: {type(exc).__name__}: {first} "
        "(run again with ASCGEN_TRACEBACK=1 for the trace, and report it)"
    )
