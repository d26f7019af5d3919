"""The study's PNGs: the batch-1 reproduction (published against simulated QPS), and the
batch-16 layouts side by side (QPS with the roofline, share of the roofline, host CPU per
frame, latency percentiles), all against host threads."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ascgen.bench.schema import BenchResults, Summary

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from tools.study.components import Point

# The published Ascend 310 study (../shared/calibration/ascend310_seed.yaml,
# pipeline_single_batch.threads_to_qps), and the band a reproduction must fall in.
PUBLISHED_B1 = {1: 166.0, 2: 307.0, 4: 332.0, 6: 371.0, 8: 335.0}
BAND = (0.85, 1.15)
TARGET_EFFICIENCY = 0.97  # of the (contended) roofline


def by_layout(results: BenchResults) -> dict[str, list[Summary]]:
    out: dict[str, list[Summary]] = {}
    for s in sorted(results.summary, key=lambda s: (s.streams, s.threads)):
        out.setdefault(s.streams, []).append(s)
    return out


def _note(results: BenchResults) -> str:
    c = results.context
    return f"{c.repeat} x {c.duration_s:g} s per point (median), {c.profile} profile on the simulator"


def _threads_axis(ax: Axes, xs: list[int]) -> None:
    ax.set_xticks(sorted(set(xs)))
    ax.set_xlabel("host threads")
    ax.grid(True, alpha=0.3)


def plot_b1(b1: BenchResults, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = sorted(b1.summary, key=lambda s: s.threads)
    xs = [s.threads for s in points]
    pub = [PUBLISHED_B1.get(t, float("nan")) for t in xs]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=120)
    ax.fill_between(xs, [p * BAND[0] for p in pub], [p * BAND[1] for p in pub], color="0.85", label="published +-15 %")
    ax.plot(xs, pub, color="k", marker="s", label="published (Ascend 310 study)")
    err = [[s.qps_median - s.qps_min for s in points], [s.qps_max - s.qps_median for s in points]]
    ax.errorbar(xs, [s.qps_median for s in points], yerr=err, color="C0", marker="o", capsize=3,
                label="simulated (generated program, median, min-max)")  # fmt: skip
    ax.plot(xs, [s.roofline_qps for s in points], color="C0", linestyle="--", alpha=0.7, label="planner roofline")
    _threads_axis(ax, xs)
    ax.set_ylim(bottom=0)
    ax.set_ylabel("throughput (frames/s)")
    ax.set_title("Batch-1 pipeline, one stream per thread, 64 frames per sync\n" + _note(b1), fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_layouts(b16: BenchResults, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(12, 8), dpi=110)
    (qps, eff), (cpu, lat) = axes
    xs_all: list[int] = []
    for i, (layout, points) in enumerate(by_layout(b16).items()):
        color = f"C{i}"
        xs = [s.threads for s in points]
        xs_all += xs
        err = [[s.qps_median - s.qps_min for s in points], [s.qps_max - s.qps_median for s in points]]
        qps.errorbar(xs, [s.qps_median for s in points], yerr=err, color=color, marker="o", capsize=3, label=layout)
        qps.plot(xs, [s.roofline_qps for s in points], color=color, linestyle="--", alpha=0.6,
                 label=f"{layout} roofline")  # fmt: skip
        eff.plot(xs, [100 * s.efficiency for s in points], color=color, marker="o", label=layout)
        cpu.plot(xs, [s.host_cpu_s_per_1000_frames or 0.0 for s in points], color=color, marker="o", label=layout)
        lat.plot(xs, [s.latency_ms.p50 for s in points], color=color, marker="o", label=f"{layout} p50")
        lat.plot(xs, [s.latency_ms.p99 for s in points], color=color, marker="o", linestyle=":", label=f"{layout} p99")
    eff.axhline(100 * TARGET_EFFICIENCY, color="0.4", linestyle=":", label=f"{TARGET_EFFICIENCY:.0%}")
    for ax, ylabel in (
        (qps, "throughput (frames/s)"),
        (eff, "share of the planner's roofline (%)"),
        (cpu, "host CPU s per 1000 frames (program's threads)"),
        (lat, "latency per frame (ms)"),
    ):
        _threads_axis(ax, xs_all)
        ax.set_ylabel(ylabel, fontsize=9)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
    eff.set_ylim(0, 110)
    title = "ResNet-50 at batch 16: ascgen's per_stage layout vs the study's program (per_thread, by step)\n"
    fig.suptitle(title + _note(b16), fontsize=11)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_components(pts: list[Point], path: Path) -> None:
    """The model alone by batch (published against simulated), and every component point's ratio."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (model, ratios) = plt.subplots(1, 2, figsize=(12, 4.5), dpi=110, gridspec_kw={"width_ratios": [3, 2]})
    alone = [p for p in pts if p.experiment.axis == "batch"]
    xs = list(range(len(alone)))  # one slot per batch size: 14, 16, 18, 20 would crowd on a linear axis
    model.plot(xs, [p.published for p in alone], color="k", marker="s", label="published (Ascend 310 study)")
    simulated = [p.measured.qps_median for p in alone]
    model.plot(xs, simulated, color="C0", marker="o", label="simulated (generated program)")
    model.set_xlabel("batch (the study's sizes, evenly spaced)")
    model.set_ylabel("throughput (frames/s)")
    model.set_ylim(bottom=0)
    model.set_xticks(xs, [str(p.at) for p in alone])
    model.grid(True, alpha=0.3)
    model.legend(fontsize=8, loc="lower right")
    model.set_title("ResNet-50 alone, async on one stream", fontsize=10)
    labels = [f"{p.experiment.key.removeprefix('study_')} {p.experiment.axis[0]}{p.at}" for p in pts]
    ys = list(range(len(pts)))
    ratios.barh(ys, [p.ratio for p in pts], color=["C0" if p.ok else "C3" for p in pts])
    for edge in BAND:
        ratios.axvline(edge, color="0.4", linestyle=":")
    ratios.axvline(1.0, color="k", linewidth=0.8)
    ratios.set_yticks(ys, labels, fontsize=7)
    ratios.invert_yaxis()
    ratios.set_xlim(0.5, 1.5)
    ratios.set_xlabel("simulated / published (band 0.85..1.15)")
    ratios.set_title("every component point", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write(b1: BenchResults, b16: BenchResults, components: list[Point], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / "study_b1.png", folder / "resnet50_b16_layouts.png", folder / "study_components.png"]
    plot_b1(b1, paths[0])
    plot_layouts(b16, paths[1])
    plot_components(components, paths[2])
    return paths
