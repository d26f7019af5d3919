"""How long ``ascgen calibrate`` will take, before it starts: the device time of every probe case
as the base profile predicts it (the simulator runs it --time-scale times slower), repeated
--repeat times, plus each probe's start (the device opened once per run). The probes' builds
are not in it: seconds when cached, minutes the first time (the caller says so)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ascgen.calibrate import engines
from ascgen.calibrate.measure import COPY_ENGINES
from ascgen.dsl import profile as profiles
from ascgen.transfers import estimate as transfer_time
from ascgen.transfers import probe
from ascgen.transfers.estimate import OPEN_CANN_S, START_S


@dataclass(frozen=True)
class Estimate:
    steps: int
    seconds: float  # wall time, without the builds
    by_section: dict[str, float]


def _engines_us(options: engines.Options, prof: profiles.Profile) -> float:
    e = prof.engines
    total = options.tasks * e.scheduler.per_task_us + engines.gate_bytes(options) / (e.d2d.bandwidth_GBps * 1e3)
    jpeg_mpix = [w * h / 1e6 for w, h in ((1024, 1536), (768, 512))]  # engines.JPEGS
    for case in engines.cases(options):
        if case.kind == "kJpegd":
            one = e.jpegd.base_us + e.jpegd.per_mpixel_us * jpeg_mpix[case.picture]
            total += case.channels * case.count * one / min(case.channels, e.jpegd.units)
        elif case.kind == "kVpc":
            one = e.vpc.base_us + e.vpc.per_mpixel_us * case.width * case.height / 1e6
            total += case.channels * case.count * one / min(case.channels, e.vpc.units)
    return total


def _models_us(prof: profiles.Profile, batches: Sequence[int], executions: int) -> float:
    latency = prof.models["resnet50"].latency_ms if "resnet50" in prof.models else {}
    return sum(executions * latency.get(b, max(latency.values(), default=1.0)) * 1e3 for b in batches)


def estimate(
    base: str,
    backend: str,
    options: engines.Options,
    copy_sizes: Sequence[int],
    link_sizes: Sequence[int],
    total: int,
    batches: Sequence[int],
    executions: int,
    time_scale: float,
) -> Estimate:
    """Steps and seconds of a calibration. On a device (cann) the device time is real time (no
    time scale)."""
    prof = profiles.load(base)
    scale = time_scale if backend == "sim" else 1.0
    opened = prof.engines.host.device_open_ms / 1e3 if backend == "sim" else OPEN_CANN_S
    copies = probe.Options(
        profile=base, links=("copy",), directions=COPY_ENGINES, sizes=tuple(copy_sizes), total_bytes=total
    )  # as measure.copies runs it
    links = probe.Options(profile=base, links=("hccs", "rdma"), sizes=tuple(link_sizes), total_bytes=total)
    n_links = len(probe.cases(links)) if prof.links is not None else 0
    models = list(batches) if backend == "sim" else []
    repeat = options.repeat
    # (device microseconds of one repeat, steps, processes started, devices opened)
    sections = {
        "engines": (_engines_us(options, prof), engines.steps(options), 1, 1),
        "copies": (transfer_time.device_us(copies), len(copy_sizes) * 3, 1, 1),
        "links": (transfer_time.device_us(links) if n_links else 0.0, n_links, 1, 1),
        # acl_sim_calib runs once per batch and repeat, with the device's opening off
        "model batches": (_models_us(prof, models, executions), len(models), len(models) * repeat, 0),
    }
    by_section = {
        name: ((us / 1e6 * repeat + opens * opened) * scale + starts * START_S) if steps else 0.0
        for name, (us, steps, starts, opens) in sections.items()
    }
    return Estimate(sum(s[1] for s in sections.values()), sum(by_section.values()), by_section)
