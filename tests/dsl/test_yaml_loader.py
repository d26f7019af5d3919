"""The position-keeping YAML loader: where every key and value was written, and what it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascgen.dsl import yaml_loader
from ascgen.dsl.diagnostics import Diagnostic, Position, SpecError
from ascgen.dsl.yaml_loader import load_file, load_text

TEXT = """\
name: demo
source: {kind: jpeg_files, max_bytes: 1MiB}
stages:
  - {name: upload, kind: h2d}
  - name: decode
    kind: jpeg_decode
    max: {width: 1920, height: 1080}
  - [nested, [deeper, 3]]
"""


def refused(text: str) -> list[Diagnostic]:
    with pytest.raises(SpecError) as info:
        load_text(text, "s.yaml")
    return info.value.sorted()


def only(text: str) -> tuple[int, int, str]:
    (diag,) = refused(text)
    assert diag.path == "s.yaml"
    return diag.position.line, diag.position.col, diag.message


def test_plain_data() -> None:
    data, _ = load_text(TEXT, "s.yaml")
    assert data["source"] == {"kind": "jpeg_files", "max_bytes": "1MiB"}
    assert data["stages"][1]["max"] == {"width": 1920, "height": 1080}
    assert data["stages"][2] == ["nested", ["deeper", 3]]


def test_positions_of_values() -> None:
    _, smap = load_text(TEXT, "s.yaml")
    assert smap.values[()] == Position(1, 1)
    assert smap.values[("name",)] == Position(1, 7)
    assert smap.values[("source",)] == Position(2, 9)
    assert smap.values[("source", "max_bytes")] == Position(2, 39)
    assert smap.values[("stages",)] == Position(4, 3)
    assert smap.values[("stages", 0)] == Position(4, 5)
    assert smap.values[("stages", 0, "kind")] == Position(4, 26)
    assert smap.values[("stages", 1)] == Position(5, 5)
    assert smap.values[("stages", 1, "kind")] == Position(6, 11)
    assert smap.values[("stages", 1, "max", "height")] == Position(7, 32)


def test_positions_in_nested_sequences() -> None:
    _, smap = load_text(TEXT, "s.yaml")
    assert smap.values[("stages", 2)] == Position(8, 5)
    assert smap.values[("stages", 2, 0)] == Position(8, 6)
    assert smap.values[("stages", 2, 1)] == Position(8, 14)
    assert smap.values[("stages", 2, 1, 1)] == Position(8, 23)


def test_positions_of_keys() -> None:
    _, smap = load_text(TEXT, "s.yaml")
    assert smap.keys[("source",)] == Position(2, 1)
    assert smap.keys[("source", "max_bytes")] == Position(2, 28)
    assert smap.keys[("stages", 1, "kind")] == Position(6, 5)
    assert smap.keys[("stages", 1, "max", "width")] == Position(7, 11)


def test_find_falls_back_to_the_nearest_enclosing_node() -> None:
    _, smap = load_text(TEXT, "s.yaml")
    assert smap.find(("stages", 1, "format")) == Position(5, 5)
    assert smap.find(("stages", 1, "kind"), key=True) == Position(6, 5)
    assert smap.find(("stages", 1, "kind")) == Position(6, 11)
    assert smap.find(("nothing", "here")) == Position(1, 1)
    assert smap.error(("source", "kind"), "m").format() == "s.yaml:2:16: error: m"


def test_scalars_resolve_as_yaml_1_1() -> None:
    data, _ = load_text("a: 0x10\nb: 1_000\nc: null\nd: 2.5\ne: '16'\nf: yes\n", "s.yaml")
    assert data == {"a": 16, "b": 1000, "c": None, "d": 2.5, "e": "16", "f": True}


def test_integer_keys_stay_integers() -> None:
    data, smap = load_text("latency_ms: {1: 2.5, 16: 21.78}\n", "s.yaml")
    assert data == {"latency_ms": {1: 2.5, 16: 21.78}}
    assert smap.keys[("latency_ms", 16)] == Position(1, 22)


def test_duplicate_keys() -> None:
    diags = refused("name: a\nthreads: 2\nname: b\nsource:\n  kind: x\n  kind: y\n")
    assert [(d.position.line, d.position.col, d.message) for d in diags] == [
        (3, 1, "duplicate key 'name' (first given at line 1)"),
        (6, 3, "duplicate key 'kind' (first given at line 5)"),
    ]


def test_alias_expansion_is_limited() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for name, prev in zip("bcde", "abcd", strict=True):
        bomb += f"{name}: &{name} [{', '.join(['*' + prev] * 10)}]\n"
    line, _, message = only(bomb)
    assert f"more than {yaml_loader.MAX_NODES} nodes" in message and "anchors and aliases" in message
    assert line >= 1


def test_small_aliases_are_fine() -> None:
    data, smap = load_text("x: &v [1, 2]\ny: *v\n", "s.yaml")
    assert data == {"x": [1, 2], "y": [1, 2]}
    assert smap.values[("y",)] == Position(1, 4)  # an alias is where its anchor was written


def test_recursive_alias_is_refused() -> None:
    assert only("a: &r [1, *r]\n") == (1, 4, "an alias refers to a node that contains it")
    assert only("a: &r {b: {c: *r}}\n")[2] == "an alias refers to a node that contains it"


def test_deep_nesting_is_refused() -> None:
    depth = yaml_loader.MAX_DEPTH + 1
    assert "nesting deeper than" in only("a: " + "[" * depth + "]" * depth + "\n")[2]
    assert only("a: " + "[" * 600 + "]" * 600 + "\n") == (1, 35, "nesting deeper than 32 levels")  # > Python stack
    load_text("a: " + "[" * 8 + "]" * 8 + "\n", "s.yaml")


def test_merge_keys_are_refused() -> None:
    assert only("base: &b {x: 1}\nitem:\n  <<: *b\n  y: 2\n") == (3, 3, "merge keys '<<' are not supported")


def test_complex_keys_are_refused() -> None:
    assert only("? [a, b]\n: 1\n") == (1, 3, "mapping keys must be plain scalars")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: !!int four\n", "'four' is not a valid !!int"),
        ("a: !!float fast\n", "'fast' is not a valid !!float"),
        ("a: !!timestamp 2020-13-45\n", "'2020-13-45' is not a valid !!timestamp"),
        ("a: !!bool maybe\n", "'maybe' is not a valid !!bool"),
        ("a: !!python/object:os.system x\n", "invalid value: could not determine a constructor"),
        ("a: !custom x\n", "invalid value: could not determine a constructor for the tag '!custom'"),
    ],
)
def test_explicit_tags(text: str, message: str) -> None:
    line, col, got = only(text)
    assert (line, col) == (1, 4) and got.startswith(message)


@pytest.mark.parametrize(
    ("text", "position", "message"),
    [
        ("a: {b: 1\nc: 2\n", (2, 2), "(in a flow mapping that starts at line 1)"),
        ("a: [1, 2\n", (2, 1), "expected ',' or ']', but got '<stream end>'"),
        ("a: 1\n\tb: 2\n", (2, 1), "found character '\\t' that cannot start any token"),
        ("a: b: c\n", (1, 5), "mapping values are not allowed here"),
        ("a: *nope\n", (1, 4), "found undefined alias 'nope'"),
        ("a: &x 1\nb: &x 2\n", (2, 4), "found duplicate anchor 'x'; first occurrence at line 1"),
        ("a: 1\nb: x\x07\n", (2, 5), "character U+0007 is not allowed"),
        ("a: 1\u2028b: \x00\n", (2, 4), "character U+0000 is not allowed"),  # U+2028 breaks a line in YAML
    ],
)
def test_yaml_syntax_errors(text: str, position: tuple[int, int], message: str) -> None:
    line, col, got = only(text)
    assert (line, col) == position
    assert got.startswith("invalid YAML: ") and message in got


@pytest.mark.parametrize(
    ("text", "position", "message"),
    [
        ("", (1, 1), "the file is empty"),
        ("# only a comment\n", (1, 1), "the file is empty"),
        ("a: 1\n---\nb: 2\n", (3, 1), "the file holds several documents; use one"),
    ],
)
def test_documents(text: str, position: tuple[int, int], message: str) -> None:
    assert only(text) == (*position, message)


def test_size_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yaml_loader, "MAX_BYTES", 100)
    assert only("a: " + "x" * 200 + "\n") == (1, 1, "file is larger than 100 bytes")


def test_load_file_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_bytes("name: a\npath: données/\xff".encode("utf-8", "surrogateescape").replace(b"\xc3\xbf", b"\xff"))
    with pytest.raises(SpecError) as info:
        load_file(path)
    (diag,) = info.value.diagnostics
    assert diag.message == "the file is not UTF-8 text (byte 0xff)"
    assert diag.position == Position(2, 15)  # counted in characters: "é" is one column


def test_load_file_missing(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as info:
        load_file(tmp_path / "nope.yaml")
    (diag,) = info.value.diagnostics
    assert diag.message == "cannot read: No such file or directory" and diag.path.endswith("nope.yaml")


def test_messages_quoting_multi_line_values_stay_one_line() -> None:
    line, col, message = only("a: !!int 'x\n\n  y'\n")
    assert (line, col, message) == (1, 4, "'x\\ny' is not a valid !!int")
    _, smap = load_text("a: 1\n", "s.yaml")
    assert smap.error(("a",), "got 'p\r\nq\u2028r'").message == "got 'p\\r\\nq\\u2028r'"
