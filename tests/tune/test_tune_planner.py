"""The search with the real planner on the seed example (a fake measurer standing for the
device): points the planner refuses (DVPP memory, events) are skipped, never measured, and
the winner meets the SLO and the device's limits."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from fakes import FakeClock

from ascgen.bench.roofline import Planner
from ascgen.bench.schema import Config
from ascgen.tune.goal import Goal, Measurement
from ascgen.tune.grid import make_grid
from ascgen.tune.measure import BenchMeasurer
from ascgen.tune.search import Limits, Search
from ascgen.tune.space import parse_space

SEED = Path(__file__).resolve().parents[2] / "pipelines" / "resnet50_b16.yaml"


class PlanOracle:
    def __init__(self, planner: Planner) -> None:
        self.planner = planner

    def roofline(self, config: Config) -> float:
        return self.planner.plan(config).roofline_qps


class Device:
    """Up to the roofline, QPS grows with threads and frames per sync; so does p99."""

    def __init__(self, planner: Planner, clock: FakeClock) -> None:
        self.planner, self.clock = planner, clock
        self.calls: list[Config] = []

    def measure(self, config: Config) -> Measurement:
        self.planner.plan(config)  # raises if the search measured a point that does not fit
        self.calls.append(config)
        self.clock.now += 5
        roofline = self.planner.plan(config).roofline_qps
        sync = config.sync_every or config.depth
        qps = min(roofline * 0.97, 90.0 * config.threads * (1 + sync / 128))
        return Measurement(qps=qps, p99_ms=2.0 * config.threads * sync / 16 + 20)


def run(space: str, goal: Goal) -> tuple[list[Config], Search]:
    planner = Planner(SEED)
    clock = FakeClock()
    device = Device(planner, clock)
    search = Search(
        make_grid(planner.spec, parse_space(space)), PlanOracle(planner), device, goal, Limits(3600), clock=clock
    )
    search.run()
    return device.calls, search


def test_points_out_of_dvpp_memory_are_skipped_and_the_slo_holds() -> None:
    goal = Goal("max_qps", max_p99_ms=150.0)
    calls, search = run("threads=1..16,streams=per_thread,sync_every=32..256", goal)
    outcome = search.outcome
    assert any(r.startswith("out of DVPP memory on ascend310") for r in search.unfit.values()), search.unfit
    assert not set(calls) & set(search.unfit)
    assert outcome.fitting < outcome.points
    winner = outcome.winner
    assert winner is not None and winner.measurement is not None
    assert winner.measurement.p99_ms <= 150.0
    assert len(calls) < outcome.fitting


def test_points_beyond_the_device_events_are_never_measured() -> None:
    calls, search = run("threads=1..16,depth=2..64", Goal("max_qps"))
    assert any("events" in reason for reason in search.unfit.values())
    assert not set(calls) & set(search.unfit)


ATLAS800 = SEED.with_name("resnet50_atlas800.yaml")  # every device of the host, a process per device


class AlmostDeployed:
    """Runs a deployment at 90 % of its planned aggregate: a total over every device."""

    def __init__(self, planner: Planner, clock: FakeClock) -> None:
        self.planner, self.clock = planner, clock
        self.calls: list[Config] = []

    def measure(self, config: Config) -> Measurement:
        self.calls.append(config)
        self.clock.now += 5
        return Measurement(qps=0.9 * self.planner.plan(config).deployment.aggregate_qps, p99_ms=30.0)


def test_the_tune_holds_a_deployment_against_the_roofline_of_all_its_devices() -> None:
    """A measured total over N devices is set against the deployment's roofline, not one device's
    (which read "195 % of roofline" and skipped every neighbour as unable to win)."""
    planner = Planner(ATLAS800)
    oracle = BenchMeasurer(cast(Any, None), planner, cast(Any, None), cast(Any, None))
    home = Config(threads=planner.spec.threads, depth=planner.spec.buffers.depth, batch=planner.spec.batch,
                  streams=planner.spec.streams, sync_every=None)  # fmt: skip
    plan = planner.plan(home)
    assert len(plan.deployment.device_ids) > 1
    assert oracle.roofline(home) == plan.deployment.aggregate_qps > 1.5 * plan.roofline_qps
    clock = FakeClock()
    device = AlmostDeployed(planner, clock)
    grid = make_grid(planner.spec, parse_space("threads=1..8,depth=2..16"))
    search = Search(grid, oracle, device, Goal("max_qps"), Limits(3600), clock=clock)
    outcome = search.run()
    assert len(device.calls) > 1, outcome.stopped  # the neighbours were worth measuring
    assert all(s.measurement.qps <= s.roofline_qps for s in outcome.measured if s.measurement and s.roofline_qps)
