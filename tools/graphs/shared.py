"""What docs/graphs.md's page (page.py) and its measurements (measure.py) share: where the files
are, how the examples are measured, and an example's plan at a number of objects a frame."""

from __future__ import annotations

from pathlib import Path

from ascgen.dsl.expect import Expect
from ascgen.dsl.parse import parse_file
from ascgen.pipeline import analyze_data
from ascgen.plan.model import Plan

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "graphs"
OBJECTS = (0, 1, 8)
MEASURED = EXAMPLES / "measured.json"  # tools/graphs/measure.py writes it
WARMUP_S, DURATION_S = 1, 4  # each measured run's
COMPARED = EXAMPLES / "compared.json"  # tools/graphs/measure.py's comparison of the layouts
GRID_THREADS, GRID_FRAMES = (1, 2, 4), (8, 16)  # the grid each layout is measured over
TIME_SCALE = 2.0  # ACL_SIM_TIME_SCALE of the comparison's runs: figures in model time


def plan_at(path: Path, objects: int) -> Plan:
    spec, smap = parse_file(path)
    return analyze_data(spec.model_copy(update={"expect": Expect(objects_per_frame=objects)}), smap)
