"""The picture of a plan's graph (ascgen/plan/picture.py, `ascgen plan --svg`): every stage a box,
straight arrows for the stage above, an arc for a branch, the per-object frame of a fan-out."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from click.testing import CliRunner

from ascgen.cli import cli
from ascgen.pipeline import analyze_file
from ascgen.plan.picture import graph_svg

GRAPH = Path("docs/graphs/detect_classify_310.yaml")
LINEAR = Path("pipelines/resnet50_b16.yaml")
SVG = "{http://www.w3.org/2000/svg}"


def texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_a_graph_draws_every_stage_its_branch_and_its_objects() -> None:
    plan = analyze_file(GRAPH)[1]
    svg = graph_svg(plan)
    root = ET.fromstring(svg)  # well-formed XML
    said = texts(svg)
    titles = [t.text for t in root.iter(f"{SVG}text") if t.get("font-weight") == "bold"]
    assert titles == ["source", *(s.name for s in plan.stages)]
    arcs = root.findall(f"{SVG}path")
    assert len(arcs) == 1 and "image" in said  # decode -> crops, the one input that is not the stage above
    straight = root.findall(f"{SVG}line")
    assert len(straight) == len(plan.stages)  # the source's and each stage's but the crop's image
    assert any(t.startswith("per object (1 a frame, expect.objects_per_frame)") for t in said)
    assert svg == graph_svg(analyze_file(GRAPH)[1])  # the same bytes for the same plan


def test_a_straight_pipeline_is_a_column_of_arrows() -> None:
    svg = graph_svg(analyze_file(LINEAR)[1])
    root = ET.fromstring(svg)
    assert not root.findall(f"{SVG}path") and not any(t.startswith("per object") for t in texts(svg))
    assert re.search(r"<title>resnet50_b16 \(ascend310\)", svg)


def test_plan_writes_the_picture(tmp_path: Path) -> None:
    out = tmp_path / "graph.svg"
    result = CliRunner().invoke(cli, ["plan", str(GRAPH), "--svg", str(out)], prog_name="ascgen")
    assert result.exit_code == 0, result.output
    assert out.read_text() == graph_svg(analyze_file(GRAPH)[1])
    refused = CliRunner().invoke(cli, ["plan", str(GRAPH), "--svg", "/proc/graph.svg"], prog_name="ascgen")
    assert refused.exit_code == 2 and "Traceback" not in refused.output
