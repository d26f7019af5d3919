"""Every example pipeline: generated, built with -Werror, run on the simulator with --verify."""

from __future__ import annotations

from pathlib import Path

import pytest
from program_harness import PIPELINES, built, run_program

CONTRACT = {
    "schema_version",
    "program",
    "backend",
    "profile",
    "streams",
    "threads",
    "depth",
    "batch",
    "frames",
    "duration_s",
    "qps",
    "latency_ms",
    "stages",
    "host_cpu_s",
    "process_cpu_s",
    "device_memory_bytes",
    "windows_qps",
    "windows_latency_ms",
    "interrupted",
    "verified",
}


@pytest.mark.slow
@pytest.mark.parametrize("spec", PIPELINES, ids=lambda p: p.stem)
def test_pipeline_runs_and_verifies(spec: Path, tmp_path: Path) -> None:
    result = built(spec)
    batch = result.plan.batch
    frames = 24 * batch
    # a graph holds each decoded picture until its batch's crops are submitted: a batch and one more in flight
    depth = batch + 1 if result.plan.object_stages else 4
    run = run_program(
        result.binary,
        "--threads",
        "2",
        "--depth",
        str(depth),
        "--warmup",
        "0",
        "--frames",
        str(frames),
        "--verify",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = run.report
    assert report is not None
    assert set(report) >= CONTRACT, CONTRACT - set(report)
    # --verify compares what returns to the host, or each decoded picture of a video program
    returns_data = any(s.kind == "d2h" for s in result.spec.stages) or result.plan.video is not None
    assert report["verified"] is (True if returns_data else None)
    assert report["frames"] >= frames and report["qps"] > 0
    assert report["backend"] == "simulator" and report["profile"] == result.plan.profile
    assert report["threads"] == 2 and report["batch"] == batch and report["streams"] == result.plan.streams
    lat = report["latency_ms"]
    assert 0 < lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["max"]
    # every measured frame's latency, as [upper bound us, count] buckets a bench can merge
    histogram = report["latency_histogram_us"]
    assert sum(n for _, n in histogram) == report["frames"]
    assert [b for b, _ in histogram] == sorted({b for b, _ in histogram})
    assert histogram[-1][0] >= lat["max"] * 1000
    assert set(report["stages"]) == {s.name for s in result.spec.stages}
    # p99 and max per second measured: every frame falls in one, so the worst is the run's max
    windows = report["windows_latency_ms"]
    assert windows and all(p99 <= top for p99, top in windows)
    assert max(top for _, top in windows) == pytest.approx(lat["max"], rel=1e-4)
    assert report["device_memory_bytes"] > 0


@pytest.mark.slow
def test_a_binary_runs_from_any_directory_with_no_environment(tmp_path: Path) -> None:
    result = built(Path("pipelines/decode_only.yaml"))
    run = run_program(
        result.binary, "--frames", "40", "--warmup", "0", cwd=tmp_path, env={"ACL_SIM_PROFILE": "", "ACL_SIM_LOG": ""}
    )
    assert run.returncode == 0, run.stderr[-2000:]


@pytest.mark.slow
def test_depth_and_threads_change_at_run_time(tmp_path: Path) -> None:
    result = built(Path("pipelines/resnet50_b16.yaml"))
    for threads, depth in ((1, 2), (3, 6)):
        run = run_program(
            result.binary,
            "--threads",
            str(threads),
            "--depth",
            str(depth),
            "--frames",
            "64",
            "--warmup",
            "0",
            cwd=tmp_path,
        )
        assert run.returncode == 0, run.stderr[-2000:]
        assert run.report is not None
        assert (run.report["threads"], run.report["depth"]) == (threads, depth)


@pytest.mark.slow
def test_an_acl_error_names_stage_call_and_code_and_exits_3(tmp_path: Path) -> None:
    result = built(Path("pipelines/resnet50_b16.yaml"))
    run = run_program(
        result.binary,
        "--frames",
        "64",
        "--warmup",
        "0",
        cwd=tmp_path,
        env={"ACL_SIM_FAIL": "acldvppJpegDecodeAsync:5:507011"},
    )
    assert run.returncode == 3, run.stderr[-2000:]
    assert "stage 'decode': acldvppJpegDecodeAsync failed with error 507011" in run.stderr


@pytest.mark.slow
def test_bad_flags_are_a_usage_error(tmp_path: Path) -> None:
    result = built(Path("pipelines/decode_only.yaml"))
    run = run_program(result.binary, "--threads", "zero", cwd=tmp_path)
    assert run.returncode == 2
    assert "--threads takes a whole number" in run.stderr


@pytest.mark.slow
def test_run_time_flags_beyond_the_device_fail_before_anything_is_created(tmp_path: Path) -> None:
    """8 threads x depth 64 of the seed example need 2,688 events (336 per worker); the 310 has 1,023."""
    result = built(Path("pipelines/resnet50_b16.yaml"))
    run = run_program(
        result.binary,
        "--threads",
        "8",
        "--depth",
        "64",
        "--frames",
        "64",
        "--warmup",
        "0",
        cwd=tmp_path,
        env={"ACL_SIM_LEAK_CHECK": "1"},
    )
    assert run.returncode == 2, run.stderr[-2000:]
    assert "--threads 8 with a window of 64 frames needs 2688 events, the device has 1023" in run.stderr
    assert "aclrtCreateEventWithFlag" not in run.stderr and "[acl_sim]" not in run.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("edit", "message"),
    [
        # the model has one head where the spec plans three
        (
            lambda d: (
                d.replace("outputs=3", "outputs=1")
                .replace("output.1.bytes=100800\n", "")
                .replace("output.2.bytes=25200\n", "")
            ),
            "the model has 1 input(s) and 1 output(s), but the spec plans 1 and 3",
        ),
        # its third head is larger than planned
        (lambda d: d.replace("output.2.bytes=25200", "output.2.bytes=25600"), "output 2 gives 25600 bytes"),
    ],
)
def test_every_model_input_and_output_is_checked_at_start_up(edit, message: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Issue 27 item 5: a detector with three heads (letterbox_yolo's extra_outputs) is checked
    output by output when it loads, not at its first execute."""
    result = built(Path("pipelines/letterbox_yolo.yaml"))
    model = tmp_path / "yolo.om.acl_sim_model"
    model.write_text(edit(Path("generated/letterbox_yolo/sim/yolo_640.om.acl_sim_model").read_text()))
    run = run_program(result.binary, "--frames", "8", "--warmup", "0", "--model", str(model), cwd=tmp_path / "run")
    assert run.returncode != 0, run.stderr[-2000:]
    assert "stage 'detect': " in run.stderr and message in run.stderr, run.stderr[-2000:]
    assert "RULE" not in run.stderr and "aclmdlExecute" not in run.stderr
