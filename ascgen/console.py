"""The consoles the commands print to: tables on stdout, progress and warnings on stderr."""

from __future__ import annotations

import os
import sys

from rich.console import Console

# Wide enough for the plan tables when output goes to a file or a pipe (COLUMNS overrides).
out = Console(highlight=False, width=None if sys.stdout.isatty() else int(os.environ.get("COLUMNS", 140)))
