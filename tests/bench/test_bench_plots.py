"""PNG plots, drawn without a display."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import pytest
from bench_helpers import COMPARE

from ascgen.bench import plots
from ascgen.bench.schema import BenchResults, load_results
from ascgen.bench.stats import summarize

base = load_results(COMPARE / "base.json")


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def two_layouts() -> BenchResults:
    """base plus the same points measured with per_thread streams, 20 % slower."""
    extra = [r.model_copy(update={"streams": "per_thread", "sync_every": 64, "qps": r.qps * 0.8}) for r in base.runs]
    runs = base.runs + extra
    return base.model_copy(update={"runs": runs, "summary": summarize(runs), "swept": ["threads", "streams"]})


def test_plots_without_a_display(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setenv("MPLBACKEND", "TkAgg")
    assert plots.write_plots(two_layouts(), tmp_path) == ["qps.png", "latency.png", "p99_vs_qps.png"]
    for name in ("qps.png", "latency.png", "p99_vs_qps.png"):
        assert png_size(tmp_path / name) == (1200, 600)


@dataclass
class Drawn:
    labels: list[str]  # the legend's
    star_x: list[float]  # the best point's marker
    star_y: list[float]


def _drawn(monkeypatch: pytest.MonkeyPatch) -> list[Drawn]:
    """What every figure saved shows: its legend and its best-point markers (nothing written)."""
    import matplotlib.figure
    import numpy as np

    saved: list[Drawn] = []

    def savefig(fig: matplotlib.figure.Figure, path: Path, *args: object, **kwargs: object) -> None:
        (ax,) = fig.axes
        legend = ax.get_legend()
        stars = [ln for ln in ax.get_lines() if ln.get_marker() == "*"]
        saved.append(
            Drawn(
                labels=[t.get_text() for t in legend.get_texts()] if legend else [],
                star_x=[float(v) for ln in stars for v in np.asarray(ln.get_xdata())],
                star_y=[float(v) for ln in stars for v in np.asarray(ln.get_ydata())],
            )
        )

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    return saved


def test_best_point_and_slo_are_marked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ascgen.bench.report import best

    results = two_layouts()
    top = best(results.summary)
    assert top is not None
    saved = _drawn(monkeypatch)
    slo = {"min_qps": 500.0, "max_p99_ms": 80.0}
    assert plots.write_plots(results, tmp_path, slo) == ["qps.png", "latency.png", "p99_vs_qps.png"]
    qps, latency, p99_qps = saved
    assert qps.star_x == [top.threads] and qps.star_y == [top.qps_median]
    assert latency.star_x == [top.threads] and latency.star_y == [top.latency_ms.p99]
    assert p99_qps.star_x == [top.qps_median] and p99_qps.star_y == [top.latency_ms.p99]
    assert any(label.startswith("best (knee), ") and "\nthreads=" in label for label in qps.labels)
    assert "SLO: min_qps 500" in qps.labels and "SLO: max_p99_ms 80" not in qps.labels
    assert "SLO: max_p99_ms 80" in latency.labels and "SLO: min_qps 500" not in latency.labels
    assert {"SLO: min_qps 500", "SLO: max_p99_ms 80"} <= set(p99_qps.labels)
    # one series per stream layout on the p99-against-QPS plot
    assert [label for label in p99_qps.labels if "(points: threads)" in label] == [
        "per_stage (points: threads)",
        "per_thread (points: threads)",
    ]


def test_slo_defaults_to_the_one_the_results_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    saved = _drawn(monkeypatch)
    plots.write_plots(base.model_copy(update={"slo": {"max_p99_ms": 60.0}}), tmp_path)
    assert ["SLO: max_p99_ms 60" in s.labels for s in saved] == [False, True, True]
    saved.clear()
    plots.write_plots(base, tmp_path)  # no SLO: no line, the best point still marked
    assert not any(label.startswith("SLO") for s in saved for label in s.labels)
    assert all(len(s.star_x) == 1 for s in saved)


def test_one_series_per_stream_layout_along_the_first_numeric_sweep() -> None:
    results = two_layouts()
    assert plots.x_key(results) == "threads"
    series = plots._series(results, "threads")
    assert list(series) == ["per_stage", "per_thread"]
    assert [s.threads for s in series["per_thread"]] == [1, 2, 4]
    assert plots._fixed_note(results, "threads") == (
        "ascend310 on simulator, depth 8, batch 16, sync_every 64 (per_thread), median of 3 runs per point, 10 s each"
    )


def test_other_swept_keys_become_series() -> None:
    extra = [r.model_copy(update={"depth": 2, "qps": r.qps * 0.9}) for r in base.runs]
    runs = base.runs + extra
    results = base.model_copy(update={"runs": runs, "summary": summarize(runs), "swept": ["depth", "threads"]})
    assert plots.x_key(results) == "depth"
    assert list(plots._series(results, "depth")) == [
        "per_stage, threads=1",
        "per_stage, threads=2",
        "per_stage, threads=4",
    ]


def test_nothing_to_plot(tmp_path: Path) -> None:
    assert plots.write_plots(base.model_copy(update={"runs": [], "summary": []}), tmp_path) == []
    assert list(tmp_path.iterdir()) == []
