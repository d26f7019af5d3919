"""Where the files that ship with ascgen are: templates, the simulator's sources, the C++ style.

In a wheel they are inside the package; in a clone (editable install) at the repository root.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # the ascgen package


def _find(name: str) -> Path:
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"ascgen's {name}/ folder is missing from {_PACKAGE} and its parent; reinstall ascgen")


def templates_dir() -> Path:
    return _find("templates")


def simulator_dir() -> Path:
    return _find("simulator")


def clang_format_style() -> Path:
    """The repository's one .clang-format, which also formats generated programs."""
    for candidate in (_PACKAGE / ".clang-format", _PACKAGE.parent / ".clang-format"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"ascgen's .clang-format is missing from {_PACKAGE} and its parent; reinstall ascgen")


def repo_root() -> Path | None:
    """The clone ascgen runs from, if it runs from one."""
    root = _PACKAGE.parent
    return root if (root / "pyproject.toml").is_file() and (root / "pipelines").is_dir() else None
