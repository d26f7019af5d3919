"""docs/graphs.md is what `python -m tools.graphs` writes from its examples (docs/graphs/*.yaml),
and each example plans a fan-out whose cost grows with the objects a frame holds."""

from __future__ import annotations

from tools.graphs.page import main
from tools.graphs.shared import EXAMPLES, OBJECTS, plan_at


def test_the_page_is_up_to_date() -> None:
    assert main(["--check"]) == 0, "docs/graphs.md is stale; run: python -m tools.graphs"


def test_every_example_plans_a_fanout_that_costs_more_with_more_objects() -> None:
    examples = sorted(EXAMPLES.glob("*.yaml"))
    assert [p.name for p in examples] == ["detect_classify_310.yaml", "detect_classify_310p.yaml"]
    for path in examples:
        plans = [plan_at(path, n) for n in OBJECTS]
        assert all(p.fanout is not None for p in plans)
        qps = [p.roofline_qps for p in plans]
        assert qps == sorted(qps, reverse=True) and qps[0] > qps[-1], (path.name, qps)
