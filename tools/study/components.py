"""The study's component experiments as specs (pipelines/ascend310/study_*.yaml), benched like
any spec and set beside the published figures: the model alone at the study's batch sizes, the
decode front end at one and eight lanes, and the unmerged host-to-device copies.

The merged copies (800 x 73.25 MB, ~41 copies/s) have no spec: the simulator really moves the
bytes, and with the program staging each input that is ~6 GB/s of memcpy, more than two shared
cores do in real time; the calibration probe (docs/calibration.md) reproduces that experiment in
model time instead."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ascgen.bench.schema import BenchResults, Summary, load_results

# ../shared/calibration/ascend310_seed.yaml: seconds for N executions or copies.
_MODEL_ASYNC_B1 = 801 / 2.006  # components.model_async
_BATCH_SWEEP_S = {14: 3.425, 16: 2.788, 18: 4.350, 20: 4.830, 24: 6.000, 28: 7.009, 32: 6.577, 64: 16.216}
BAND = (0.85, 1.15)


@dataclass(frozen=True)
class Experiment:
    key: str  # the spec's stem, and its folder under docs/performance/
    title: str
    sweeps: list[str]
    axis: str  # the Summary field the published figures are keyed by
    published: dict[int, float]  # axis value -> published frames (or copies) per second
    source: str  # where the figures are in the seed file

    @property
    def spec(self) -> Path:
        return Path("pipelines/ascend310") / f"{self.key}.yaml"


EXPERIMENTS = [
    Experiment(
        "study_model_alone",
        "ResNet-50 alone, async on one stream",
        ["batch=1," + ",".join(str(b) for b in _BATCH_SWEEP_S)],
        "batch",
        {1: _MODEL_ASYNC_B1} | {b: 128 * b / s for b, s in _BATCH_SWEEP_S.items()},
        "components.model_async (batch 1), model_batch_sweep (128 executions; batch 8 is the study's outlier)",
    ),
    Experiment(
        "study_decode_per_thread",
        "copy + JPEGD, one stream per lane",
        ["threads=1,8"],
        "threads",
        {1: 352.0, 8: 760.0},
        "pipeline_single_batch.notes: the decode front end, ~352 fps with one lane, ~760 with 8",
    ),
    Experiment(
        "study_h2d_unmerged",
        "75,825-byte host-to-device copies",
        [],
        "threads",
        {1: 800 / 0.29},
        "components.h2d_unmerged: 800 copies in 0.29 s",
    ),
]


@dataclass(frozen=True)
class Point:
    experiment: Experiment
    at: int  # the axis value
    published: float
    measured: Summary

    @property
    def ratio(self) -> float:
        return self.measured.qps_median / self.published

    @property
    def ok(self) -> bool:
        return BAND[0] <= self.ratio <= BAND[1]


def measure_all(measure: Callable[[Path, list[str], Path], BenchResults], folder: Path) -> dict[str, BenchResults]:
    """Benches every experiment's spec over its sweep; results under folder/<key>/."""
    return {e.key: measure(e.spec, e.sweeps, folder / e.key) for e in EXPERIMENTS}


def load_all(folder: Path) -> dict[str, BenchResults]:
    return {e.key: load_results(folder / e.key / "results.json") for e in EXPERIMENTS}


def points(results: dict[str, BenchResults]) -> list[Point]:
    """Every measured configuration that has a published figure, in the experiments' order."""
    out = []
    for e in EXPERIMENTS:
        for s in sorted(results[e.key].summary, key=lambda s: int(getattr(s, e.axis))):
            at = int(getattr(s, e.axis))
            if at in e.published:
                out.append(Point(e, at, e.published[at], s))
    return out


def table(pts: list[Point]) -> list[str]:
    lines = [
        "| experiment | spec | point | published /s | simulated /s (median) | ratio | | bottleneck (plan) |",
        "|---|---|---|---:|---:|---:|---|---|",
    ]
    for p in pts:
        mark = "ok" if p.ok else "**out of range**"
        lines.append(
            f"| {p.experiment.title} | `{p.experiment.key}` | {p.experiment.axis} {p.at} | {p.published:,.1f} | "
            f"{p.measured.qps_median:,.1f} | {p.ratio:.2f} | {mark} | {p.measured.bottleneck} |"
        )
    return lines


def sources() -> list[str]:
    return [f"- `{e.key}`: {e.source}." for e in EXPERIMENTS]
