"""The tune's search against a known landscape (tests/tune/fakes.py): it finds the optimum
within its budget, never measures what does not fit, respects the SLO, and stops cleanly."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes import MEMORY_LIMIT, FakeClock, FakeMeasurer, FakeOracle, grid, true_p99, true_qps

from ascgen.bench.schema import Config
from ascgen.common.errors import StepFailed
from ascgen.tune.goal import Goal
from ascgen.tune.outputs import verdict
from ascgen.tune.search import Limits, Outcome, Search

HOUR = Limits(budget_s=3600)


def tune(goal: Goal, limits: Limits = HOUR, **fake: object) -> tuple[Outcome, FakeMeasurer]:
    clock = FakeClock()
    measurer = FakeMeasurer(clock, **fake)  # type: ignore[arg-type]
    outcome = Search(grid(), FakeOracle(), measurer, goal, limits, clock=clock).run()
    return outcome, measurer


def brute_force(goal: Goal) -> Config:
    """The true optimum over every point that fits and meets the SLO (no noise)."""
    from ascgen.tune.goal import Measurement

    fitting = [c for c in grid().points() if c.threads * c.depth <= MEMORY_LIMIT]
    truth = {c: Measurement(true_qps(c), true_p99(c)) for c in fitting}
    able = [c for c in fitting if goal.meets(truth[c])]
    return max(able, key=lambda c: goal.value(truth[c]))


def test_finds_the_known_optimum_measuring_a_fraction_of_the_grid() -> None:
    outcome, measurer = tune(Goal("max_qps"))
    winner = outcome.winner
    assert winner is not None
    assert winner.config == brute_force(Goal("max_qps"))
    assert (winner.config.threads, winner.config.depth) == (6, 16)
    assert len(measurer.calls) <= len(grid().points()) // 4
    assert outcome.stopped == "no neighbour of the best point improves on it"


def test_first_measurement_is_the_knee_of_the_roofline() -> None:
    outcome, _ = tune(Goal("max_qps"))
    first = outcome.steps[0]
    assert first.why == "planner's best guess"
    assert (first.config.threads, first.config.depth) == (3, 8)  # fewest threads at the top roofline, spec's depth


def test_points_that_do_not_fit_are_skipped_never_measured() -> None:
    outcome, measurer = tune(Goal("max_qps"))
    assert all(c.threads * c.depth <= MEMORY_LIMIT for c in measurer.calls)
    unfit = [s for s in outcome.steps if s.action == "skipped" and s.detail.startswith("does not fit")]
    assert unfit, "the climb reaches the memory limit, so it must have met a point that does not fit"
    assert all("out of DVPP memory" in s.detail for s in unfit)
    assert outcome.fitting < outcome.points


def test_points_whose_roofline_cannot_beat_the_best_are_skipped() -> None:
    outcome, measurer = tune(Goal("max_qps"))
    hopeless = [s for s in outcome.steps if s.detail.startswith("cannot beat the best by 2%")]
    assert hopeless and all(s.config.threads < 3 for s in hopeless)
    assert all(c.threads >= 2 for c in measurer.calls)


def test_respects_the_p99_slo() -> None:
    goal = Goal("max_qps", max_p99_ms=60.0)
    outcome, _ = tune(goal)
    winner = outcome.winner
    assert winner is not None and winner.measurement is not None
    assert true_p99(winner.config) <= 60.0
    best = brute_force(goal)
    assert true_qps(winner.config) >= 0.97 * true_qps(best)


def test_min_qps_prunes_by_roofline_and_min_p99_minimises_latency() -> None:
    goal = Goal("min_p99", min_qps=1500.0)
    outcome, measurer = tune(goal)
    winner = outcome.winner
    assert winner is not None
    assert true_qps(winner.config) >= 1500.0 * 0.99
    assert true_p99(winner.config) <= true_p99(brute_force(goal)) * 1.03
    assert all(c.threads >= 2 for c in measurer.calls)  # one thread's roofline, 1000, cannot reach 1500


def test_no_winner_when_nothing_meets_the_slo() -> None:
    outcome, _ = tune(Goal("max_qps", max_p99_ms=1.0))
    assert outcome.winner is None
    assert outcome.best is not None  # the closest is still reported


def test_stops_when_the_budget_is_spent() -> None:
    outcome, measurer = tune(Goal("max_qps"), Limits(budget_s=35))  # 10 s a point
    assert len(measurer.calls) == 3
    assert outcome.stopped.startswith("budget spent")
    assert outcome.winner is not None


def test_max_runs() -> None:
    outcome, measurer = tune(Goal("max_qps"), Limits(budget_s=3600, max_runs=2))
    assert len(measurer.calls) == 2
    assert outcome.stopped == "measured 2 points (--max-runs)"


def test_ctrl_c_keeps_what_was_measured() -> None:
    outcome, _ = tune(Goal("max_qps"), interrupt_at=4)
    assert outcome.interrupted
    assert len(outcome.measured) == 3
    assert outcome.winner is not None


def test_a_failed_guess_moves_to_the_next_guess() -> None:
    knee = Config(threads=3, depth=8, batch=16, streams="per_stage", sync_every=None)
    outcome, _ = tune(Goal("max_qps"), fail={knee})
    assert outcome.steps[0].action == "failed" and "fake failure" in outcome.steps[0].detail
    assert outcome.steps[1].why.startswith("planner's next guess")
    assert outcome.winner is not None and outcome.winner.config.threads == 6


def test_when_every_point_fails_the_verdict_says_why_once(tmp_path: Path) -> None:
    both = grid(threads=(1, 2), depth=(8,))
    clock = FakeClock()
    measurer = FakeMeasurer(clock, fail=set(both.points()))
    outcome = Search(both, FakeOracle(), measurer, Goal("max_qps"), HOUR, clock=clock).run()
    assert outcome.winner is None and not outcome.measured
    with pytest.raises(StepFailed) as failed:
        verdict(outcome, tmp_path)
    message = str(failed.value)
    assert message.count("no point could be measured") == 1 and "fake failure" in message, message


def test_finds_the_optimum_under_noise_for_many_seeds() -> None:
    for seed in range(10):
        outcome, _ = tune(Goal("max_qps"), noise=0.02, seed=seed)
        assert outcome.winner is not None
        assert true_qps(outcome.winner.config) >= 0.97 * true_qps(brute_force(Goal("max_qps"))), seed


def test_every_step_says_why() -> None:
    outcome, _ = tune(Goal("max_qps"))
    assert [s.n for s in outcome.steps] == list(range(1, len(outcome.steps) + 1))
    for step in outcome.steps[1:]:
        assert step.why.startswith("neighbour of threads=")
    assert all(s.at_s >= 0 for s in outcome.steps)


def test_several_devices_measure_neighbours_at_once_and_find_the_same_optimum() -> None:
    from fakes import FakeDevices

    clock = FakeClock()
    devices = FakeDevices(clock, slots=4)
    outcome = Search(grid(), FakeOracle(), devices, Goal("max_qps"), HOUR, clock=clock).run()
    sequential, measurer = tune(Goal("max_qps"))
    assert outcome.winner is not None and sequential.winner is not None
    assert outcome.winner.config == sequential.winner.config == brute_force(Goal("max_qps"))
    assert clock.now < 10.0 * len(measurer.calls)  # less wall time than one device
