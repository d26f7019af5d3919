"""The first hour: `ascgen init` writes a spec and its sample input that validate as they are;
`validate` warns about a missing input or model and an SLO above the roofline (issue 20)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ascgen.cli import cli
from ascgen.pipeline import analyze_file

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def test_init_writes_the_sample_input_next_to_the_spec(tmp_path: Path) -> None:
    spec = tmp_path / "sub" / "my.yaml"
    result = run("init", str(spec))
    assert result.exit_code == 0, result.output
    images = sorted((tmp_path / "sub" / "data" / "images").glob("*.jpg"))
    assert len(images) == 2 and all(p.read_bytes()[:2] == b"\xff\xd8" for p in images)
    check = run("validate", str(spec))
    assert check.exit_code == 0 and check.stderr == "", check.output


def test_the_example_decodes_the_sample_and_its_slo_is_below_its_roofline() -> None:
    spec, plan = analyze_file(ROOT / "ascgen" / "example_spec.yaml")
    decode = next(s for s in spec.stages if s.kind == "jpeg_decode")
    width, height = 1024, 1536  # ascgen/sample/*.jpg
    assert decode.max.width >= width and decode.max.height >= height  # type: ignore[union-attr]
    assert spec.slo is not None and spec.slo.min_qps is not None
    assert spec.slo.min_qps < 0.8 * plan.roofline_qps


def test_init_into_a_folder_or_over_a_file(tmp_path: Path) -> None:
    assert run("init", str(tmp_path)).exit_code == 2
    (tmp_path / "p.yaml").write_text("mine")
    result = run("init", str(tmp_path / "p.yaml"))
    assert result.exit_code == 2 and "--force" in result.stderr
    assert not (tmp_path / "data").exists()  # nothing written when the spec is refused


@pytest.fixture
def spec_dir(tmp_path: Path) -> Path:
    text = (ROOT / "ascgen" / "example_spec.yaml").read_text(encoding="utf-8")
    (tmp_path / "p.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def test_a_missing_input_is_a_warning(spec_dir: Path) -> None:
    result = run("validate", str(spec_dir / "p.yaml"))
    assert result.exit_code == 0
    (warning,) = [line for line in result.stderr.splitlines() if ": warning: " in line]
    assert ":9:" in warning and "the input 'data/images' does not exist" in warning


def test_a_missing_model_is_an_error_for_a_real_device_only(spec_dir: Path) -> None:
    (spec_dir / "data" / "images").mkdir(parents=True)
    assert run("validate", str(spec_dir / "p.yaml")).exit_code == 0
    result = run("validate", "--backend", "cann", str(spec_dir / "p.yaml"))
    assert result.exit_code == 2
    assert ":24:38: error: the model 'models/resnet50_aipp.om' does not exist next to the spec" in result.stderr


def test_a_present_input_is_not_a_warning(spec_dir: Path) -> None:
    (spec_dir / "data" / "images").mkdir(parents=True)
    (spec_dir / "models").mkdir()
    (spec_dir / "models" / "resnet50_aipp.om").write_bytes(b"om")
    result = run("validate", "--backend", "cann", str(spec_dir / "p.yaml"))
    assert result.exit_code == 0 and "warning" not in result.stderr


def test_an_slo_above_the_roofline_is_a_warning(spec_dir: Path) -> None:
    path = spec_dir / "p.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("min_qps: 500", "min_qps: 100000"), encoding="utf-8")
    result = run("validate", str(path))
    assert result.exit_code == 0
    (line,) = [x for x in result.stderr.splitlines() if "slo.min_qps" in x]
    assert ": warning: slo.min_qps 100000 is above the plan's roofline of " in line


def test_an_slo_of_a_deployment_is_held_against_all_its_devices(tmp_path: Path) -> None:
    """slo.min_qps is the total over the devices, as bench measures it: above one device's roofline
    but below the deployment's is no warning; above the deployment's, the warning names it."""
    source = ROOT / "pipelines" / "resnet50_atlas800.yaml"
    _, plan = analyze_file(source)
    one, every = plan.roofline_qps, plan.deployed_qps
    assert every > 2 * one
    text = source.read_text(encoding="utf-8").replace("data/", str(ROOT / "pipelines" / "data") + "/")
    path = tmp_path / "p.yaml"
    for min_qps, warned in ((2 * one, False), (every * 1.1, True)):
        path.write_text(text + f"slo: {{min_qps: {min_qps:.0f}}}\n", encoding="utf-8")
        result = run("validate", str(path))
        assert result.exit_code == 0, result.output
        lines = [x for x in result.stderr.splitlines() if "slo.min_qps" in x]
        assert bool(lines) == warned, result.stderr
    assert f"roofline of {every:,.0f} frames/s over {len(plan.deployment.device_ids)} devices" in lines[0]


@pytest.mark.slow
def test_what_init_writes_builds_and_runs_on_its_sample(tmp_path: Path) -> None:
    import json
    import subprocess

    from build_dirs import TEST_BUILD

    from ascgen.codegen.build import build_variant

    spec = tmp_path / "pipeline.yaml"
    assert run("init", str(spec)).exit_code == 0
    binary = build_variant(spec, build_root=TEST_BUILD).binary  # the suite's build folder
    proc = subprocess.run(
        [str(binary), "--duration", "0.5", "--warmup", "0", "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["frames"] > 0
