"""The one error model of ascgen: every failure a user can meet is one of these, and each
class carries its exit code. ``ascgen.common.friendly.friendly`` maps them to messages in one place.

    AscgenError
      UserError      2  bad spec, bad flag, bad file given by the user (SpecError is one)
      CheckFailed    1  a check ran and said no (generate --check, compare found a regression)
      StepFailed     3  a build or run step failed (compiler, cmake, the generated program)
      Interrupted  130  the user pressed Ctrl-C (SIGINT); a bare KeyboardInterrupt is one too
      InternalError 70  a bug in ascgen; anything not an AscgenError is treated as one
"""

from __future__ import annotations

import unicodedata

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USER_ERROR = 2
EXIT_STEP_FAILED = 3
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130  # SIGINT, as a shell reports it
EXIT_TERMINATED = 143  # SIGTERM (a scheduler's stop), handled as SIGINT: what was finished is kept
SHOWN_CHARS = 64  # of a value a message echoes (a file name, a flag's value, a line of a file)
LINE_CHARS = 1000  # of a whole message line: a backstop for echoes no one cut
_UNPRINTABLE = ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")  # control, format (bidi), separators, surrogates


def shown(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` as a message may echo it: cut to ``limit`` characters (saying how many more there
    were) and every character a terminal would act on or hide (controls, escape sequences, bidi
    overrides, line separators, lone surrogates from undecodable bytes) written as an escape.
    Every message that quotes what the user gave goes through this, so that a 2 MB line, binary
    bytes or a 5,000-digit number come back as one short, inert line."""
    cut = text[:limit]
    more = len(text) - len(cut)
    safe = "".join(
        ch.encode("unicode_escape", "backslashreplace").decode("ascii")
        if unicodedata.category(ch) in _UNPRINTABLE
        else ch
        for ch in cut
    )
    return safe + (f"... ({more:,} more characters)" if more > 0 else "")


class AscgenError(Exception):
    """A failure with a one-line message for the user and an exit code."""

    exit_code = EXIT_INTERNAL

    def lines(self) -> list[str]:
        """What the user reads on stderr."""
        return [f"ascgen: error: {self}"]


class UserError(AscgenError):
    """What the user gave is wrong (spec, flag, file, folder); the message says how to fix it."""

    exit_code = EXIT_USER_ERROR


class CheckFailed(AscgenError):
    """A check ran and failed (stale generated files, a regression)."""

    exit_code = EXIT_CHECK_FAILED

    def lines(self) -> list[str]:
        return [str(self)]  # a verdict, not an error: "generated/ is stale; run: ..."


class StepFailed(AscgenError):
    """A build or run step failed; the log has the rest."""

    exit_code = EXIT_STEP_FAILED


class Interrupted(AscgenError):
    """The user stopped a command (Ctrl-C); what it had finished is kept where it says."""

    exit_code = EXIT_INTERRUPTED

    def lines(self) -> list[str]:
        return [f"ascgen: interrupted: {self}"]


class InternalError(AscgenError):
    """A bug in ascgen."""

    exit_code = EXIT_INTERNAL
