"""A stage kind is one unit: nothing outside ascgen/stages/ names a kind, imports a kind's
module, or refers to a kind's classes (no isinstance on a schema). What the rest of ascgen
needs of a kind is a hook on StageKind (ascgen/stages/base.py), reached through the registry.
(Transfer directions and copy engines, h2d and the like, are ascgen.transfers.direction.Direction.)
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

from ascgen.stages import base, registry
from ascgen.stages.registry import KINDS

STAGES = Path(base.__file__).parent
# The modules of ascgen/stages/ that the rest may import: the hooks and the list of kinds.
OPEN = {base.__name__, registry.__name__}


def kind_modules() -> set[str]:
    """Every module of ascgen/stages/ but the open ones: the kinds and their helpers."""
    return {f"ascgen.stages.{p.stem}" for p in STAGES.glob("*.py") if p.stem != "__init__"} - OPEN


def kind_classes() -> set[str]:
    """The names of the kinds' classes and schemas, and of the classes they build on in stages/."""
    names: set[str] = set()
    for kind in KINDS.values():
        for cls in (*type(kind).__mro__, *kind.schema.__mro__):
            if inspect.getmodule(cls).__name__ in kind_modules():  # type: ignore[union-attr]
                names.add(cls.__name__)
    return names


def violations(text: str, modules: set[str], classes: set[str], kinds: set[str]) -> list[str]:
    """What ``text`` (a module outside ascgen/stages/) must not do, one line each."""
    out: list[str] = []
    tree = ast.parse(text)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            out += [f"line {line}: imports {a.name}" for a in node.names if a.name in modules]
        elif isinstance(node, ast.ImportFrom) and node.module:
            targets = {node.module} | {f"{node.module}.{a.name}" for a in node.names}
            out += [f"line {line}: imports {t}" for t in sorted(targets & modules)]
            out += [f"line {line}: imports {a.name}" for a in node.names if a.name in classes]
        elif isinstance(node, ast.Name) and node.id in classes:
            out.append(f"line {line}: refers to {node.id}")
        elif isinstance(node, ast.Attribute) and node.attr in classes:
            out.append(f"line {line}: refers to {node.attr}")
    for kind in sorted(kinds):  # quoted anywhere: a string that is, or holds, 'kind'
        for m in re.finditer(rf"[\"']{kind}[\"']", text):
            out.append(f"line {text.count(chr(10), 0, m.start()) + 1}: names the stage kind '{kind}'")
    return out


def test_no_module_outside_the_stages_depends_on_a_kind() -> None:
    modules, classes, kinds = kind_modules(), kind_classes(), set(KINDS)
    assert {"ascgen.stages.model", "ascgen.stages.h2d"} <= modules and {"ModelStage", "Model"} <= classes
    found = []
    for path in sorted(STAGES.parent.rglob("*.py")):
        if path.parent != STAGES:
            found += [f"{path}: {v}" for v in violations(path.read_text(encoding="utf-8"), modules, classes, kinds)]
    assert not found, "a kind's own business outside ascgen/stages/ (make it a StageKind hook):\n" + "\n".join(found)


def test_the_check_sees_imports_isinstance_and_quoted_names() -> None:
    """What the planner and serving did before the model was a kind like the others."""
    text = """
from ascgen.stages.model import ModelStage, latency_ms
from ascgen.stages import h2d
import ascgen.stages.topk
from ascgen.stages.registry import kind_of


def model_stage(stage):
    return stage if isinstance(stage, ModelStage) else None


def uploads(sp, plan):
    return h2d.pads_requests(sp, plan) or kind_of(sp.stage).kind == "model" or sp.stage is ascgen.stages.topk.Topk
"""
    found = violations(text, kind_modules(), kind_classes(), set(KINDS))
    assert found == [
        "line 2: imports ascgen.stages.model",
        "line 2: imports ModelStage",
        "line 3: imports ascgen.stages.h2d",
        "line 4: imports ascgen.stages.topk",
        "line 9: refers to ModelStage",
        "line 13: refers to Topk",
        "line 13: names the stage kind 'model'",
    ]
