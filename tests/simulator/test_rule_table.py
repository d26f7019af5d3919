"""The simulator's rule table (simulator/src/rules/rule_table.yaml) is the one list of its rules:
the generated header and the README's tables match it, and it says where each rule is raised
and what the call returns there."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from tools.sim_rules import __main__ as sim_rules
from tools.sim_rules import render, sites, table

ENTRIES = table.load()
BY_SYMBOL = {e.symbol: e for e in ENTRIES}
SITES = sites.scan()


def test_the_header_and_the_readme_tables_are_generated_from_the_table() -> None:
    for name, text in sim_rules.expected().items():
        assert (table.REPO / name).read_text(encoding="utf-8") == text, f"{name}: run python -m tools.sim_rules"


def test_every_raised_rule_is_in_the_table_with_the_files_that_raise_it() -> None:
    raised: dict[str, set[str]] = defaultdict(set)
    for site in SITES:
        assert site.symbols, f"src/{site.file}:{site.line}: raise_rule without a Rule::k... argument"
        for symbol in site.symbols:
            assert symbol in BY_SYMBOL, f"src/{site.file}:{site.line}: Rule::{symbol} is not in the table"
            raised[BY_SYMBOL[symbol].id].add(site.file)
    for e in ENTRIES:
        where = sorted(raised[e.id])
        assert set(e.files) == raised[e.id], f"{e.id}: the table says {sorted(e.files)}, raised in {where}"


# Call sites whose code is a variable, and what it can hold (the table lists those codes):
# a DVPP parameter check's result (dvpp_check.cpp: ACL_ERROR_INVALID_PARAM) and the
# callback rule's (callback_rules.cpp: 200001 for a synchronising call, else 0).
VARIABLE_CODES = {
    ("dvpp/dvpp_api.cpp", "c.code"),
    ("dvpp/dvpp_vpc.cpp", "c.code"),
    ("dvpp/vpc_mpi.cpp", "code"),  # vpc.v2_args: its HI_ERR_VPC_* codes
    ("rules/callback_rules.cpp", "code"),
    ("vdec/vdec_mix.cpp", "refused"),  # dvpp.api_mix: the refused call's generation's code
}


def test_the_code_a_call_site_returns_is_one_the_table_lists() -> None:
    variable = set()
    for site in SITES:
        constants = re.findall(r"\b(?:ACL|HI_ERR)_\w+", site.code)
        if not constants:
            variable.add((site.file, site.code))
        for symbol in site.symbols:
            e = BY_SYMBOL[symbol]
            for constant in constants:
                at = f"src/{site.file}:{site.line}"
                assert constant in e.returns, f"{at}: {e.id} returns {constant}, not in {e.returns}"
    assert variable == VARIABLE_CODES, "a call site returns a variable code: list what it holds in the table"


def test_every_device_rule_cites_its_source_and_warnings_go_on() -> None:
    kinds = {e.kind for e in ENTRIES}
    assert kinds == set(table.KINDS)
    for e in ENTRIES:
        assert len(e.source) > 20, f"{e.id}: cite the document and section"
        if e.kind == "warning":
            assert e.returns == ("ACL_SUCCESS",)


def test_no_rule_is_raised_by_its_name_as_a_string() -> None:
    """The old ways (violate, warn_rule, device_rule with a quoted id) are gone from src/."""
    for path in sorted(table.SRC.rglob("*.cpp")):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\b(violate|warn_rule|device_rule)\(", text), path


def test_the_scanner_reads_choices_shorthands_and_skips_comments() -> None:
    text = (
        "// raise_rule(Rule::kNot, code) in a comment\n"
        "aclError raise_rule(Rule rule, aclError code, const char* api, const char* fmt, ...) {\n"
        "  return raise_rule(in ? Rule::kModelInputSize : Rule::kModelOutputSize,\n"
        '                    ACL_ERROR_INVALID_PARAM, api, "%s, %d", f(a, b), 3);\n'
        '  if (p == nullptr) return null_arg(api, "p");\n'
    )
    found = sites.scan_text(text, "x.cpp")
    assert [(s.line, s.symbols, s.code) for s in found] == [
        (3, ("kModelInputSize", "kModelOutputSize"), "ACL_ERROR_INVALID_PARAM"),
        (5, ("kArgsNonNull",), "ACL_ERROR_INVALID_PARAM"),
    ]


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "rule_table.yaml"
    path.write_text(body, encoding="utf-8")
    return path


GOOD = """\
- id: memcpy.kind
  kind: argument
  returns: [ACL_ERROR_RT_PARAM_INVALID]
  files: [api/api_memory.cpp]
  source: ACL_FACTS 1.4 Memory
  what: a copy kind that is not an aclrtMemcpyKind
"""


def test_a_good_table_loads(tmp_path: Path) -> None:
    (e,) = table.load(_write(tmp_path, GOOD))
    assert (e.id, e.symbol, e.returns) == ("memcpy.kind", "kMemcpyKind", ("ACL_ERROR_RT_PARAM_INVALID",))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("kind: argument", "kind: fatal"), "kind 'fatal' is not one of device, argument, warning"),
        (("[ACL_ERROR_RT_PARAM_INVALID]", "[ACL_ERROR_NO_SUCH]"), "returns ACL_ERROR_NO_SUCH, which"),
        (("api/api_memory.cpp", "api/nowhere.cpp"), "file api/nowhere.cpp is not under simulator/src"),
        (("id: memcpy.kind", "id: Memcpy Kind"), "id 'Memcpy Kind' is not area.name"),
        (("kind: argument", "kind: warning"), "a warning's call goes on: returns [ACL_SUCCESS]"),
        (("  source: ACL_FACTS 1.4 Memory\n", ""), "`source` is missing or empty"),
        (("  what:", "  wat:"), "unknown field(s) wat"),
    ],
)
def test_a_bad_table_names_the_rule_and_the_problem(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    with pytest.raises(table.TableError, match=re.escape(message)) as e:
        table.load(_write(tmp_path, GOOD.replace(*change)))
    assert "rule 1 (" in str(e.value)


def test_a_repeated_id_is_refused(tmp_path: Path) -> None:
    with pytest.raises(table.TableError, match=re.escape("memcpy.kind again")):
        table.load(_write(tmp_path, GOOD + GOOD))


def test_the_readme_table_shows_codes_as_numbers_and_where_each_rule_is_enforced() -> None:
    (e,) = [e for e in ENTRIES if e.id == "memcpy_async.host_to_host"]
    row = next(line for line in render.table(ENTRIES, "argument").splitlines() if "`memcpy_async.host_to_host`" in line)
    assert row.endswith("| 207000 | `api/api_memory.cpp` |")
    assert e.files == ("api/api_memory.cpp",)


def test_a_readme_without_the_markers_is_refused() -> None:
    with pytest.raises(ValueError, match="no '<!-- rule table device"):
        render.readme("# a README without tables\n", ENTRIES)
