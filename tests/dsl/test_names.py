"""Names and paths that reach C++, CMake and shells are validated (ascgen/dsl/names.py, issue 20)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascgen.cli import cli
from ascgen.dsl.diagnostics import SpecError
from ascgen.dsl.names import CPP_KEYWORDS, GENERATED_NAMES, cpp_name_problem, path_problem, profile_name_problem
from ascgen.dsl.parse import parse_text

ROOT = Path(__file__).resolve().parents[2]
BASE = (ROOT / "pipelines" / "decode_only.yaml").read_text(encoding="utf-8")


def errors_of(text: str) -> list[str]:
    try:
        parse_text(text, "x.yaml")
    except SpecError as exc:
        return [d.format() for d in exc.sorted()]
    return []


@pytest.mark.parametrize("name", ["new", "namespace", "class", "int", "and", "co_await", "this", "export"])
def test_a_stage_named_after_a_cpp_keyword_is_rejected_at_its_line(name: str) -> None:
    (error,) = errors_of(BASE.replace("name: upload", f"name: {name}"))
    assert error.startswith("x.yaml:8:12: error: ")
    assert f"'{name}' is a C++ keyword; choose another name, e.g. 'my_{name}'" in error


@pytest.mark.parametrize("name", ["main", "Worker", "g_run", "kBatch", "ascgen", "std", "aclInit", "errno", "NULL"])
def test_a_stage_clashing_with_the_generated_code_is_rejected(name: str) -> None:
    (error,) = errors_of(BASE.replace("name: upload", f'name: "{name}"'))
    assert "already used by the generated program" in error


@pytest.mark.parametrize("name", ["a__b", "_Upper", "__x"])
def test_reserved_identifiers_are_rejected(name: str) -> None:
    assert "reserved in C++" in (cpp_name_problem(name) or "")


@pytest.mark.parametrize("name", ["test", "all", "clean", "install"])
def test_a_program_named_after_a_cmake_target_is_rejected(name: str) -> None:
    (error,) = errors_of(BASE.replace("name: decode_only", f"name: {name}"))
    assert "x.yaml:2:7: error: " in error and "CMake reserves" in error


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ('im"ages', "'\"' (U+0022 QUOTATION MARK)"),
        ("im\\ages", "U+005C REVERSE SOLIDUS"),
        ("im\nages", "U+000A"),
        ("im\0ages", "U+0000"),
        ("im${HOME}ages", "U+0024 DOLLAR SIGN"),
        ("a;b", "U+003B SEMICOLON"),
        ("a`id`", "U+0060"),
        ("a\u2028b", "U+2028"),
        ("a\u202eb", "U+202E"),
        ("x" * 300, "longer than the 255 bytes"),
        ("a/" * 2100, "longer than the 4095"),
        ("", "cannot be empty"),
    ],
)
def test_hostile_source_paths_are_rejected(path: str, words: str) -> None:
    (error,) = errors_of(BASE.replace("path: data/images", f"path: {json.dumps(path)}"))
    assert error.startswith("x.yaml:4:"), error
    assert words in error


def test_hostile_model_paths_are_rejected() -> None:
    text = (ROOT / "pipelines" / "resnet50_b16.yaml").read_text(encoding="utf-8")
    model_path = re.search(r"path: (\S+\.om)", text)
    assert model_path
    (error,) = errors_of(text.replace(model_path.group(0), 'path: "models/${x}.om"'))
    assert "U+0024 DOLLAR SIGN" in error


@pytest.mark.parametrize("path", ["data/images", "my images/a b", "données/ü", "x'y", "a(1)&b", "~/in", "-x"])
def test_ordinary_paths_pass(path: str) -> None:
    assert path_problem(path) is None


@pytest.mark.parametrize("name", ["../ascend310", "a/b", "/etc/passwd", "..", "x\\y", ""])
def test_profile_names_are_not_paths(name: str) -> None:
    assert profile_name_problem(name)
    result = CliRunner().invoke(cli, ["profile", name])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1, result.stderr
    (error,) = errors_of(BASE.replace("profile: ascend310", f'profile: "{name}"'))
    assert "x.yaml:3:" in error


def test_a_spec_file_with_a_quote_in_its_path_is_rejected(tmp_path: Path) -> None:
    folder = tmp_path / 'we"ird'
    folder.mkdir()
    (folder / "p.yaml").write_text(BASE)
    result = CliRunner().invoke(cli, ["validate", str(folder / "p.yaml")])
    assert result.exit_code == 2
    assert "the spec file's own path" in result.stderr


def _namespace_scope_names(template: str) -> set[str]:
    """Names declared at column 0 of main.cpp.j2 (functions, structs, constants), Jinja left out."""
    names: set[str] = set()
    for raw in template.splitlines():
        line = re.sub(r"\{\{.*?\}\}", "JINJA", raw)
        if line.startswith((" ", "#", "/", "{", "}")):
            continue
        m = re.match(r"(?:struct|class|namespace)\s+(\w+)|(?:constexpr\s+)?[\w:<>]+[\s*&]+(\w+)\s*(?:\(|\[|=)", line)
        if m and "JINJA" not in (m.group(1) or m.group(2)):
            names.add(m.group(1) or m.group(2))
    return names


def test_every_name_the_generated_code_declares_is_reserved() -> None:
    template = (ROOT / "templates" / "main.cpp.j2").read_text(encoding="utf-8")
    declared = _namespace_scope_names(template)
    assert {"main", "Worker", "program", "kProgram"} <= declared
    missing = sorted(declared - GENERATED_NAMES - CPP_KEYWORDS)
    assert not missing, f"add these to GENERATED_NAMES in ascgen/dsl/names.py: {missing}"
