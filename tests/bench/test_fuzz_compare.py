"""Fuzzing `ascgen compare`'s input: mutated results files either compare (every ratio and
threshold a number, the report printable) or are refused with one BadResults line, never a
crash. Deterministic (derandomize), as tests/dsl/test_fuzz.py."""

from __future__ import annotations

import copy
import io
import json
import math
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from ascgen.bench.compare import check_comparable, compare
from ascgen.bench.compare_report import print_comparison
from ascgen.bench.schema import BadResults, load_results

ROOT = Path(__file__).resolve().parents[2]
BASE_PATH = ROOT / "tests" / "fixtures" / "bench" / "compare" / "base.json"
BASE: dict[str, Any] = json.loads(BASE_PATH.read_text(encoding="utf-8"))
FUZZ = settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 0.0, -0.0, 1e-300, 1e308, -1.0, "", "NaN", "per_stage", "per_thread"]),
    st.text(alphabet=st.sampled_from([*"abc019.-_ ", "\x00", "\n", "é"]), max_size=6),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=5,
)


def _paths(node: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*here, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _paths(value, (*here, i))
    return out


@st.composite
def mutated_results(draw: st.DrawFn) -> str:
    doc: Any = copy.deepcopy(BASE)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        path = draw(st.sampled_from(_paths(doc)[1:]))
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        if draw(st.integers(0, 4)) == 0:
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(values)
    text = json.dumps(doc)
    if draw(st.integers(0, 5)) == 0:
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(st.sampled_from(["", "NaN", "]]]", "\x00", "\\ud800", "1e999"]))
    return text


def outcome(tmp_path: Path, text: str) -> str:
    new = tmp_path / "new.json"
    new.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        old, fresh = load_results(BASE_PATH), load_results(new)
        check_comparable(old, fresh, "old.json", "new.json", other_spec=False)
    except BadResults as exc:
        assert str(exc).strip() and "\n" not in str(exc), str(exc)
        return "refused"
    result = compare(old, fresh)
    for row in result.rows:
        assert not math.isnan(row.ratio) and not math.isnan(row.p99_ratio)
        assert math.isfinite(row.threshold) and math.isfinite(row.p99_threshold)
    print_comparison(result, "old.json", "new.json", Console(file=io.StringIO(), width=200))
    return "compared"


@FUZZ
@given(text=mutated_results())
def test_mutated_results_compare_or_are_refused_cleanly(tmp_path: Path, text: str) -> None:
    outcome(tmp_path, text)


def test_the_base_file_compares_with_itself(tmp_path: Path) -> None:
    assert outcome(tmp_path, BASE_PATH.read_text(encoding="utf-8")) == "compared"
