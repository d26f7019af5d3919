"""docs/calibration.png: every calibration row's ratio against the band, and the batch-1
pipeline's QPS by threads, published against simulated. Called by tools/calibration/run.py."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol


class RowLike(Protocol):
    name: str
    published: float
    simulated: float
    gated: bool

    @property
    def ratio(self) -> float: ...

    @property
    def ok(self) -> bool: ...


def write(rows: Sequence[RowLike], qps_rows: Sequence[RowLike], threads: Sequence[int], band: tuple[float, float],
          path: Path) -> None:  # fmt: skip
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (bars, pipe) = plt.subplots(1, 2, figsize=(12, 5), dpi=110, gridspec_kw={"width_ratios": [3, 2]})
    every = [*rows, *qps_rows]
    labels = [r.name if r in rows else f"pipeline {r.name}" for r in every]
    colors = ["0.7" if not r.gated else ("C0" if r.ok else "C3") for r in every]
    ys = list(range(len(every)))
    bars.barh(ys, [min(r.ratio, 1.6) for r in every], color=colors)
    for edge in band:
        bars.axvline(edge, color="0.4", linestyle=":")
    bars.axvline(1.0, color="k", linewidth=0.8)
    bars.set_yticks(ys, labels, fontsize=7)
    bars.invert_yaxis()
    bars.set_xlim(0, 1.6)
    bars.set_xlabel(f"simulated / published (gated band {band[0]}..{band[1]}; grey: not gated)")
    bars.set_title("every calibration row", fontsize=10)
    pipe.fill_between(threads, [r.published * band[0] for r in qps_rows], [r.published * band[1] for r in qps_rows],
                      color="0.85", label="published +-15 %")  # fmt: skip
    pipe.plot(threads, [r.published for r in qps_rows], color="k", marker="s", label="published")
    pipe.plot(threads, [r.simulated for r in qps_rows], color="C0", marker="o", label="simulated (probe)")
    pipe.set_xticks(list(threads))
    pipe.set_xlabel("host threads (one stream each)")
    pipe.set_ylabel("throughput (frames/s)")
    pipe.set_ylim(bottom=0)
    pipe.grid(True, alpha=0.3)
    pipe.legend(fontsize=8, loc="lower right")
    pipe.set_title("batch-1 pipeline, 64 frames per sync", fontsize=10)
    fig.suptitle("Simulator calibration: ascend310 profile against the published Ascend 310 study", fontsize=11)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
