"""How long the transfer probe takes, before it runs: each case's device time as the profile
predicts it (copies: a dispatch, the engine's latency per copy and the bytes at its bandwidth;
links: the link model), --repeat times, slowed --time-scale times on the simulator."""

from __future__ import annotations

from ascgen.dsl import profile as profiles
from ascgen.transfers import model, published
from ascgen.transfers.probe import Case, Options, cases

START_S = 1.0  # a probe process's start and exit besides opening the device
OPEN_CANN_S = 2.0  # aclInit and opening a real device, roughly


def case_us(prof: profiles.Profile, case: Case, total: int) -> float:
    """Device microseconds of one repeat of ``case`` moving ``total`` bytes."""
    if case.kind == "kLink":
        if prof.links is None:
            return 0.0
        t = published.parse_column(case.column, case.op, case.cross_host)
        return total / (model.throughput_GBps(prof.links, t, case.block) * 1e3)
    e = prof.engines
    engine = {"ACL_MEMCPY_HOST_TO_DEVICE": e.h2d, "ACL_MEMCPY_DEVICE_TO_HOST": e.d2h}.get(case.copy_kind, e.d2d)
    copies = 1 if case.merged else max(1, total // case.block)
    return copies * (e.scheduler.per_task_us + engine.latency_us) + total / (engine.bandwidth_GBps * 1e3)


def device_us(options: Options) -> float:
    """Device microseconds of one repeat of every case."""
    prof = profiles.load(options.profile)
    return sum(case_us(prof, c, options.total_bytes) for c in cases(options))


def seconds(options: Options, backend: str, time_scale: float) -> float:
    """Wall seconds of a probe run, its build aside."""
    prof = profiles.load(options.profile)
    scale = time_scale if backend == "sim" else 1.0
    opened = prof.engines.host.device_open_ms / 1e3 if backend == "sim" else OPEN_CANN_S
    return (device_us(options) / 1e6 * options.repeat + opened) * scale + START_S
