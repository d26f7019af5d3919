"""``ascgen calibrate`` round trip on the simulator: calibrate a simulated ascend310, compare the
figures with the profile's, then probe the calibrated profile and compare what it does; the
engine probe's arithmetic on lines a device of known figures would print."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from build_dirs import TEST_BUILD
from click.testing import CliRunner

from ascgen.cli import cli
from ascgen.common.errors import StepFailed
from ascgen.dsl import profile
from ascgen.transfers import probe

REPO = Path(__file__).resolve().parents[2]
DECODE = REPO / "pipelines" / "ascend310" / "study_decode_per_thread.yaml"


@pytest.mark.slow
def test_calibrate_round_trip_on_the_simulator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "my310.yaml"
    args = [
        "calibrate", "--backend", "sim", "--profile", "ascend310", "--out", str(out), "--sizes", "256K,4M",
        "--total", "16M", "--repeat", "1", "--batches", "1,16", "--executions", "16", "--build-dir", str(TEST_BUILD),
        "--jpegd-channels", "1,2,4", "--vpc-channels", "1,4,8", "--pictures", "8", "--tasks", "200",
    ]  # fmt: skip
    result = CliRunner().invoke(cli, args, prog_name="ascgen")
    assert result.exit_code == 0, result.output
    # In a log (no terminal): the steps and the estimate first, then a line per step.
    assert "calibrate: 17 steps, about " in result.stderr and "calibrate [17/17] model: batch 16: " in result.stderr
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
        "scheduler.per_task_us": (calibrated.engines.scheduler.per_task_us, base.engines.scheduler.per_task_us),
        "host.submit_us": (calibrated.engines.host.submit_us, base.engines.host.submit_us),
    }
    for engine in ("jpegd", "vpc"):
        got, want = getattr(calibrated.engines, engine), getattr(base.engines, engine)
        assert got.units == want.units, engine
        pairs[f"{engine}.base_us"] = (got.base_us, want.base_us)
        pairs[f"{engine}.per_mpixel_us"] = (got.per_mpixel_us, want.per_mpixel_us)
    for what, (got, want) in pairs.items():
        assert got == pytest.approx(want, rel=0.05), what
    # Every measured figure says where it comes from; the unmeasured keep the base's.
    assert set(calibrated.provenance) >= {
        "engines.h2d.bandwidth_GBps", "models.resnet50.latency_ms.16", "engines.jpegd.units", "engines.vpc.base_us",
        "engines.scheduler.per_task_us", "engines.host.submit_us",
    }  # fmt: skip
    assert all(p.driver.startswith("ascgen simulator") and p.repeats == 1 for p in calibrated.provenance.values())
    assert "measured (probe_engines)" in calibrated.provenance["engines.h2d.latency_us"].probe
    assert calibrated.engines.aicore == base.engines.aicore  # not measured: the base's
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
    # And a pipeline benched on it runs as on the base: the study's copy and decode, JPEGD-bound.
    spec = tmp_path / "specs" / "decode_my310.yaml"
    spec.parent.mkdir()
    text = DECODE.read_text().replace("profile: ascend310", "profile: my310")
    shutil.copytree(DECODE.parent.parent / "data" / "images", tmp_path / "data" / "images")  # ../data/images
    spec.write_text(text.replace("name: study_decode_per_thread", "name: decode_my310"))
    qps = {}
    for path in (DECODE, spec):
        folder = tmp_path / f"bench-{path.stem}"
        args = ["bench", str(path), "--duration", "2", "--warmup", "0.5", "--repeat", "3",
                "--build-dir", str(TEST_BUILD), "--out", str(folder)]  # fmt: skip
        result = CliRunner().invoke(cli, args, prog_name="ascgen")
        assert result.exit_code == 0, result.output
        runs = sorted(r["qps"] for r in json.loads((folder / "results.json").read_text())["runs"])
        assert len(runs) == 3
        qps[path.stem] = runs[1]  # the median run: a busy machine slows one now and then
    # JPEGD-bound: near two JPEGD units' 1 / 2.63 ms each (760 pictures/s).
    assert 600 < qps["study_decode_per_thread"] < 800
    assert qps["decode_my310"] == pytest.approx(qps["study_decode_per_thread"], rel=0.05)


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


def test_engine_figures_from_the_probe_lines() -> None:
    """What the engine probe of a device with known figures prints gives those figures back:
    one channel runs its pictures one after the other (service + the scheduler's per task),
    channels beyond the units add nothing; the host's and the scheduler's costs per record."""
    from ascgen.calibrate import engines

    per_task, submit = 4.0, 2.5
    units = {"jpegd": 3, "vpc": 5}
    base = {"jpegd": 180.0, "vpc": 260.0}
    slope = {"jpegd": 1500.0, "vpc": 1100.0}
    options = engines.Options(profile="ascend310", jpegd_channels=(1, 2, 4, 8), vpc_channels=(1, 4, 8), repeat=3)
    lines: list[dict[str, object]] = [{
        "probe": "dispatch", "tasks": 402, "device_seconds": 401 * per_task / 1e6, "host_seconds": 402 * submit / 1e6,
        "host_call_seconds": submit / 1e6,
        "gate_seconds": 0.01, "seconds_min": 401 * per_task / 1e6, "seconds_max": 1.02 * 401 * per_task / 1e6,
    }]  # fmt: skip
    for c in engines.cases(options):
        if c.kind == "kDispatch":
            continue
        engine = "jpegd" if c.kind == "kJpegd" else "vpc"
        w, h = (
            (1536, 1024)
            if engine == "jpegd" and c.picture == 0
            else (768, 512)
            if engine == "jpegd"
            else (c.width, c.height)
        )
        service = base[engine] + slope[engine] * w * h / 1e6
        pictures = c.channels * c.count
        one = c.count * (service + per_task) + per_task  # the pictures and the end event, one after the other
        seconds = (one if c.channels == 1 else pictures / min(c.channels, units[engine]) * service) / 1e6
        lines.append({"probe": engine, "channels": c.channels, "width": w, "height": h, "pictures": pictures,
                      "seconds": seconds, "seconds_min": seconds, "seconds_max": seconds})  # fmt: skip
    got = {f.key: f.value for f in engines.figures(lines, options)}
    assert got["engines.scheduler.per_task_us"] == pytest.approx(per_task)
    assert got["engines.host.submit_us"] == pytest.approx(submit)
    for engine in ("jpegd", "vpc"):
        assert got[f"engines.{engine}.units"] == units[engine]
        assert got[f"engines.{engine}.base_us"] == pytest.approx(base[engine], rel=1e-3)
        assert got[f"engines.{engine}.per_mpixel_us"] == pytest.approx(slope[engine], rel=1e-3)
    # A host slower than the gate would time the host, not the scheduler: refused.
    lines[0] = {**lines[0], "host_seconds": 0.02}
    with pytest.raises(StepFailed, match="gate"):
        engines.figures(lines, options)


def test_an_output_that_cannot_be_written_is_refused_before_any_measuring(tmp_path: Path) -> None:
    """--out under a file: refused at once (exit 2, what is in the way), nothing built or made."""
    (tmp_path / "taken").write_text("a file\n")
    build = tmp_path / "build"
    args = ["calibrate", "--backend", "sim", "--out", str(tmp_path / "taken" / "mine.yaml"), "--build-dir", str(build)]
    result = CliRunner().invoke(cli, args, prog_name="ascgen")
    assert result.exit_code == 2, result.output
    assert "is a file, not a folder" in result.output and "Traceback" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_the_upfront_estimate_follows_the_probes_and_the_time_scale() -> None:
    from ascgen.calibrate import engines, estimate

    options = engines.Options(profile="ascend310", jpegd_channels=(1, 2), vpc_channels=(1, 2), repeat=1)
    sizes, batches = [1 << 20, 4 << 20], [1, 16]

    def at(scale: float, backend: str = "sim") -> estimate.Estimate:
        return estimate.estimate("ascend310", backend, options, sizes, [], 64 << 20, batches, 10, scale)

    slow, fast = at(10.0), at(1.0)
    assert slow.steps == engines.steps(options) + len(sizes) * 3 + len(batches)  # the 310 has no links
    assert slow.by_section["links"] == 0.0
    # The model section by hand: executions x the profile's latency, x the time scale, plus a
    # process start per batch (no device opening: acl_sim_calib turns it off).
    latency = profile.load("ascend310").models["resnet50"].latency_ms
    by_hand = sum(10 * latency[b] / 1e3 * 10.0 for b in batches) + len(batches) * estimate.START_S
    assert slow.by_section["model batches"] == pytest.approx(by_hand)
    # The device time scales with --time-scale; process starts do not.
    assert slow.seconds > 3 * fast.seconds
    assert at(10.0, "cann").by_section["model batches"] == 0.0  # on a device the model is the user's
