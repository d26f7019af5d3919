"""Where the files that ship with ascgen are: templates and the simulator's sources.

In a wheel they are inside the package; in a clone (editable install) at the repository root.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _find(name: str) -> Path:
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"ascgen's {name}/ folder is missing from {_PACKAGE} and its parent; reinstall ascgen")


def templates_dir() -> Path:
    return _find("templates")


def simulator_dir() -> Path:
    return _find("simulator")


def repo_root() -> Path | None:
    """The clone ascgen runs from, if it runs from one."""
    root = _PACKAGE.parent
    return root if (root / "pyproject.toml").is_file() and (root / "pipelines").is_dir() else None
