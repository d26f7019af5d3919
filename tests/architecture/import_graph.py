"""ascgen's import graph, read from the source with ast (nothing is imported).

Every ``import`` and ``from ... import`` counts, wherever it stands: at module level, inside a
function, or under ``if TYPE_CHECKING:``. An import for annotations only still ties the two
modules' designs together, so a loop through it is a loop.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "ascgen"


def module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    return {module_name(p, package): p for p in sorted(package.rglob("*.py"))}


def _targets(node: ast.Import | ast.ImportFrom, here: str, known: dict[str, Path]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:  # relative: from . import x, from ..y import z
        package = here.split(".")
        is_package = known[here].name == "__init__.py"
        package = package[: len(package) - node.level + (1 if is_package else 0)]
        base = ".".join([*package, base] if base else package)
    # from a.b import c: c is a module when a.b.c is one, else a name defined in a.b
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]


def imports_of(name: str, known: dict[str, Path]) -> dict[str, int]:
    """The ascgen modules ``name`` imports, each with the line of its first import."""
    tree = ast.parse(known[name].read_text(), filename=str(known[name]))
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for target in _targets(node, name, known):
                if target in known and target != name:
                    found.setdefault(target, node.lineno)
    return found


def graph(package: Path = PACKAGE) -> dict[str, dict[str, int]]:
    """Module -> {module it imports: line of the first such import}."""
    known = modules(package)
    return {name: imports_of(name, known) for name in known}


def cycles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """One loop per knot (see components), as the modules in import order, the first repeated
    at the end."""
    return [_loop(component, edges) for component in components(edges)]


def components(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """The knots: sets of more than one module that all reach each other by imports (the
    strongly connected components, Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return components


def _loop(component: list[str], edges: dict[str, dict[str, int]]) -> list[str]:
    """A shortest loop through the component's first module (breadth-first)."""
    members = set(component)
    start = component[0]
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for v in frontier:
            for w in sorted(edges[v]):
                if w not in members:
                    continue
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if w not in came_from:
                    came_from[w] = v
                    following.append(w)
        frontier = following
    raise AssertionError(f"no loop through {start} in {component}")


def describe(loop: list[str], edges: dict[str, dict[str, int]]) -> str:
    """A loop as `a (line 12) -> b (line 3) -> a`: each module with the line that imports the next."""
    steps = [f"{a} (line {edges[a][b]})" for a, b in itertools.pairwise(loop)]
    return " -> ".join([*steps, loop[-1]])
