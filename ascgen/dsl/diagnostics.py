"""Diagnostics: every user-facing problem carries a file position and, where one can be
guessed, a hint. Problems are collected and reported together, then the command fails once.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field

from ascgen.common.errors import UserError


@dataclass(frozen=True, order=True)
class Position:
    line: int  # 1-based
    col: int  # 1-based


@dataclass(frozen=True)
class Diagnostic:
    path: str
    position: Position
    message: str
    severity: str = "error"

    def format(self) -> str:
        p = self.position
        return f"{self.path}:{p.line}:{p.col}: {self.severity}: {self.message}"


@dataclass
class SpecError(UserError):
    """One or more problems in a spec file; exit code 2."""

    diagnostics: list[Diagnostic] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(d.format() for d in self.sorted())

    def lines(self) -> list[str]:
        """Every diagnostic, then "N errors"."""
        n = len(self.diagnostics)
        return [d.format() for d in self.sorted()] + [f"{n} error{'s' if n != 1 else ''}"]

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.diagnostics, key=lambda d: (d.path, d.position, d.message))


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest candidate, or an empty string."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def one_of(choices: Iterable[str]) -> str:
    items = sorted(choices)
    return ", ".join(items[:-1]) + f" or {items[-1]}" if len(items) > 1 else "".join(items)
