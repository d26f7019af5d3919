"""scaling.png (efficiency against devices, per deployment) and jitter.png (latency per second):
drawn only when the results hold their data, and drawing what the data says."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_helpers import COMPARE

from ascgen.bench import plots, plots_deployment
from ascgen.bench.schema import BenchResults, load_results, parse_program_report
from ascgen.bench.stats import summarize

base = load_results(COMPARE / "base.json")
THREE = ["qps.png", "latency.png", "p99_vs_qps.png"]


def over_devices() -> BenchResults:
    """base's threads=4 runs on 1, 2 and 4 devices, a process per device scaling worse than a
    thread per device."""
    runs = []
    for deploy, factors in (("processes", (1.0, 1.9, 3.6)), ("threads", (1.0, 2.0, 3.8))):
        for devices, f in zip(("0", "0,1", "0,1,2,3"), factors, strict=True):
            runs += [
                r.model_copy(update={"devices": devices, "deploy": deploy, "qps": r.qps * f})
                for r in base.runs
                if r.threads == 4
            ]
    return base.model_copy(update={"runs": runs, "summary": summarize(runs), "swept": ["devices", "deploy"]})


def _lines(monkeypatch: pytest.MonkeyPatch) -> list[list[tuple[list[float], list[float], str]]]:
    """Per figure saved: each line's x, y and label (nothing written)."""
    import matplotlib.figure
    import numpy as np

    saved: list[list[tuple[list[float], list[float], str]]] = []

    def savefig(fig: matplotlib.figure.Figure, path: Path, *args: object, **kwargs: object) -> None:
        (ax,) = fig.axes
        saved.append(
            [
                ([float(v) for v in np.asarray(ln.get_xdata())], [float(v) for v in np.asarray(ln.get_ydata())],
                 str(ln.get_label()))
                for ln in ax.get_lines()
            ]
        )  # fmt: skip

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    return saved


def test_scaling_efficiency_against_devices_per_deployment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    saved = _lines(monkeypatch)
    assert plots.write_plots(over_devices(), tmp_path) == [*THREE, "scaling.png"]
    scaling = saved[3]
    by_label = {label: (xs, ys) for xs, ys, label in scaling}
    xs, ys = by_label["deploy=processes"]
    assert xs == [1, 2, 4] and ys == pytest.approx([100.0, 95.0, 90.0])
    xs, ys = by_label["deploy=threads"]
    assert xs == [1, 2, 4] and ys == pytest.approx([100.0, 100.0, 95.0])
    assert by_label["ideal: devices x one device"][1] == [100.0, 100.0]


def test_scaling_needs_one_device_and_more(tmp_path: Path) -> None:
    results = over_devices()
    no_single = [r for r in results.runs if r.devices != "0"]
    only_single = [r for r in results.runs if r.devices == "0"]
    for runs in (no_single, only_single):
        partial = results.model_copy(update={"runs": runs, "summary": summarize(runs)})
        assert not plots_deployment.has_scaling(partial)
        assert plots.write_plots(partial, tmp_path) == THREE
    assert not plots_deployment.has_scaling(base)  # no devices swept


def test_jitter_shows_each_configuration_s_worst_run_per_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calm = [(5.0, 6.0)] * 5
    spike = [(5.0, 6.0), (5.0, 6.0), (9.0, 120.0), (5.0, 6.0)]  # one second of page migration
    runs = [
        r.model_copy(update={"windows_latency_ms": spike if r.threads == 2 and r.repeat == 2 else calm})
        for r in base.runs
    ]
    results = base.model_copy(update={"runs": runs, "summary": summarize(runs)})
    saved = _lines(monkeypatch)
    assert plots.write_plots(results, tmp_path) == [*THREE, "jitter.png"]
    jitter = saved[3]
    lines = [(xs, ys) for xs, ys, _ in jitter]
    # per configuration (threads 1, 2, 4): the max line, then the p99 line
    assert len(lines) == 2 * len(results.summary)
    (max2_x, max2_y), (_, p99_2) = lines[2], lines[3]
    assert max2_x == [1, 2, 3, 4] and max2_y == [6.0, 6.0, 120.0, 6.0]  # the repeat with the spike
    assert p99_2 == [5.0, 5.0, 9.0, 5.0]
    assert lines[0][1] == [6.0] * 5


def test_no_windows_no_jitter(tmp_path: Path) -> None:
    assert not plots_deployment.has_jitter(base)
    assert plots.write_plots(base, tmp_path) == THREE


def test_the_program_s_windows_reach_the_results() -> None:
    report = parse_program_report(
        '{"schema_version": 1, "program": "p", "backend": "simulator", "profile": "ascend310",'
        ' "streams": "per_stage", "threads": 1, "depth": 1, "batch": 1, "frames": 2, "duration_s": 1,'
        ' "qps": 2, "latency_ms": {"p50": 1, "p90": 1, "p99": 1, "max": 1}, "stages": {},'
        ' "host_cpu_s": 0, "device_memory_bytes": 0, "windows_qps": [2],'
        ' "windows_latency_ms": [[1.5, 2.5]]}',
        "p.json",
    )
    assert report.windows_latency_ms == [(1.5, 2.5)]
