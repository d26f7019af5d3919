"""The consoles the commands print to: tables on stdout, progress and warnings on stderr."""

from __future__ import annotations

import os
import sys

from rich.console import Console


def _width() -> int | None:
    """Wide enough for the plan tables when output goes to a file or a pipe; COLUMNS overrides
    when it is a sensible number (anything else in the environment is ignored, not a crash)."""
    if sys.stdout.isatty():
        return None
    text = os.environ.get("COLUMNS", "")
    return int(text) if text.isdigit() and 20 <= int(text) <= 10_000 else 140


out = Console(highlight=False, width=_width())
