"""A program over several devices: one process per device, started by a parent that forwards
signals and merges the reports; one device's fault is named and the others' results are kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from program_harness import built, run_program

CARD = Path("pipelines/ascend310/resnet50_atlas300i.yaml")  # the seed on an Atlas 300I's four 310s
QUICK = {"ACL_SIM_DEVICE_OPEN_MS": "0"}


def args(frames: int, *extra: str) -> list[str]:
    return ["--threads", "2", "--depth", "4", "--warmup", "0", "--frames", str(frames), *extra]


@pytest.mark.slow
def test_every_device_runs_in_its_own_process_and_the_reports_merge(tmp_path: Path) -> None:
    result = built(CARD)
    frames = 4 * result.plan.batch
    run = run_program(result.binary, *args(frames, "--verify"), cwd=tmp_path, env=QUICK)
    assert run.returncode == 0, run.stderr[-3000:]
    report = run.report
    assert report is not None
    devices = report["devices"]
    assert [d["device"] for d in devices] == [0, 1, 2, 3]
    assert all(d["exit_status"] == 0 and d["error"] is None for d in devices)
    children = [d["report"] for d in devices]
    assert all(c["verified"] is True and c["frames"] >= frames for c in children)
    assert report["verified"] is True
    assert report["frames"] == sum(c["frames"] for c in children)
    assert report["qps"] == pytest.approx(sum(c["qps"] for c in children), rel=1e-4)
    assert sum(n for _, n in report["latency_histogram_us"]) == report["frames"]
    assert report["latency_ms"]["max"] == pytest.approx(max(c["latency_ms"]["max"] for c in children), rel=1e-4)
    for stage, count in report["stages"].items():
        assert count == sum(c["stages"][stage] for c in children)
    assert report["device_memory_bytes"] == sum(c["device_memory_bytes"] for c in children)
    assert json.loads(run.stdout) == report  # one document: the children's reports go to the parent only


@pytest.mark.slow
def test_a_fault_on_one_device_names_it_and_keeps_the_others(tmp_path: Path) -> None:
    result = built(CARD)
    frames = 4 * result.plan.batch
    env = {**QUICK, "ACL_SIM_FAIL": "aclmdlExecuteAsync:2@2"}  # the 2nd execution on device 2 only
    run = run_program(result.binary, *args(frames, "--verify"), cwd=tmp_path, env=env)
    assert run.returncode == 3, run.stderr[-3000:]
    assert "device 2 failed (exit status 3): stage 'infer': aclmdlExecuteAsync failed with error" in run.stderr
    report = run.report
    assert report is not None
    by_device = {d["device"]: d for d in report["devices"]}
    assert by_device[2]["exit_status"] == 3 and "aclmdlExecuteAsync" in by_device[2]["error"]
    assert by_device[2]["report"] is None
    kept = [by_device[d]["report"] for d in (0, 1, 3)]
    assert all(r["verified"] is True and r["frames"] >= frames for r in kept)
    assert report["frames"] == sum(r["frames"] for r in kept)


@pytest.mark.slow
def test_devices_flag_picks_the_devices_and_checks_them(tmp_path: Path) -> None:
    result = built(CARD)
    run = run_program(result.binary, *args(16, "--devices", "0,2"), cwd=tmp_path, env=QUICK)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.report is not None and [d["device"] for d in run.report["devices"]] == [0, 2]
    # a device beyond the card fails as on the device (aclrtSetDevice: invalid device id)
    run = run_program(result.binary, *args(16, "--devices", "1,4"), cwd=tmp_path, env=QUICK)
    assert run.returncode != 0
    assert "device 4 failed" in run.stderr and "aclrtSetDevice failed with error 107001" in run.stderr
    assert run.report is not None and run.report["devices"][0]["exit_status"] == 0
    bad = subprocess.run([str(result.binary), "--devices", "0,0"], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "--devices lists device 0 twice" in bad.stderr


def children_of(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(c) for c in (task / "children").read_text().split()]
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_reaches_every_device(sig: signal.Signals, code: int, tmp_path: Path) -> None:
    result = built(CARD)
    report_path = tmp_path / "r.json"
    proc = subprocess.Popen(
        [str(result.binary), "--duration", "60", "--warmup", "0", "--json", str(report_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **QUICK},
    )
    assert proc.stderr is not None
    for line in proc.stderr:  # the first device's progress lines: running
        if line.startswith("progress:") and "frames=0 " not in line:
            break
    deadline = time.monotonic() + 30
    while len(children_of(proc.pid)) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(children_of(proc.pid)) == 4
    proc.send_signal(sig)
    assert proc.wait(timeout=60) == code
    report = json.loads(report_path.read_text())
    assert report["interrupted"] is True
    assert [d["exit_status"] for d in report["devices"]] == [code] * 4
    assert all(d["report"]["interrupted"] is True and d["report"]["frames"] > 0 for d in report["devices"])
