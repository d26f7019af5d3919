#!/usr/bin/env python3
"""Generate compile-time checks of our AscendCL headers against CANN's real ones.

Reads the simulator's public headers (acl/*.h, written by us) and writes one
C++ file that includes CANN's REAL headers and, for every declaration ours
make, asserts that the real headers agree:

- function: a copy of our prototype is declared in `namespace ours_fn`, where
  unqualified names resolve to CANN's types; `decltype(&ours_fn::f)` must be
  the same type as `decltype(&::f)`; the function is also called once with
  value-initialised arguments (compile only, never run).
- `#define NAME value`: the real NAME must exist and equal our value.
- `static const T NAME = v;`: same value and same type (or, if CANN spells it
  as a macro, same value).
- enum (typedef'd or bare): our definition is re-emitted in `namespace
  ours_ty`; every enumerator must have the same value and the enum the same
  size.
- struct with a body: re-emitted in `ours_ty`; same size, alignment, and for
  every field the same offset and type.
- other typedefs: re-emitted in `ours_ty`, same type; opaque struct typedefs
  must name an existing type.

Any drift fails the build with a static_assert naming the declaration.
Standard library only. Limitation: a struct field whose type is another of our
structs compares against CANN's struct of that name only by size and offset.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

SKIP_MACROS = {"ACL_FUNC_VISIBILITY", "ACL_DEPRECATED", "ACL_DEPRECATED_MESSAGE"}
ATTR_RE = re.compile(
    r"\bACL_FUNC_VISIBILITY\b|\bACL_DEPRECATED_MESSAGE\s*\((?:\"(?:\\.|[^\"\\])*\"|[^)])*\)"
    r"|\bACL_DEPRECATED\b"
)
TOKEN_RE = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
IDENT_RE = re.compile(r"[A-Za-z_]\w*")


def strip_comments(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        s = m.group(0)
        return s if s.startswith('"') else " "

    return TOKEN_RE.sub(repl, text.replace("\\\n", " "))


class Checks:
    def __init__(self) -> None:
        self.out: list[str] = []
        self.counts: dict[str, int] = {}
        self.n = 0

    def add(self, kind: str, lines: list[str]) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self.out.extend(lines)

    def uid(self) -> int:
        self.n += 1
        return self.n


def check_macro(ck: Checks, name: str, value: str, where: str) -> None:
    msg = f"{where}: #define {name} differs from CANN"
    test = f"({name}) == ({value})"
    typecheck = [
        f"static_assert(std::is_same<decltype({name}), decltype({value})>::value,",
        f'              "{where}: #define {name} has another type in CANN (e.g. U suffix)");',
    ]
    if value.startswith('"'):  # a string literal
        test = f"ascgen_conf::str_eq({name}, {value})"
        typecheck = []
    ck.add(
        "macro",
        [
            f"#ifndef {name}",
            f'#error "{where}: macro {name} is not defined by CANN\'s headers"',
            "#else",
            f'static_assert({test}, "{msg}");',
            *typecheck,
            "#endif",
        ],
    )


def check_constant(ck: Checks, stmt: str, where: str) -> None:
    m = re.match(r"static\s+const\s+(.+?)\s+([A-Za-z_]\w*)\s*=\s*(.+)$", stmt)
    if not m:
        raise ValueError(f"{where}: cannot parse constant: {stmt}")
    ctype, name, value = m.groups()
    ck.add(
        "constant",
        [
            f"#ifdef {name}  // CANN spells it as a macro: compare the value only",
            f'static_assert(({name}) == ({value}), "{where}: {name} value differs from CANN");',
            "#else",
            f"namespace ours_ty {{ static const {ctype} {name} = {value}; }}",
            f'static_assert(ours_ty::{name} == ::{name}, "{where}: {name} value differs");',
            f"static_assert(std::is_same<decltype(ours_ty::{name}), decltype(::{name})>::value,",
            f'              "{where}: {name} type differs from CANN");',
            "#endif",
        ],
    )


def enumerators(body: str) -> list[str]:
    names = []
    for item in body.split(","):
        item = item.strip()
        if item:
            names.append(IDENT_RE.match(item).group(0))  # type: ignore[union-attr]
    return names


def check_enum(ck: Checks, stmt: str, where: str) -> None:
    body = stmt[stmt.index("{") + 1 : stmt.rindex("}")]
    head = stmt[: stmt.index("{")]
    tail = stmt[stmt.rindex("}") + 1 :].strip()
    name = tail or head.split()[-1]
    names = enumerators(body)
    guard = " || ".join(f"defined({e})" for e in names)
    lines = [
        f"#if {guard}",
        f'#error "{where}: an enumerator of {name} is a macro in CANN\'s headers"',
        "#else",
        f"namespace ours_ty {{ {stmt}; }}",
        f'static_assert(sizeof(ours_ty::{name}) == sizeof(::{name}), "{where}: size of {name}");',
    ]
    for e in names:
        lines.append(
            f"static_assert(static_cast<long long>(ours_ty::{e}) == static_cast<long long>(::{e}),"
            f' "{where}: {name}::{e} value differs from CANN");'
        )
        lines.append(
            f"static_assert(std::is_same<decltype(::{e}), ::{name}>::value,"
            f' "{where}: {e} is not an enumerator of CANN\'s {name}");'
        )
    lines.append("#endif")
    ck.add("enum", lines)


def check_struct(ck: Checks, stmt: str, where: str) -> None:
    body = stmt[stmt.index("{") + 1 : stmt.rindex("}")]
    tail = stmt[stmt.rindex("}") + 1 :].strip()
    name = tail or stmt[: stmt.index("{")].split()[-1]
    lines = [
        f"namespace ours_ty {{ {stmt}; }}",
        f'static_assert(sizeof(ours_ty::{name}) == sizeof(::{name}), "{where}: size of {name}");',
        f'static_assert(alignof(ours_ty::{name}) == alignof(::{name}), "{where}: align of {name}");',
    ]
    for field in (f.strip() for f in body.split(";")):
        if not field:
            continue
        fm = re.search(r"([A-Za-z_]\w*)\s*(\[[^\]]*\]\s*)*$", field)
        if not fm:
            raise ValueError(f"{where}: cannot parse field '{field}' of {name}")
        f = fm.group(1)
        lines.append(
            f"static_assert(offsetof(ours_ty::{name}, {f}) == offsetof(::{name}, {f}),"
            f' "{where}: offset of {name}::{f} differs from CANN");'
        )
        lines.append(
            f"static_assert(std::is_same<decltype(ours_ty::{name}::{f}), decltype(::{name}::{f})>"
            f'::value, "{where}: type of {name}::{f} differs from CANN");'
        )
    ck.add("struct", lines)


def check_typedef(ck: Checks, stmt: str, where: str) -> None:
    if "{" in stmt:
        if re.match(r"typedef\s+enum\b", stmt):
            check_enum(ck, stmt, where)
        else:
            check_struct(ck, stmt, where)
        return
    opaque = re.match(r"typedef\s+(struct|union)\s+\w+\s+([A-Za-z_]\w*)$", stmt)
    if opaque:
        name = opaque.group(2)
        ck.add("opaque", [f"using ascgen_conf_opaque_{ck.uid()} = ::{name};  // {where}"])
        return
    fp = re.search(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)", stmt)
    name = fp.group(1) if fp else IDENT_RE.findall(stmt)[-1]
    ck.add(
        "typedef",
        [
            f"namespace ours_ty {{ {stmt}; }}",
            f"static_assert(std::is_same<ours_ty::{name}, ::{name}>::value,",
            f'              "{where}: typedef {name} differs from CANN");',
        ],
    )


def function_decl(stmt: str, where: str) -> tuple[str, str]:
    """(declaration without attributes, function name)."""
    decl = " ".join(ATTR_RE.sub(" ", stmt).split())
    m = re.match(r"^(.*?)\b([A-Za-z_]\w*)\s*\((.*)\)$", decl)
    if not m:
        raise ValueError(f"{where}: cannot parse function: {stmt}")
    return decl, m.group(2)


def check_function_name(stmt: str, where: str) -> str:
    return function_decl(stmt, where)[1]


def check_function(ck: Checks, stmt: str, where: str) -> None:
    decl, name = function_decl(stmt, where)
    ck.add(
        "function",
        [
            f"namespace ours_fn {{ {decl}; }}",
            f"static_assert(std::is_same<decltype(&ours_fn::{name}), decltype(&::{name})>::value,",
            f'              "{where}: signature of {name} differs from CANN");',
            f"inline void ascgen_conf_call_{name}() {{ ascgen_conf::call(&::{name}); }}",
        ],
    )


def split_statements(code: str) -> list[str]:
    stmts, depth, cur = [], 0, []
    for ch in code:
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:  # closing brace of extern "C"
                continue
            depth -= 1
        if ch == ";" and depth == 0:
            stmts.append(" ".join("".join(cur).split()))
            cur = []
        else:
            cur.append(ch)
    return [s for s in stmts if s]


def process_header(ck: Checks, path: Path, label: str, calls_only: bool = False) -> None:
    text = strip_comments(path.read_text())
    code_lines = []
    for line in text.splitlines():
        s = line.strip()
        if not s.startswith("#"):
            code_lines.append(line)
            continue
        m = re.match(r"#\s*define\s+([A-Za-z_]\w*)(\(?)\s*(.*)$", s)
        if m and not m.group(2) and m.group(3) and m.group(1) not in SKIP_MACROS and not calls_only:
            check_macro(ck, m.group(1), m.group(3).strip(), f"{label}")
    code = re.sub(r'extern\s*"C"\s*\{', " ", "\n".join(code_lines))
    for stmt in split_statements(code):
        where = f"{label}"
        if calls_only:
            # A header CANN's wheel lacks: prove that it compiles on top of
            # CANN's headers and that each of its functions can be called.
            if not stmt.startswith(("typedef ", "enum ", "struct ", "static ")) and "(" in stmt:
                name = check_function_name(stmt, where)
                ck.add("call", [f"inline void ascgen_conf_call_{name}() {{ ascgen_conf::call(&::{name}); }}"])
            continue
        if stmt.startswith("typedef "):
            check_typedef(ck, stmt, where)
        elif re.match(r"(enum)\s+\w+\s*\{", stmt):
            check_enum(ck, stmt, where)
        elif re.match(r"struct\s+\w+\s*\{", stmt):
            check_struct(ck, stmt, where)
        elif stmt.startswith("static const "):
            check_constant(ck, stmt, where)
        elif stmt.endswith(")") and "(" in stmt:
            check_function(ck, stmt, where)
        else:
            raise ValueError(f"{label}: unrecognised declaration: {stmt}")


def function_names(path: Path) -> list[str]:
    """Names of the functions a header declares (for the deprecation test)."""
    text = strip_comments(path.read_text())
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    names = []
    for stmt in split_statements(re.sub(r'extern\s*"C"\s*\{', " ", code)):
        if not stmt.startswith(("typedef ", "enum ", "struct ", "static ")) and stmt.endswith(")"):
            names.append(function_decl(stmt, str(path))[1])
    return names


PROLOGUE = """\
// GENERATED by simulator/conformance/gen_checks.py from the simulator's
// headers; do not edit. Compiled against CANN's REAL headers: every
// static_assert below is one declaration of ours that must match CANN's.
#include <cstddef>
#include <type_traits>

#include "acl/acl.h"
#include "acl/acl_base.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace ascgen_conf {
constexpr bool str_eq(const char* a, const char* b) {
  return *a == *b && (*a == '\\0' || str_eq(a + 1, b + 1));
}
// Calls f with value-initialised arguments: proves the call compiles.
template <class R, class... A>
void call(R (*f)(A...)) {
  (void)f(A{}...);
}
}  // namespace ascgen_conf
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--root", type=Path, help="strip this prefix from header labels")
    parser.add_argument(
        "--calls-only", type=Path, action="append", default=[],
        help="a header of ours CANN's wheel lacks (acl/ops/acl_dvpp.h): include it on top "
        "of CANN's headers and call each of its functions",
    )  # fmt: skip
    parser.add_argument("headers", nargs="+", type=Path)
    args = parser.parse_args(argv)
    ck = Checks()
    jobs = [(h, False) for h in sorted(args.headers)] + [(h, True) for h in args.calls_only]
    for header, calls_only in jobs:
        label = str(header.relative_to(args.root)) if args.root else header.name
        ck.out.append(f"\n// ---- {label}" + (" (calls only)" if calls_only else ""))
        # CANN's header of that name (acl.h does not include them all: acl_prof.h), or ours
        # on top of CANN's when the wheel lacks it (calls only)
        ck.out.append(f'#include "{label}"')
        try:
            process_header(ck, header, label, calls_only)
        except ValueError as err:
            print(f"gen_checks: {err}", file=sys.stderr)
            return 1
    text = PROLOGUE + "\n".join(ck.out) + "\n"
    if not args.out.exists() or args.out.read_text() != text:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    summary = ", ".join(f"{v} {k}" for k, v in sorted(ck.counts.items()))
    print(f"gen_checks: {len(args.headers)} headers: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
