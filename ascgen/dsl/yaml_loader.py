"""A safe YAML loader that keeps the line and column of every key and value.

Specs arrive in pull requests from anyone, so the loader refuses duplicate keys,
bounds what anchors and aliases may expand to, and never constructs arbitrary objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ascgen.common.fileio import FileRefused, read_bounded
from ascgen.dsl.diagnostics import Diagnostic, Position, SpecError
from ascgen.dsl.names import path_problem

MAX_NODES = 20_000  # after alias expansion; a real spec has a few hundred
MAX_DEPTH = 32  # nesting of mappings and sequences; a real spec needs 4
MAX_BYTES = 1_000_000

Loc = tuple[str | int, ...]


@dataclass
class SourceMap:
    """Where each value (and each mapping key) of a loaded document was written."""

    path: str
    values: dict[Loc, Position] = field(default_factory=dict)
    keys: dict[Loc, Position] = field(default_factory=dict)

    def find(self, loc: Loc, *, key: bool = False) -> Position:
        """The position of ``loc``, or of its nearest enclosing node that has one."""
        loc = tuple(loc)
        if key and loc in self.keys:
            return self.keys[loc]
        while loc:
            if loc in self.values:
                return self.values[loc]
            loc = loc[:-1]
        return self.values.get((), Position(1, 1))

    def error(self, loc: Loc, message: str, *, key: bool = False) -> Diagnostic:
        return Diagnostic(self.path, self.find(loc, key=key), one_line(message))

    def error_at(self, node: Node, message: str) -> Diagnostic:
        return Diagnostic(self.path, _pos(node), one_line(message))


# A plain scalar YAML 1.2's core schema reads as a float that YAML 1.1 (PyYAML) leaves a string:
# an exponent without a dot or without a sign (1e-3, 1E6, 2.5e3).
YAML12_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)[eE][-+]?[0-9]+$")

# Line breaks YAML knows, as escapes: a message quoting a multi-line value stays one line.
_BREAKS = {ord("\n"): "\\n", ord("\r"): "\\r", 0x85: "\\x85", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def one_line(message: str) -> str:
    return message.translate(_BREAKS)


def _pos(node: Node) -> Position:
    return Position(node.start_mark.line + 1, node.start_mark.column + 1)


class _Builder:
    def __init__(self, smap: SourceMap) -> None:
        self.smap = smap
        self.count = 0
        self.errors: list[Diagnostic] = []
        self.open: list[Node] = []  # the collections being built, outermost first
        self.constructor = yaml.SafeLoader("")  # only its scalar resolution is used

    def build(self, node: Node, loc: Loc) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise SpecError(
                [
                    Diagnostic(
                        self.smap.path,
                        _pos(node),
                        f"document expands to more than {MAX_NODES} nodes "
                        "(anchors and aliases are limited); write the values out",
                    )
                ]
            )
        self.smap.values.setdefault(loc, _pos(node))
        if isinstance(node, ScalarNode):
            return self._scalar(node)
        if len(loc) >= MAX_DEPTH:
            raise SpecError([Diagnostic(self.smap.path, _pos(node), f"nesting deeper than {MAX_DEPTH} levels")])
        if any(node is outer for outer in self.open):
            raise SpecError([Diagnostic(self.smap.path, _pos(node), "an alias refers to a node that contains it")])
        self.open.append(node)
        try:
            if isinstance(node, SequenceNode):
                return [self.build(item, (*loc, i)) for i, item in enumerate(node.value)]
            if isinstance(node, MappingNode):
                return self._mapping(node, loc)
        finally:
            self.open.pop()
        raise AssertionError(f"unexpected YAML node {node!r}")  # pragma: no cover

    def _scalar(self, node: ScalarNode) -> Any:
        try:
            value = self.constructor.construct_object(node, deep=True)
            if isinstance(value, str) and node.style is None and YAML12_FLOAT.match(value):
                return float(value)  # 1e-3: a number in YAML 1.2 and to every reader, a string in 1.1
            return value
        except yaml.constructor.ConstructorError:
            raise
        except (ValueError, KeyError, TypeError, ArithmeticError):  # an explicit tag on a bad value: !!int x
            tag = node.tag.replace("tag:yaml.org,2002:", "!!")
            self.errors.append(self.smap.error_at(node, f"'{node.value}' is not a valid {tag}"))
            return node.value

    def _mapping(self, node: MappingNode, loc: Loc) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                self.errors.append(Diagnostic(self.smap.path, _pos(key_node), "merge keys '<<' are not supported"))
                continue
            if not isinstance(key_node, ScalarNode):
                self.errors.append(Diagnostic(self.smap.path, _pos(key_node), "mapping keys must be plain scalars"))
                continue
            key = self._scalar(key_node)
            key = key if isinstance(key, int | str) else str(key)
            if key in out:
                first = self.smap.keys[(*loc, key)]
                self.errors.append(
                    self.smap.error_at(key_node, f"duplicate key '{key}' (first given at line {first.line})")
                )
                continue
            self.smap.keys[(*loc, key)] = _pos(key_node)
            out[key] = self.build(value_node, (*loc, key))
        return out


def _syntax_problem(exc: yaml.MarkedYAMLError) -> str:
    """PyYAML's problem, with its context when that starts on another line (an unclosed bracket)."""
    problem = exc.problem or exc.context or "invalid YAML"
    ctx, cmark, pmark = exc.context, exc.context_mark, exc.problem_mark
    if not (ctx and exc.problem and cmark and pmark and cmark.line != pmark.line):
        return problem
    if ctx.startswith("while "):  # "while parsing a flow mapping"
        return f"{problem} (in {ctx.split(' ', 2)[-1]} that starts at line {cmark.line + 1})"
    return f"{ctx} at line {cmark.line + 1}, {problem} here"  # "found duplicate anchor 'x'; first occurrence"


_OPEN = (
    yaml.BlockMappingStartToken,
    yaml.BlockSequenceStartToken,
    yaml.FlowMappingStartToken,
    yaml.FlowSequenceStartToken,
)
_CLOSE = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)


def _check_depth(text: str, path: str) -> None:
    """Refuse deep nesting from the tokens, before PyYAML's scanner (quadratic in the depth of
    flow collections) and its recursive composer spend seconds on "[[[[...".
    """
    depth = 0
    for token in yaml.scan(text, Loader=yaml.SafeLoader):
        if isinstance(token, _OPEN):
            depth += 1
            if depth > MAX_DEPTH:
                pos = Position(token.start_mark.line + 1, token.start_mark.column + 1)
                raise SpecError([Diagnostic(path, pos, f"nesting deeper than {MAX_DEPTH} levels")])
        elif isinstance(token, _CLOSE):
            depth -= 1


def _position(text: str, index: int) -> Position:
    """The line and column of ``text[index]``, counted as PyYAML's reader counts them."""
    line, col = 1, 1
    for i, ch in enumerate(text[:index]):
        if ch in "\n\x85\u2028\u2029" or (ch == "\r" and text[i + 1 : i + 2] != "\n"):
            line, col = line + 1, 1
        elif ch != "\ufeff":
            col += 1
    return Position(line, col)


def load_text(text: str, path: str) -> tuple[Any, SourceMap]:
    """Parse ``text`` (named ``path`` in messages) into plain data plus a SourceMap."""
    smap = SourceMap(path)
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise SpecError([Diagnostic(path, Position(1, 1), f"file is larger than {MAX_BYTES} bytes")])
    try:
        _check_depth(text, path)
        nodes = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.reader.ReaderError as exc:  # a control character or lone surrogate: YAML is printable text
        message = f"invalid YAML: character U+{exc.character:04X} is not allowed"
        raise SpecError([Diagnostic(path, _position(text, exc.position), message)]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        pos = Position(mark.line + 1, mark.column + 1) if mark else Position(1, 1)
        raise SpecError([Diagnostic(path, pos, f"invalid YAML: {_syntax_problem(exc)}")]) from None
    except yaml.YAMLError as exc:
        raise SpecError([Diagnostic(path, Position(1, 1), f"invalid YAML: {exc}")]) from None
    except RecursionError:
        raise SpecError([Diagnostic(path, Position(1, 1), f"nesting deeper than {MAX_DEPTH} levels")]) from None
    if len(nodes) != 1:
        what = "is empty" if not nodes else "holds several documents; use one"
        pos = _pos(nodes[1]) if len(nodes) > 1 else Position(1, 1)
        raise SpecError([Diagnostic(path, pos, f"the file {what}")])
    builder = _Builder(smap)
    try:
        data = builder.build(nodes[0], ())
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        pos = Position(mark.line + 1, mark.column + 1) if mark else Position(1, 1)
        raise SpecError([Diagnostic(path, pos, f"invalid value: {exc.problem}")]) from None
    if builder.errors:
        raise SpecError(builder.errors)
    return data, smap


def load_file(path: Path) -> tuple[Any, SourceMap]:
    problem = path_problem(str(path.absolute()))  # the spec's path is printed into the generated files
    if problem:
        raise SpecError([Diagnostic(str(path), Position(1, 1), f"{problem} (the spec file's own path)")])
    try:
        raw = read_bounded(path, MAX_BYTES)
    except FileRefused as exc:
        raise SpecError([Diagnostic(str(path), Position(1, 1), str(exc))]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        col = len(raw[line_start : exc.start].decode("utf-8", "replace")) + 1  # characters, as YAML counts
        pos = Position(raw.count(b"\n", 0, exc.start) + 1, col)
        message = f"the file is not UTF-8 text (byte 0x{raw[exc.start]:02x})"
        raise SpecError([Diagnostic(str(path), pos, message)]) from None
    return load_text(text, str(path))
