"""``pareto.png``: every measured point of a tune, QPS against p99, with the Pareto front,
the SLO's limits and the winner (matplotlib, Agg: no display needed)."""

from __future__ import annotations

from pathlib import Path

from ascgen.tune.report import front_of
from ascgen.tune.search import Outcome


def plot_pareto(outcome: Outcome, title: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    measured = [s for s in outcome.measured if s.measurement is not None]
    fig, ax = plt.subplots(figsize=(9, 5.5), dpi=120)
    points = [s.measurement for s in measured if s.measurement is not None]
    ax.scatter([m.qps for m in points], [m.p99_ms for m in points], color="C0", label="measured", zorder=2)
    for s in measured:
        assert s.measurement is not None
        label = f"{s.n}: t{s.config.threads} d{s.config.depth} b{s.config.batch}"
        ax.annotate(label, (s.measurement.qps, s.measurement.p99_ms), fontsize=7, xytext=(4, 3),
                    textcoords="offset points")  # fmt: skip
    front = sorted((s.measurement.qps, s.measurement.p99_ms) for s in front_of(outcome) if s.measurement)
    if front:
        ax.step([q for q, _ in front], [p for _, p in front], where="post", color="C1", label="Pareto front", zorder=1)
    goal = outcome.goal
    if goal.max_p99_ms is not None:
        ax.axhline(goal.max_p99_ms, color="C3", linestyle="--", label=f"SLO p99 <= {goal.max_p99_ms:g} ms")
    if goal.min_qps is not None:
        ax.axvline(goal.min_qps, color="C3", linestyle=":", label=f"SLO QPS >= {goal.min_qps:g}")
    winner = outcome.winner
    if winner is not None and winner.measurement is not None:
        ax.scatter([winner.measurement.qps], [winner.measurement.p99_ms], marker="*", s=250, color="C2",
                   label=f"winner (step {winner.n})", zorder=3)  # fmt: skip
    ax.set_xlabel("throughput (frames/s, median of the point's runs)")
    ax.set_ylabel("p99 latency per frame (ms)")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
