"""Hostile specs: names and paths meant to break the generated C++ or CMake, absurd numbers,
malformed YAML and files that are not specs. Each is one `ascgen validate` under limits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harness import Case, run_and_check, with_processes

BASE = """\
name: hostile
device: {profile: ascend310}
source: {kind: jpeg_files, path: images, max_bytes: 1MiB}
threads: 2
stages:
  - {name: upload, kind: h2d}
  - {name: decode, kind: jpeg_decode, max: {width: 1024, height: 1536}}
"""


def spec(old: str, new: str) -> str:
    assert old in BASE, old
    return BASE.replace(old, new, 1)


def case(id: str, text: str | bytes, says: str = "") -> Case:
    return Case(id, ("validate", "p.yaml"), 2, says, files={"p.yaml": text, "images/a.jpg": b"\xff\xd8"})


KEYWORDS = ["new", "namespace", "class", "delete", "int", "template", "operator", "and", "export", "co_yield"]
GENERATED = ["main", "Worker", "g_run", "std", "ascgen", "aclrtMalloc", "errno", "stdout", "kBatch", "run"]
PATHS = {
    "quote": ('im"ages', "U+0022"),
    "backslash": ("im\\ages", "U+005C"),
    "newline": ("im\nages", "U+000A"),
    "nul": ("im\0ages", "U+0000"),
    "cmake-var": ("${HOME}/x", "U+0024"),
    "genex": ("$<TARGET_FILE:x>", "U+0024"),
    "semicolon": ("a;b", "U+003B"),
    "backquote": ("`id`", "U+0060"),
    "hash": ("a#b", "U+0023"),
    "percent": ("a%b", "U+0025"),
    "line-separator": ("a\u2028b", "U+2028"),
    "bidi-override": ("a\u202eb", "U+202E"),
    "long-part": ("x" * 256, "255 bytes"),
    "long-path": ("abc/" * 1100, "4095"),
    "empty": ("", "cannot be empty"),
    "carriage-return": ("a\rb", "U+000D"),
}
PROFILES = ["../ascend310", "a/b", "/etc/passwd", "..", "x\\\\y", "", "ascend310/../x"]
NUMBERS = {
    "threads-zero": ("threads: 2", "threads: 0", "greater than or equal to 1"),
    "threads-negative": ("threads: 2", "threads: -1", "greater than or equal to 1"),
    "threads-huge": ("threads: 2", "threads: 1000000000", "less than or equal to 64"),
    "threads-nan": ("threads: 2", "threads: .nan", "expected a whole number"),
    "threads-inf": ("threads: 2", "threads: .inf", "expected a whole number"),
    "threads-fraction": ("threads: 2", "threads: 1.5", "a fractional part"),
    "threads-string": ("threads: 2", 'threads: "2"', "expected a whole number"),
    "threads-bool": ("threads: 2", "threads: yes", "booleans"),
    "threads-bigint": ("threads: 2", "threads: " + "9" * 400, "threads"),
    "batch-zero": ("threads: 2", "threads: 2\nbatch: 0", "batch"),
    "batch-huge": ("threads: 2", "threads: 2\nbatch: 1000000", "batch"),
    "depth-zero": ("threads: 2", "threads: 2\nbuffers: {depth: 0}", "depth"),
    "depth-huge": ("threads: 2", "threads: 2\nbuffers: {depth: 100000}", "depth"),
    "width-zero": ("width: 1024", "width: 0", "width"),
    "width-huge": ("width: 1024", "width: 1000000000", "width"),
    "width-inf": ("width: 1024", "width: .inf", "width"),
    "max-bytes-negative": ("max_bytes: 1MiB", "max_bytes: -1", "max_bytes"),
    "max-bytes-words": ("max_bytes: 1MiB", "max_bytes: lots", "not a size"),
    "max-bytes-exabyte": ("max_bytes: 1MiB", "max_bytes: 99999999GiB", "max_bytes"),
    "sync-every-nan": ("threads: 2", "threads: 2\nsync_every: .nan", "sync_every"),
    "slo-negative": ("threads: 2", "threads: 2\nslo: {max_p99_ms: -5}", "max_p99_ms"),
    "slo-nan": ("threads: 2", "threads: 2\nslo: {min_qps: .nan}", "min_qps"),
    "device-id": ("{profile: ascend310}", "{profile: ascend310, id: 99999}", "id"),
}
STRUCTURE: dict[str, tuple[str | bytes, str]] = {
    "name-list": (spec("name: hostile", "name: [a, b]"), "expected a string"),
    "stages-mapping": (BASE.split("stages:")[0] + "stages: {a: 1}\n", "stages"),
    "stages-empty": (BASE.split("stages:")[0] + "stages: []\n", "stages"),
    "stages-number": (BASE.split("stages:")[0] + "stages: [1]\n", "stage"),
    "unknown-key": (BASE + "threadz: 4\n", "unknown key 'threadz'"),
    "unknown-kind": (spec("kind: h2d", "kind: h3d"), "unknown stage kind 'h3d'"),
    "duplicate-key": (BASE + "threads: 3\n", "duplicate key 'threads'"),
    "merge-key": ("base: &b {threads: 2}\n<<: *b\n" + BASE, "merge keys"),
    "alias-bomb": (
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)},"
            f" *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
            for i in range(9)
        ),
        "more than 20000 nodes",
    ),
    "flow-nesting": ("x: " + "[" * 5000 + "]" * 5000 + "\n", "nesting deeper"),
    "block-nesting": ("".join("  " * i + f"k{i}:\n" for i in range(60)) + "  " * 60 + "v\n", "nesting deeper"),
    "two-documents": (BASE + "---\n" + BASE, "several documents"),
    "empty-file": ("", "is empty"),
    "only-comment": ("# nothing\n", "is empty"),
    "scalar-document": ("just a string\n", "a spec is a mapping"),
    "tab-indent": ("name: x\nsource:\n\tkind: tensor\n", "invalid YAML"),
    "nul-byte": (BASE.encode() + b"\x00\n", "U+0000"),
    "non-utf8": (BASE.encode() + b"# \xff\xfe\n", "not UTF-8"),
    "utf16": (BASE.encode("utf-16"), "not UTF-8"),
    "too-large": ("#" * 1_100_000 + "\n", "larger than"),
    "python-tag": (spec("name: hostile", "name: !!python/object/apply:os.system ['echo pwned']"), "name"),
    "binary-tag": (spec("name: hostile", "name: !!binary aGVsbG8="), "name"),
    "bad-int-tag": (spec("threads: 2", "threads: !!int two"), "not a valid !!int"),
    "unclosed-bracket": (spec("{name: upload, kind: h2d}", "{name: upload, kind: h2d"), "invalid YAML"),
    "long-line": ("name: " + "x" * 500_000 + "\n", "name"),
    "key-not-scalar": ("? [a, b]\n: 1\n" + BASE, "mapping keys must be plain scalars"),
    "unicode-name": (spec("name: hostile", "name: hostilé"), "name"),
    "name-49-chars": (spec("name: hostile", "name: " + "a" * 49), "name"),
    "name-dash": (spec("name: hostile", "name: my-pipeline"), "name"),
    "name-digit": (spec("name: hostile", "name: 1pipeline"), "name"),
}

CASES = [
    *(case(f"keyword-{k}", spec("name: upload", f"name: {k}"), "is a C++ keyword") for k in KEYWORDS),
    *(case(f"generated-{n}", spec("name: upload", f"name: {n}"), "already used by the generated") for n in GENERATED),
    case("reserved-double-underscore", spec("name: upload", "name: a__b"), "reserved in C++"),
    case("reserved-underscore-capital", spec("name: upload", "name: _Cap"), "reserved in C++"),
    case("program-keyword", spec("name: hostile", "name: namespace"), "is a C++ keyword"),
    case("program-cmake-test", spec("name: hostile", "name: test"), "CMake reserves"),
    case("program-cmake-all", spec("name: hostile", "name: all"), "CMake reserves"),
    *(case(f"path-{k}", spec("path: images", f"path: {json.dumps(p)}"), says) for k, (p, says) in PATHS.items()),
    *(
        case(f"profile-{i}", spec("profile: ascend310", f"profile: {json.dumps(p)}"), "not a profile name")
        for i, p in enumerate(PROFILES)
    ),
    case("profile-unknown", spec("profile: ascend310", "profile: ascend999"), "ascend999"),
    *(case(f"number-{k}", spec(old, new), says) for k, (old, new, says) in NUMBERS.items()),
    *(case(f"structure-{k}", text, says) for k, (text, says) in STRUCTURE.items()),
]
CASES = with_processes(CASES, {"structure-alias-bomb", "structure-too-large", "path-nul"})


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_hostile_spec(c: Case, tmp_path: Path) -> None:
    run_and_check(c, tmp_path)
