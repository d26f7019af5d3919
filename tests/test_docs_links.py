"""The docs point only at files that are in the repository.

Every relative Markdown link ``[text](path)`` and every backquoted repository path (one that
starts with a top-level folder of the repository, such as `ascgen/plan/planner.py`) in README.md,
docs/*.md, simulator/README.md and simulator/docs/*.md must exist in this checkout. A file
outside the repository (the study's sources in ``../shared/``) is named as such, never as a
repository path: a path that leaves the repository fails here even when it exists on this
machine, unless the text beside it says "outside this repository".
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted(
    [ROOT / "README.md", *ROOT.glob("docs/*.md"), ROOT / "simulator" / "README.md", *ROOT.glob("simulator/docs/*.md")]
)
TOP = ("ascgen", "templates", "simulator", "pipelines", "docs", "tests", "tools", "scripts")
LINK = re.compile(r"\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\s]+)`")
# Not a file of the checkout: outputs, placeholders and patterns (`generated/<name>/`, `src/*.cpp`).
PATTERN = re.compile(r"[<>*{}]|\.\.\.")
OUTSIDE = "outside this repository"


def _in_repo(path: Path) -> bool:
    path = path.resolve()
    return path.is_relative_to(ROOT) and path.exists()


def _targets(doc: Path) -> list[tuple[int, str, str]]:
    """(line, kind, path) of every link and repository-looking path in a Markdown file."""
    out = []
    lines = doc.read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(lines, 1):
        said = " ".join(" ".join(lines[max(n - 2, 0) : n]).split())  # this line and the one before
        for m in LINK.finditer(line):
            target = m.group(1).split("#", 1)[0]
            if target and not re.match(r"^[a-z][a-z0-9+.-]*:", target):  # not http:, mailto:, ...
                out.append((n, "link", target))
        for m in CODE.finditer(line):
            token = m.group(1).rstrip(".,:;")
            if token.startswith("../") and OUTSIDE in said:
                continue  # a file outside the repository, described as such
            if token.startswith("../") or (token.split("/", 1)[0] in TOP and "/" in token):
                out.append((n, "path", token))
    return out


def _exists(doc: Path, kind: str, target: str) -> bool:
    if kind == "link":
        return _in_repo(doc.parent / target)
    if target.startswith("../"):
        return False  # outside the repository, and not said to be
    # A path in backquotes is from the repository's root, or from the document's own tree
    # (simulator/README.md says `docs/shared_bandwidth.md` for simulator/docs/...).
    bases = {ROOT, doc.parent, ROOT / "simulator"}
    return any(_in_repo(base / target) for base in bases)


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_point_at_files_in_the_repository(doc: Path) -> None:
    missing = [
        f"{doc.relative_to(ROOT)}:{n}: {kind} {target}"
        for n, kind, target in _targets(doc)
        if not PATTERN.search(target) and not _exists(doc, kind, target)
    ]
    assert not missing, "not in the repository (fix the path, or describe the file as outside it):\n" + "\n".join(
        missing
    )


def test_the_checker_sees_paths() -> None:
    """The patterns find what they should (a guard against a test that checks nothing)."""
    readme = _targets(ROOT / "README.md")
    assert any(kind == "path" and target.startswith("pipelines/") for _, kind, target in readme)
    assert any(kind == "link" for doc in DOCS for _, kind, _ in _targets(doc))
    assert not _exists(ROOT / "README.md", "path", "../shared/calibration/ascend310_seed.yaml")
    assert not _exists(ROOT / "README.md", "path", "ascgen/no_such_module.py")
