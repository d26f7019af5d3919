"""Two more PNG plots, drawn when the results hold their data (ascgen.bench.plots.write_plots):

- scaling.png: scaling efficiency, aggregate QPS / (devices x one device's QPS in the same
  configuration), against the number of devices, one series per deployment (a process per
  device, or a thread per device in one process) and per value of any other swept key, with
  the ideal 100 % and each point's aggregate QPS; drawn when a sweep over devices measured
  one device and more;
- jitter.png: the latency of each one-second window (max solid, p99 dashed) against time, per
  configuration its run with the worst window, so that a spike (page migration, a stall) shows
  where the percentiles of the whole run hide it; drawn when the programs reported windows."""

from __future__ import annotations

import textwrap
from pathlib import Path

from ascgen.bench.report import scaling
from ascgen.bench.schema import DEVICE_KEYS, BenchResults, RunRecord, Summary
from ascgen.bench.stats import config_of


def _scaling_series(results: BenchResults) -> dict[str, list[tuple[int, float, Summary]]]:
    """Per series (deploy and the other swept keys), (devices, efficiency, summary) by devices."""
    others = [k for k in results.swept if k not in DEVICE_KEYS]
    out: dict[str, list[tuple[int, float, Summary]]] = {}
    for s in results.summary:
        n = s.device_count
        eff = scaling(s, results.summary)
        if n is None or eff is None:
            continue
        parts = [f"deploy={s.deploy or 'spec'}", *(f"{k}={getattr(s, k)}" for k in others)]
        out.setdefault(", ".join(parts), []).append((n, eff, s))
    for points in out.values():
        points.sort(key=lambda p: p[0])
    return {k: v for k, v in sorted(out.items()) if len({n for n, _, _ in v}) > 1}


def has_scaling(results: BenchResults) -> bool:
    return bool(_scaling_series(results))


def _title(results: BenchResults, what: str) -> str:
    c = results.context
    runs = f"median of {c.repeat} runs" if c.repeat > 1 else "1 run"
    note = f"{c.profile} on {c.backend or '?'}, {runs} per point, {c.duration_s:g} s each"
    return f"{Path(c.spec).name}: {what}\n" + "\n".join(textwrap.wrap(note, width=90))


def plot_scaling(results: BenchResults, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 5), dpi=120)
    counts: set[int] = set()
    for i, (label, points) in enumerate(_scaling_series(results).items()):
        xs = [n for n, _, _ in points]
        ys = [100.0 * eff for _, eff, _ in points]
        counts.update(xs)
        ax.plot(xs, ys, color=f"C{i}", marker="o", label=label)
        for n, y, (_, _, s) in zip(xs, ys, points, strict=True):
            ax.annotate(f"{s.qps_median:,.0f} QPS", (n, y), textcoords="offset points", xytext=(4, -12),
                        fontsize=7, color=f"C{i}")  # fmt: skip
    ax.axhline(100.0, color="0.4", linestyle="--", linewidth=1, label="ideal: devices x one device")
    ticks = sorted(counts)
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(t) for t in ticks])
    ax.set_xlabel("devices (one process each, or one thread each in one process)")
    ax.set_ylabel("scaling efficiency (%): aggregate QPS / (devices x one device's)")
    ax.set_ylim(bottom=0, top=max(110.0, ax.get_ylim()[1]))
    ax.grid(True, alpha=0.3)
    ax.set_title(_title(results, "scaling over devices"), fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _jitter_runs(results: BenchResults) -> list[RunRecord]:
    """Per configuration (in the summary's order), its run whose worst window is the worst."""
    out = []
    for s in results.summary:
        mine = [r for r in results.runs if config_of(r) == config_of(s) and r.windows_latency_ms]
        if mine:
            out.append(max(mine, key=lambda r: max(w[1] for w in r.windows_latency_ms)))
    return out


def has_jitter(results: BenchResults) -> bool:
    return bool(_jitter_runs(results))


def plot_jitter(results: BenchResults, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig, ax = plt.subplots(figsize=(10, 5), dpi=120)
    handles: list[Line2D] = []
    for i, r in enumerate(_jitter_runs(results)):
        seconds = list(range(1, len(r.windows_latency_ms) + 1))
        ax.plot(seconds, [w[1] for w in r.windows_latency_ms], color=f"C{i}", marker="o", ms=3)
        ax.plot(seconds, [w[0] for w in r.windows_latency_ms], color=f"C{i}", linestyle="--")
        handles.append(Line2D([], [], color=f"C{i}", label=f"{r.label()} (repeat {r.repeat})"))
    handles += [
        Line2D([], [], color="0.3", marker="o", ms=3, label="max of the window"),
        Line2D([], [], color="0.3", linestyle="--", label="p99 of the window"),
    ]
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("measured second (one-second windows)")
    ax.set_ylabel("latency per frame (ms)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.set_title(_title(results, "latency per second (the worst run of each configuration)"), fontsize=10)
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
