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

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USER_ERROR = 2
EXIT_STEP_FAILED = 3
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130  # SIGINT, as a shell reports it


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
