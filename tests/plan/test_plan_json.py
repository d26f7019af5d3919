"""`plan --json` is strict JSON: an infinite or NaN number is written as null (issue 20)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ascgen.pipeline import analyze_file
from ascgen.plan.report import dumps, strict

SEED = Path(__file__).resolve().parents[2] / "pipelines" / "resnet50_b16.yaml"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"not strict JSON: {name}")


def test_strict_maps_non_finite_numbers_to_null() -> None:
    data = {"a": math.inf, "b": [-math.inf, math.nan, 1.5], "c": {"d": (2, math.inf)}, "e": "inf"}
    assert strict(data) == {"a": None, "b": [None, None, 1.5], "c": {"d": [2, None]}, "e": "inf"}


def test_an_unbounded_plan_is_written_as_strict_json() -> None:
    _, plan = analyze_file(SEED)
    stages = [s.model_copy(update={"capacity_qps": math.inf}) for s in plan.stages]
    unbounded = plan.model_copy(update={"roofline_qps": math.inf, "stages": stages})
    doc = json.loads(dumps(unbounded), parse_constant=_reject_constant)
    assert doc["roofline_qps"] is None
    assert all(s["capacity_qps"] is None for s in doc["stages"])
