"""The tune's report from a known search: the trace says why, the Pareto front is marked,
tune.json holds every step, the plot is a PNG."""

from __future__ import annotations

import json
from pathlib import Path

from fakes import FakeClock, FakeMeasurer, FakeOracle, grid

from ascgen.tune.goal import Goal, Measurement, pareto_front
from ascgen.tune.pareto import plot_pareto
from ascgen.tune.report import Settings, dumps, render, trace_line
from ascgen.tune.search import Limits, Outcome, Search

SETTINGS = Settings("spec.yaml", "threads=1..12,depth=2..32", 600, 5, 1, 1)


def outcome() -> Outcome:
    clock = FakeClock()
    return Search(
        grid(), FakeOracle(), FakeMeasurer(clock), Goal("max_qps", max_p99_ms=100), Limits(600), clock=clock
    ).run()


def test_pareto_front() -> None:
    points = [Measurement(100, 10), Measurement(200, 20), Measurement(150, 30), Measurement(200, 25)]
    assert pareto_front(points) == [0, 1]


def test_summary_has_the_winner_the_points_and_the_trace() -> None:
    result = outcome()
    text = render(result, SETTINGS, ["pareto.png"], [["infer", "aicore", "1.0", "2.0", "3"]])
    assert text.startswith("### ascgen tune: `spec.yaml`\n")
    assert "Objective max_qps, SLO p99 <= 100 ms" in text
    assert "**Winner:** threads=" in text and "| **winner** |" in text
    assert "| 1 | 10 | threads=3 depth=8 batch=16 per_stage | measured | planner's best guess |" in text
    assert "| skipped | neighbour of threads=" in text and "does not fit: out of DVPP memory" in text
    assert "![Pareto front](pareto.png)" in text and "| infer | aicore |" in text


def test_json_holds_every_step() -> None:
    result = outcome()
    doc = json.loads(dumps(result, SETTINGS))
    assert [s["n"] for s in doc["steps"]] == list(range(1, len(result.steps) + 1))
    assert doc["winner"]["n"] == result.winner.n if result.winner else False
    assert set(doc["pareto_front"]) <= {s.n for s in result.measured}
    assert doc["measured"] == len(result.measured) and doc["stopped"] == result.stopped


def test_trace_line() -> None:
    first = outcome().steps[0]
    assert trace_line(first).startswith("measured threads=3 depth=8 batch=16 per_stage: planner's best guess: ")


def test_plot_is_a_png(tmp_path: Path) -> None:
    plot_pareto(outcome(), "title", tmp_path / "pareto.png")
    assert (tmp_path / "pareto.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
