"""PNG plots, drawn without a display."""

from __future__ import annotations

import struct
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
    assert plots.write_plots(two_layouts(), tmp_path) == ["qps.png", "latency.png"]
    assert png_size(tmp_path / "qps.png") == (1200, 600)
    assert png_size(tmp_path / "latency.png") == (1200, 600)


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
