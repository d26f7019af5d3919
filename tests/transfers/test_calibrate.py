"""``ascgen calibrate`` round trip on the simulator: calibrate a simulated ascend310, compare the
figures with the profile's, then probe the calibrated profile and compare what it does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from build_dirs import TEST_BUILD
from click.testing import CliRunner

from ascgen import profile
from ascgen.cli import cli
from ascgen.transfers import probe

REPO = Path(__file__).resolve().parents[2]
MODEL_ALONE = REPO / "pipelines" / "ascend310" / "study_model_alone.yaml"


@pytest.mark.slow
def test_calibrate_round_trip_on_the_simulator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "my310.yaml"
    args = [
        "calibrate", "--backend", "sim", "--profile", "ascend310", "--out", str(out), "--sizes", "256K,4M",
        "--total", "16M", "--repeat", "1", "--batches", "1,16", "--executions", "16", "--build-dir", str(TEST_BUILD),
    ]  # fmt: skip
    result = CliRunner().invoke(cli, args, prog_name="ascgen")
    assert result.exit_code == 0, result.output
    calibrated = profile.load_file(out)
    base = profile.load("ascend310")
    assert calibrated.name == "my310" and "partial" not in calibrated.description
    pairs = {
        "h2d.bandwidth_GBps": (calibrated.engines.h2d.bandwidth_GBps, base.engines.h2d.bandwidth_GBps),
        "h2d.latency_us": (calibrated.engines.h2d.latency_us, base.engines.h2d.latency_us),
        "d2h.bandwidth_GBps": (calibrated.engines.d2h.bandwidth_GBps, base.engines.d2h.bandwidth_GBps),
        "d2d.bandwidth_GBps": (calibrated.engines.d2d.bandwidth_GBps, base.engines.d2d.bandwidth_GBps),
        "resnet50 b1": (calibrated.models["resnet50"].latency_ms[1], base.models["resnet50"].latency_ms[1]),
        "resnet50 b16": (calibrated.models["resnet50"].latency_ms[16], base.models["resnet50"].latency_ms[16]),
    }
    for what, (got, want) in pairs.items():
        assert got == pytest.approx(want, rel=0.05), what
    # Every measured figure says where it comes from; the unmeasured keep the base's.
    assert set(calibrated.provenance) >= {"engines.h2d.bandwidth_GBps", "models.resnet50.latency_ms.16"}
    assert all(p.driver.startswith("ascgen simulator") and p.repeats == 1 for p in calibrated.provenance.values())
    assert calibrated.engines.jpegd == base.engines.jpegd
    # The calibrated profile is a profile like the others (ASCGEN_PROFILE_PATH) and does the same.
    monkeypatch.setenv(profile.PATH_VARIABLE, str(tmp_path))
    assert "my310" in profile.available()
    gbps = {}
    for name in ("ascend310", "my310"):
        options = probe.Options(profile=name, links=("copy",), directions=("h2d",), sizes=(75825,), total_bytes=8 << 20,
                                repeat=1)  # fmt: skip
        (row,) = probe.run(probe.build(options, TEST_BUILD), options, time_scale=10)
        gbps[name] = row.GBps
    assert gbps["my310"] == pytest.approx(gbps["ascend310"], rel=0.05)
    # And a pipeline benched on it runs as on the base: the study's model alone at batch 16.
    spec = tmp_path / "specs" / "model_alone_my310.yaml"
    spec.parent.mkdir()
    text = MODEL_ALONE.read_text().replace("profile: ascend310", "profile: my310")
    spec.write_text(text.replace("name: study_model_alone", "name: model_alone_my310"))
    qps = {}
    for path in (MODEL_ALONE, spec):
        folder = tmp_path / f"bench-{path.stem}"
        args = ["bench", str(path), "--duration", "2", "--warmup", "0.5", "--repeat", "1",
                "--build-dir", str(TEST_BUILD), "--out", str(folder)]  # fmt: skip
        result = CliRunner().invoke(cli, args, prog_name="ascgen")
        assert result.exit_code == 0, result.output
        (run,) = json.loads((folder / "results.json").read_text())["runs"]
        qps[path.stem] = run["qps"]
    assert qps["model_alone_my310"] == pytest.approx(qps["study_model_alone"], rel=0.05)


def test_an_interrupted_calibration_writes_a_loadable_partial_profile(tmp_path: Path) -> None:
    from ascgen.calibrate import measure
    from ascgen.calibrate.command import write_profile

    ctx = measure.Context("ascend310", "sim", tmp_path, 10.0, 3)
    figures = [measure.Figure("engines.h2d.bandwidth_GBps", 2.5, "ascgen probe transfer --links copy", 0.01, 3)]
    out = tmp_path / "half.yaml"
    write_profile(out, ctx, figures, ["copies"], complete=False)
    half = profile.load_file(out)
    assert half.name == "half" and "partial: copies measured" in half.description
    assert half.engines.h2d.bandwidth_GBps == 2.5
    assert half.engines.d2h == profile.load("ascend310").engines.d2h  # not measured: the base's
    assert list(half.provenance) == ["engines.h2d.bandwidth_GBps"]
    assert half.provenance["engines.h2d.bandwidth_GBps"].spread == 0.01
    # Not a single stray file beside it (written atomically).
    assert sorted(p.name for p in tmp_path.iterdir()) == ["half.yaml"]
