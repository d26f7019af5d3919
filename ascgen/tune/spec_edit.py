"""The winning spec as text: the user's YAML with the tuned values written where the loader
found them (ascgen.dsl.yaml_loader.SourceMap), so comments and layout stay; keys the file did not
have are added beside their neighbours; a comment block at the top says how it was found.

The result is read back and must be the winning configuration of the spec, or nothing is
written (an InternalError: a bug here, never a wrong file)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ascgen.bench.schema import Config
from ascgen.common.errors import InternalError, UserError
from ascgen.dsl.configure import configure
from ascgen.dsl.diagnostics import SpecError
from ascgen.dsl.spec import Spec
from ascgen.dsl.yaml_loader import Loc, SourceMap
from ascgen.pipeline import analyze_text

NOTE = "# ascgen tune: "
PLAIN = re.compile(r"[^\s,\]}#]+")


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


class _Text:
    def __init__(self, text: str, smap: SourceMap) -> None:
        self.text, self.smap = text, smap
        self.starts = [0]
        for line in text.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def offset(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col - 1

    def value_span(self, loc: Loc) -> tuple[int, int]:
        """Where the scalar at ``loc`` is written (quotes included)."""
        pos = self.smap.values[loc]
        start = self.offset(pos.line, pos.col)
        quote = self.text[start]
        if quote in "'\"":
            return start, self.text.index(quote, start + 1) + 1
        m = PLAIN.match(self.text, start)
        return start, m.end() if m else start

    def line_span(self, line: int) -> tuple[int, int]:
        return self.starts[line - 1], self.starts[line] if line < len(self.starts) else len(self.text)

    def top_level_insert(self, key: str, value: str) -> Edit:
        """A new top-level ``key: value`` line before ``stages:`` (else at the end)."""
        root = self.smap.values.get(())
        if root is not None and self.text[self.offset(root.line, root.col)] == "{":
            raise UserError(
                f"cannot add '{key}' to a spec written as one flow mapping; add '{key}:' to it and tune again"
            )
        stages = self.smap.keys.get(("stages",))
        if stages is not None:
            at = self.starts[stages.line - 1]
            indent = self.text[at : self.offset(stages.line, stages.col)]
            if not indent.strip():
                return Edit(at, at, f"{indent}{key}: {value}\n")
        end = len(self.text)
        return Edit(end, end, ("" if self.text.endswith("\n") else "\n") + f"{key}: {value}\n")


def _set(t: _Text, loc: Loc, value: str) -> Edit:
    """Replace the value at ``loc``, or add it."""
    if loc in t.smap.values:
        start, end = t.value_span(loc)
        return Edit(start, end, value)
    if len(loc) == 1:
        return t.top_level_insert(str(loc[0]), value)
    parent = t.smap.values.get(loc[:-1])
    if parent is None:
        return t.top_level_insert(str(loc[0]), f"{{{loc[1]}: {value}}}")
    at = t.offset(parent.line, parent.col)
    if t.text[at] == "{":
        empty = t.text[at + 1 :].lstrip().startswith("}")
        return Edit(at + 1, at + 1, f"{loc[1]}: {value}" + ("" if empty else ", "))
    sibling = next(pos for key, pos in t.smap.keys.items() if key[:-1] == loc[:-1])
    line_start = t.starts[sibling.line - 1]
    return Edit(line_start, line_start, " " * (sibling.col - 1) + f"{loc[1]}: {value}\n")


def _remove(t: _Text, loc: Loc) -> Edit:
    """Drop a key and its value: its whole line when it stands alone, else its text."""
    key = t.smap.keys[loc]
    start, end = t.line_span(key.line)
    line = t.text[start:end]
    if re.fullmatch(rf"\s*{loc[-1]}\s*:\s*[^,{{}}\[\]]*?(#.*)?\s*", line):
        return Edit(start, end, "")
    at = t.offset(key.line, key.col)
    m = re.compile(rf"{loc[-1]}\s*:\s*[^,}}\n]*,?\s*").match(t.text, at)
    return Edit(at, m.end() if m else at, "")


def _edits(t: _Text, spec: Spec, config: Config) -> list[Edit]:
    edits = []
    for key in ("threads", "batch", "streams"):
        if getattr(spec, key) != getattr(config, key):
            edits.append(_set(t, (key,), str(getattr(config, key))))
    if spec.buffers.depth != config.depth:
        edits.append(_set(t, ("buffers", "depth"), str(config.depth)))
    if config.sync_every is None and ("sync_every",) in t.smap.keys:
        edits.append(_remove(t, ("sync_every",)))
    elif config.sync_every is not None and config.sync_every != spec.frames_per_sync:
        edits.append(_set(t, ("sync_every",), str(config.sync_every)))
    return edits


def _note(t: _Text, note: list[str]) -> list[Edit]:
    """Replace an earlier tune's note; put this one after the file's opening comments."""
    edits = []
    for i in range(1, len(t.starts)):
        start, end = t.line_span(i)
        if t.text[start:end].startswith(NOTE):
            edits.append(Edit(start, end, ""))
    line = 1
    while line < len(t.starts) and t.text[t.line_span(line)[0] :].startswith("#"):
        line += 1
    at = t.starts[line - 1]
    edits.append(Edit(at, at, "".join(f"{NOTE}{n}\n" for n in note)))
    return edits


def tuned_text(text: str, smap: SourceMap, spec: Spec, config: Config, note: list[str]) -> str:
    """``text`` (the spec file ``spec`` was read from) with ``config`` written into it."""
    t = _Text(text, smap)
    out = text
    edits = _edits(t, spec, config) + _note(t, note)
    # from the end, so offsets hold; of two at one place the later first, so they keep their order
    for _, edit in sorted(enumerate(edits), key=lambda ie: (ie[1].start, ie[1].end, ie[0]), reverse=True):
        out = out[: edit.start] + edit.text + out[edit.end :]
    _check(out, smap.path, spec, config)
    return out


def _check(text: str, path: str, spec: Spec, config: Config) -> None:
    """What was written passes the checks, reads back as ``config``, and nothing else changed."""
    try:
        got, _ = analyze_text(text, path)
    except SpecError as exc:
        raise InternalError(f"the tuned spec does not parse: {exc.sorted()[0].format()}") from None
    sync = got.frames_per_sync if got.streams == "per_thread" else None
    read = Config(threads=got.threads, depth=got.buffers.depth, batch=got.batch, streams=got.streams, sync_every=sync)
    overrides = config.settings()  # the spec's keys: a run-time flag (a time scale) is no part of the file
    if read != Config.model_validate(overrides) or configure(got, overrides) != configure(spec, overrides):
        raise InternalError(f"the tuned spec does not read back as {config.label()}")
