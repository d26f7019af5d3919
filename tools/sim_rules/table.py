"""Loads and checks the rule table (simulator/src/rules/rule_table.yaml).

One entry per rule id the simulator raises: its kind, what the call returns, the sources that
raise it, the document it rests on and what is reported. Every problem is collected, then
reported at once with the entry it is in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SIMULATOR = REPO / "simulator"
SRC = SIMULATOR / "src"
TABLE = SRC / "rules" / "rule_table.yaml"
HEADERS = SIMULATOR / "include" / "acl"

KINDS = ("device", "argument", "warning")
FIELDS = ("id", "kind", "returns", "files", "source", "what", "note")
ID = re.compile(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+")


class TableError(Exception):
    """The table is malformed: every problem, one per line."""


@dataclass(frozen=True)
class RuleEntry:
    id: str
    kind: str
    returns: tuple[str, ...]
    files: tuple[str, ...]
    source: str
    what: str
    note: str = ""

    @property
    def symbol(self) -> str:
        return symbol(self.id)


def symbol(rule_id: str) -> str:
    """The C++ enumerator of a rule id: event.record_not_reset -> kEventRecordNotReset."""
    return "k" + "".join(word.capitalize() for word in re.split(r"[._]", rule_id))


def error_codes(headers: Path = HEADERS) -> dict[str, int]:
    """AscendCL constant name -> value, from the simulator's acl/ headers (the DVPP V2 media
    API's HI_ERR_* codes too, as the signed 32-bit values its calls return)."""
    codes: dict[str, int] = {}
    pattern = re.compile(r"(?:static const int|#define)\s+((?:ACL|HI_ERR)_\w+)\s*=?\s*(-?(?:0x[0-9A-Fa-f]+|\d+))\b")
    for header in sorted(headers.rglob("*.h")):
        for name, value in pattern.findall(header.read_text(encoding="utf-8")):
            number = int(value, 0)
            codes.setdefault(name, number - (1 << 32) if number >= 1 << 31 else number)
    return codes


def load(path: Path = TABLE, src: Path = SRC, headers: Path = HEADERS) -> list[RuleEntry]:
    """The table's entries in order; TableError naming every problem."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise TableError(f"{path}: not valid YAML: {e}") from None
    if not isinstance(raw, list):
        raise TableError(f"{path}: want a list of rules (- id: ...), found {type(raw).__name__}")
    codes = error_codes(headers)
    problems: list[str] = []
    entries: list[RuleEntry] = []
    seen: dict[str, str] = {}
    for n, item in enumerate(raw, 1):
        where = f"{path.name}: rule {n}" + (f" ({item.get('id')})" if isinstance(item, dict) else "")
        entry = _entry(item, where, codes, src, problems)
        if entry is None:
            continue
        for key in (entry.id, entry.symbol):
            if key in seen:
                problems.append(f"{where}: {key} again (first in {seen[key]}); ids and their enumerators are unique")
            seen[key] = where
        entries.append(entry)
    if problems:
        raise TableError("\n".join(problems))
    return entries


def _entry(item: object, where: str, codes: dict[str, int], src: Path, problems: list[str]) -> RuleEntry | None:
    if not isinstance(item, dict):
        problems.append(f"{where}: want a mapping with {', '.join(FIELDS[:-1])}")
        return None
    before = len(problems)
    unknown = sorted(set(item) - set(FIELDS))
    if unknown:
        problems.append(f"{where}: unknown field(s) {', '.join(unknown)}; the fields are {', '.join(FIELDS)}")
    text = {key: item.get(key) for key in ("id", "kind", "source", "what", "note")}
    for key in ("id", "kind", "source", "what"):
        value = text[key]
        if not isinstance(value, str) or not value.strip():
            problems.append(f"{where}: `{key}` is missing or empty")
    if text["note"] is not None and not isinstance(text["note"], str):
        problems.append(f"{where}: `note` is text")
    lists = {key: item.get(key) for key in ("returns", "files")}
    for key, value in lists.items():
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            problems.append(f"{where}: `{key}` wants a non-empty list of names")
    if len(problems) > before:
        return None
    entry = RuleEntry(
        id=str(text["id"]),
        kind=str(text["kind"]),
        returns=tuple(lists["returns"] or ()),
        files=tuple(lists["files"] or ()),
        source=str(text["source"]),
        what=str(text["what"]),
        note=str(text["note"] or ""),
    )
    if not ID.fullmatch(entry.id):
        problems.append(f"{where}: id '{entry.id}' is not area.name (lower case, digits, _)")
    if entry.kind not in KINDS:
        problems.append(f"{where}: kind '{entry.kind}' is not one of {', '.join(KINDS)}")
    for code in entry.returns:
        if code not in codes:
            problems.append(f"{where}: returns {code}, which simulator/include/acl does not define")
    if entry.kind == "warning" and entry.returns != ("ACL_SUCCESS",):
        problems.append(f"{where}: a warning's call goes on: returns [ACL_SUCCESS]")
    for file in entry.files:
        if not (src / file).is_file():
            problems.append(f"{where}: file {file} is not under simulator/src")
    return entry
