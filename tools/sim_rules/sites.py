"""Where the simulator raises its rules: every raise_rule(Rule::k..., code, ...) call in
simulator/src, and the two shorthands null_arg (args.non_null) and not_initialized
(init.required)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tools.sim_rules.table import SRC

CALL = re.compile(r"\b(raise_rule|null_arg|not_initialized)\(")
SHORTHANDS = {
    "null_arg": ("kArgsNonNull", "ACL_ERROR_INVALID_PARAM"),
    "not_initialized": ("kInitRequired", "ACL_ERROR_UNINITIALIZE"),
}
DECLARATION = re.compile(r"(aclError|void)\s+$")


@dataclass(frozen=True)
class Site:
    file: str  # relative to simulator/src
    line: int
    symbols: tuple[str, ...]  # Rule enumerators named by the rule argument (two for a ?: choice)
    code: str  # the code argument as written


def scan(src: Path = SRC) -> list[Site]:
    sites: list[Site] = []
    for path in sorted(src.rglob("*.cpp")) + sorted(src.rglob("*.h")):
        sites.extend(scan_text(path.read_text(encoding="utf-8"), path.relative_to(src).as_posix()))
    return sites


def scan_text(text: str, name: str) -> list[Site]:
    sites: list[Site] = []
    for m in CALL.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if "//" in text[line_start : m.start()] or DECLARATION.search(text[line_start : m.start()]):
            continue  # a comment, or the function's own declaration or definition
        line = text.count("\n", 0, m.start()) + 1
        if m[1] in SHORTHANDS:
            symbol, code = SHORTHANDS[m[1]]
            sites.append(Site(name, line, (symbol,), code))
            continue
        args = _arguments(text, m.end())
        symbols = tuple(re.findall(r"\bRule::(k\w+)", args[0])) if args else ()
        sites.append(Site(name, line, symbols, " ".join(args[1].split()) if len(args) > 1 else ""))
    return sites


def _arguments(text: str, start: int) -> list[str]:
    """The top-level arguments of the call whose '(' ends just before `start`."""
    args: list[str] = []
    depth, current, i = 0, "", start
    while i < len(text):
        c = text[i]
        if c in "\"'":
            end = i + 1
            while end < len(text) and text[end] != c:
                end += 2 if text[end] == "\\" else 1
            current += text[i : end + 1]
            i = end + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append(current.strip())
                return args
            depth -= 1
        elif c == "," and depth == 0:
            args.append(current.strip())
            current = ""
            i += 1
            continue
        current += c
        i += 1
    return args
