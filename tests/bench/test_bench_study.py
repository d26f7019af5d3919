"""docs/performance.md's page and plots, from recorded results (no program runs here)."""

from __future__ import annotations

from pathlib import Path

from bench_helpers import COMPARE
from test_bench_plots import png_size, two_layouts

from ascgen.bench.schema import load_results
from ascgen.bench.stats import summarize
from tools.study import components as study_components
from tools.study import plots as study_plots
from tools.study import report as study_report

base = load_results(COMPARE / "base.json")


def b1_results() -> object:
    """base's runs relabelled as the study's batch-1 per_thread points."""
    runs = [
        r.model_copy(update={"streams": "per_thread", "sync_every": 64, "batch": 1, "threads": t, "qps": q})
        for r, (t, q) in zip(base.runs, [(1, 160.0), (2, 300.0), (4, 400.0)], strict=False)
    ]
    return base.model_copy(update={"runs": runs, "summary": summarize(runs), "swept": ["threads"]})


def component_points() -> list[study_components.Point]:
    """base's first run relabelled as every component experiment's points: each at its published
    figure, except the model alone at batch 64, 30 % too fast."""
    results = {}
    for e in study_components.EXPERIMENTS:
        fast = {("batch", 64): 1.3}
        runs = [
            base.runs[0].model_copy(update={"threads": 1, "batch": 1, e.axis: at, "qps": q * fast.get((e.axis, at), 1)})
            for at, q in e.published.items()
        ]
        results[e.key] = base.model_copy(update={"runs": runs, "summary": summarize(runs)})
    return study_components.points(results)


def test_component_points_pair_each_measurement_with_its_published_figure() -> None:
    pts = component_points()
    assert len(pts) == sum(len(e.published) for e in study_components.EXPERIMENTS)
    bad = [(p.experiment.key, p.at) for p in pts if not p.ok]
    assert bad == [("study_model_alone", 64)]
    b16 = next(p for p in pts if p.experiment.key == "study_model_alone" and p.at == 16)
    assert round(b16.published, 1) == 734.6  # 128 x 16 frames in 2.788 s


def test_page_has_the_reproduction_table_and_the_verdict(tmp_path: Path) -> None:
    b1, b16, pts = b1_results(), two_layouts(), component_points()
    plots = study_plots.write(b1, b16, pts, tmp_path)  # type: ignore[arg-type]
    assert [p.name for p in plots] == ["study_b1.png", "resnet50_b16_layouts.png", "study_components.png"]
    assert png_size(plots[0]) == (960, 540)
    assert png_size(plots[1]) == (1320, 880)
    assert png_size(plots[2]) == (1320, 495)
    page = study_report.render(b1, b16, pts, ["a.png", "b.png", "c.png"])  # type: ignore[arg-type]
    row = "| ResNet-50 alone, async on one stream | `study_model_alone` | batch 16 | 734.6 | 734.6 | 1.00 | ok |"
    assert row in page
    assert "| batch 64 | 505.2 | 656.7 | 1.30 | **out of range** |" in page
    assert f"{len(pts) - 1} of {len(pts)} points lie in the band" in page
    assert "![component experiments](c.png)" in page
    assert "| 1 | 166 | 160.0 |" in page and "| 0.96 | ok |" in page
    assert "| 4 | 332 | 400.0 |" in page and "**out of range**" in page  # 400 / 332 = 1.20
    assert "per_stage / the study's program at their best: **1.25x**" in page  # two_layouts: 20 % slower
    assert "by threads: 1: 1.25x" in page
    assert "![batch-1 reproduction](a.png)" in page and "python -m tools.study" in page


def test_the_page_generators_live_outside_the_package() -> None:
    package = Path(study_report.__file__).resolve().parents[2] / "ascgen"
    assert package.is_dir() and not list(package.rglob("study*.py"))
    assert Path(study_report.__file__).parent.name == "study"
