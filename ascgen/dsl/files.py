"""Which spec files a command line names: files as given, folders as the *.yaml files below them."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ascgen.common.errors import UserError


def expand_specs(paths: Iterable[Path]) -> list[Path]:
    """Spec files, with folders expanded to the *.yaml files below them (sorted).

    A folder without any is a user error: validating nothing must not pass."""
    files: list[Path] = []
    for p in paths:
        if not p.is_dir():
            files.append(p)
            continue
        found = sorted(q for q in p.rglob("*.yaml") if not q.is_dir())
        if not found:
            raise UserError(f"{p}: no spec in this folder (specs are *.yaml files); name a spec file or another folder")
        files += found
    return files
