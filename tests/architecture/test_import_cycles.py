"""No module of ascgen imports itself through others: layers import downwards only.

The graph counts imports at module level, inside functions and under TYPE_CHECKING
(tests/architecture/import_graph.py says why).
"""

from __future__ import annotations

from pathlib import Path

from tests.architecture.import_graph import components, cycles, describe, graph


def test_ascgen_has_no_import_cycle() -> None:
    edges = graph()
    assert "ascgen.stages.registry" in edges["ascgen.dsl.spec"]  # the graph sees real imports
    knots = [
        f"{len(knot)} modules import each other: {', '.join(knot)}; one loop: {describe(loop, edges)}"
        for knot, loop in zip(components(edges), cycles(edges), strict=True)
    ]
    assert not knots, "import cycles in ascgen/ (move the shared types down a layer):\n" + "\n".join(knots)


def _package(root: Path, files: dict[str, str]) -> Path:
    package = root / "pkg"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return package


def test_a_loop_through_a_function_level_import_is_named(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "__init__.py": "",
            "low.py": "import os\n\n\ndef f():\n    from pkg.high import g\n    return g\n",
            "high.py": "from pkg import low\n",
            "alone.py": "from pkg.low import f\n",
        },
    )
    edges = graph(package)
    assert cycles(edges) == [["pkg.high", "pkg.low", "pkg.high"]]
    assert describe(["pkg.high", "pkg.low", "pkg.high"], edges) == "pkg.high (line 1) -> pkg.low (line 5) -> pkg.high"


def test_a_loop_through_type_checking_and_relative_imports_counts(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "__init__.py": "",
            "sub/__init__.py": "",
            "sub/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..b import B\n",
            "b.py": "from .sub.a import A\nfrom pkg.sub import a\n",
            "c.py": "import pkg.b\n",
        },
    )
    loops = cycles(graph(package))
    assert loops == [["pkg.b", "pkg.sub.a", "pkg.b"]]


def test_separate_loops_are_each_reported(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from pkg import b\n",
            "b.py": "from pkg import c\n",
            "c.py": "from pkg import a\n",
            "x.py": "from pkg.y import thing\n",
            "y.py": "from pkg.x import other\n",
        },
    )
    assert cycles(graph(package)) == [["pkg.a", "pkg.b", "pkg.c", "pkg.a"], ["pkg.x", "pkg.y", "pkg.x"]]
