"""tools/calibration (python -m tools.calibration, docs/calibration.md): the pure parts, without
building or running the probes."""

from __future__ import annotations

import subprocess
import sys

from tools.calibration import run
from tools.calibration.run import Row


def test_a_row_is_in_range_inside_the_band_or_when_not_gated() -> None:
    assert Row("a", "", published=2.0, simulated=2.1).ok
    assert not Row("b", "", published=2.0, simulated=2.4).ok
    assert Row("c", "", published=2.0, simulated=4.0, gated=False).ok


def test_the_sensitivity_table_shows_each_removed_parameter_and_marks_what_leaves_the_band() -> None:
    rows = [Row("model_async", "", 2.0, 2.1), Row("4 threads", "", 300.0, 310.0, unit="QPS")]
    removed = {"no shared bandwidth": [Row("model_async", "", 2.0, 3.0)]}
    text = run.sensitivity(rows, removed)
    assert "| model_async | 2.000 s | +5.0 % | 1.050 | 1.500 (out) |" in text
    assert "| pipeline b1, 4 threads | 300 QPS | +3.3 % | 1.033 | - |" in text
    assert "largest |residual| 5.0 %" in text


def test_the_tool_runs_as_a_module_from_the_repository() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tools.calibration", "--help"],
        cwd=run.REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "usage: python -m tools.calibration" in proc.stdout


def test_the_page_opens_with_ascgen_calibrate_as_the_tool_writes_it() -> None:
    page = (run.REPO / "docs" / "calibration.md").read_text(encoding="utf-8")
    intro = "\n".join(run.INTRO)
    assert "`ascgen calibrate`" in run.INTRO[0]
    assert intro in page and page.index(intro) < page.index("## The simulator against the study")
    from click.testing import CliRunner

    from ascgen.cli import cli

    options = CliRunner().invoke(cli, ["calibrate", "--help"]).output
    for option in ("--backend", "--profile", "--out", "--batches", "--executions", "--time-scale", "--repeat"):
        assert option in intro and option in options  # what it names, the command has
