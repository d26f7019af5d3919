"""Fuzzing the front end: mutate the shipped valid specs and check that every result is either
valid or a clean SpecError (each diagnostic with a line, a column and a message), never a crash.

Deterministic (derandomize) so CI is stable; ~300 examples in a few seconds.
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascgen.common.errors import EXIT_USER_ERROR
from ascgen.dsl.diagnostics import SpecError
from ascgen.pipeline import analyze_text
from ascgen.plan.report import dumps

ROOT = Path(__file__).resolve().parents[2]
VALID = [*sorted(ROOT.glob("pipelines/*.yaml")), ROOT / "ascgen" / "example_spec.yaml"]
TEXTS = [p.read_text(encoding="utf-8") for p in VALID]
DATA = [yaml.safe_load(t) for t in TEXTS]
FUZZ = settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def outcome(text: str) -> str:
    """Analyze ``text``: "ok" or "errors"; anything but a SpecError propagates and fails the test."""
    try:
        _, plan = analyze_text(text, "fuzz.yaml")
    except SpecError as exc:
        assert exc.diagnostics, "a SpecError carries at least one diagnostic"
        lines = len(re.split("\r\n|[\n\r\x85\u2028\u2029]", text)) + 1  # YAML's line breaks
        for d in exc.diagnostics:
            assert d.path == "fuzz.yaml"
            assert 1 <= d.position.line <= lines and d.position.col >= 1, d.format()
            assert d.message.strip() and "\n" not in d.message, d.format()
        return "errors"
    json.loads(dumps(plan))  # a valid spec also gets through the JSON report
    return "ok"


def test_shipped_specs_are_valid() -> None:
    assert len(TEXTS) >= 2
    assert all(outcome(t) == "ok" for t in TEXTS)


# --- mutations of the parsed data: delete a key, misspell a key, replace a value ----------------

# Explicit alphabets: st.text()'s default makes Hypothesis build its Unicode tables (~10 s, cached
# under .hypothesis/, so paid again on every fresh CI checkout).
CHARS = [*"abcdefghijklmnopqrstuvwxyz_ABC0123456789.", *" :-{}[],#'\"\\&*!|>%@`?=<\t\n\r"]
CHARS += ["é", "ü", "\u00a0", "\u0085", "\u2028", "\x00", "\x07", "\x1b", "\ufeff", "\U0001f600"]
words = st.text(alphabet=st.sampled_from(CHARS), max_size=12)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, 2, 3, 16, 224, 225, 1023, 4096, 8193, 65537]),
    st.floats(allow_nan=True, allow_infinity=True),
    words,
    st.sampled_from(["per_stag", "1MB2", "1MiB", "nv12", "h2d", "model", "resnet50", "shared", "ascend310p", ""]),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(words | scalars, inner, max_size=3),
    max_leaves=6,
)


def _paths(node: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every location of the document (the root included)."""
    out = [here]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*here, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _paths(value, (*here, i))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        node = node[part]
    return node


def _typo(word: str, i: int, kind: int) -> str:
    if not word:
        return "x"
    i %= len(word)
    if kind == 0:
        return word[:i] + word[i + 1 :]  # drop a letter
    if kind == 1:
        return word[:i] + word[i] * 2 + word[i + 1 :]  # double one
    return word[:i] + word[i + 1 : i + 2] + word[i] + word[i + 2 :]  # swap two


@st.composite
def mutated_data(draw: st.DrawFn) -> str:
    data = copy.deepcopy(draw(st.sampled_from(DATA)))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        paths = _paths(data)
        path = draw(st.sampled_from(paths))
        if not path:
            if draw(st.integers(0, 9)) == 0:
                data = draw(values)  # the whole document
            continue
        parent, last = _get(data, path[:-1]), path[-1]
        op = draw(st.sampled_from(["delete", "rename", "replace", "replace"]))
        if op == "delete":
            del parent[last]
        elif op == "rename" and isinstance(parent, dict):
            new = _typo(str(last), draw(st.integers(0, 30)), draw(st.integers(0, 2)))
            parent[new] = parent.pop(last)
        else:
            parent[last] = draw(values)
        if not isinstance(data, dict | list):
            break
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


@FUZZ
@given(mutated_data())
def test_mutated_data_is_valid_or_a_clean_error(text: str) -> None:
    outcome(text)


# --- mutations of the text: duplicate a line, truncate, insert junk ---------------------------

junk = st.text(alphabet=st.sampled_from(CHARS), min_size=1, max_size=6)


@st.composite
def mutated_text(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(TEXTS))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        op = draw(st.sampled_from(["duplicate", "truncate", "junk", "junk", "swap"]))
        lines = text.splitlines(keepends=True) or [""]
        i = draw(st.integers(0, len(lines) - 1))
        if op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap" and i + 1 < len(lines):
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
        elif op == "truncate":
            cut = draw(st.integers(0, len(text)))
            lines = [text[:cut]]
        else:
            at = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:at] + draw(junk) + lines[i][at:]
        text = "".join(lines)
    return text


@FUZZ
@given(mutated_text())
def test_mutated_text_is_valid_or_a_clean_error(text: str) -> None:
    outcome(text)


def test_known_nasty_inputs() -> None:
    """Inputs that once crashed the front end (RecursionError, ValueError from tags, IndexError
    from a key named like a union member) or might."""
    seed = TEXTS[0]
    for text in [
        "name: &a [*a]\n",
        "name: " + "[" * 2000 + "\n",
        "threads: !!int four\n",
        "threads: !!timestamp 2020-13-45\n",
        "? !!bool maybe\n: 1\n",
        "\ufeffname: x\n",
        "name: x\x00\n",
        seed.replace("threads:", "threads: {", 1),
        seed + "stages: []\n",
        seed.replace("batch:", "batch: 99999999999999999999999 #", 1),
        seed.replace("stages:", "stages: !!set", 1),
        "list[# a key that looks like pydantic's name for a union member: 1\n" + seed,
        seed.replace("batch:", "int: 1\nbatch:", 1),
    ]:
        assert outcome(text) in ("ok", "errors")


def test_mutated_spec_through_the_real_cli(tmp_path: Path) -> None:
    spec = tmp_path / "mutated.yaml"
    text = TEXTS[0]
    spec.write_text(text[: len(text) // 2] + "\t{[&*\n" + text[len(text) // 2 :], encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "ascgen", "validate", str(spec)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "ASCGEN_TRACEBACK": ""},
    )
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.returncode == EXIT_USER_ERROR
    assert proc.stderr.startswith(f"{spec}:") and proc.stderr.endswith("1 error\n")
