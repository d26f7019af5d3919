"""A known landscape for the tune's search: QPS and p99 as functions of threads and depth,
with seeded noise; a memory limit (threads x depth <= 96) the fake planner refuses past."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ascgen.bench.schema import Config
from ascgen.common.errors import UserError
from ascgen.tune.goal import Measurement
from ascgen.tune.grid import Grid
from ascgen.tune.search import PointFailed

MEMORY_LIMIT = 96  # threads x depth


def true_qps(c: Config) -> float:
    """Peaks at 6 threads (host contention past it); more depth always helps."""
    return 1000.0 * c.threads / (1 + (c.threads / 6) ** 2) * (1 - 0.5 ** (c.depth / 4))


def true_p99(c: Config) -> float:
    return 5.0 + 10.0 * c.threads * c.depth / 8


def grid(threads: tuple[int, ...] = tuple(range(1, 13)), depth: tuple[int, ...] = (2, 4, 8, 16, 32)) -> Grid:
    axes: dict[str, tuple[int | str, ...]] = {
        "threads": threads,
        "depth": depth,
        "batch": (16,),
        "streams": ("per_stage",),
        "sync_every": (64,),
    }
    home: dict[str, int | str | None] = {
        "threads": 4,
        "depth": 8,
        "batch": 16,
        "streams": "per_stage",
        "sync_every": None,
    }
    return Grid(axes, 64, False, home)


class FakeOracle:
    def roofline(self, config: Config) -> float:
        if config.threads * config.depth > MEMORY_LIMIT:
            raise UserError(f"{config.label()}: out of DVPP memory on fake: {config.threads * config.depth} > 96")
        return 1000.0 * min(config.threads, 3)


@dataclass
class FakeClock:
    now: float = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class FakeMeasurer:
    clock: FakeClock
    seconds: float = 10.0  # per measurement
    noise: float = 0.005  # relative, uniform
    seed: int = 7
    fail: set[Config] = field(default_factory=set)
    interrupt_at: int | None = None
    calls: list[Config] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def measure(self, config: Config) -> Measurement:
        assert config.threads * config.depth <= MEMORY_LIMIT, f"measured a point that does not fit: {config}"
        self.calls.append(config)
        if self.interrupt_at is not None and len(self.calls) >= self.interrupt_at:
            raise KeyboardInterrupt
        self.clock.now += self.seconds
        if config in self.fail:
            raise PointFailed("exit 3, ACL error: fake failure")
        jitter = 1 + self.rng.uniform(-self.noise, self.noise)
        return Measurement(qps=true_qps(config) * jitter, p99_ms=true_p99(config) / jitter)


@dataclass
class FakeDevices(FakeMeasurer):
    """``slots`` devices: a batch of points takes the time of one."""

    slots: int = 4

    def measure_many(self, configs: list[Config]) -> list[Measurement | PointFailed]:
        out: list[Measurement | PointFailed] = []
        for config in configs:
            try:
                out.append(self.measure(config))
            except PointFailed as exc:
                out.append(exc)
            self.clock.now -= self.seconds  # they ran side by side
        self.clock.now += self.seconds
        return out
