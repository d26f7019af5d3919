"""Signals stop a run cleanly; a broken environment is one clear line and a non-zero exit."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from program_harness import built, run_program

SEED = Path("pipelines/resnet50_b16.yaml")


def start(binary: Path, tmp_path: Path) -> subprocess.Popen[str]:
    # Not --quiet: the progress lines say when it is running.
    proc = subprocess.Popen(
        [str(binary), "--duration", "60", "--warmup", "0", "--json", str(tmp_path / "r.json")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    for line in proc.stderr:  # wait until it is really running
        if line.startswith("progress:") and "frames=0 " not in line:
            break
    return proc


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_drains_and_still_reports(sig: signal.Signals, code: int, tmp_path: Path) -> None:
    proc = start(built(SEED).binary, tmp_path)
    proc.send_signal(sig)
    assert proc.wait(timeout=60) == code
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["interrupted"] is True and report["frames"] > 0


@pytest.mark.slow
def test_a_second_signal_exits_at_once(tmp_path: Path) -> None:
    proc = start(built(SEED).binary, tmp_path)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=10) == 130


@pytest.mark.slow
@pytest.mark.parametrize(
    ("env", "args", "expect"),
    [
        ({"ACL_SIM_PROFILE": "/nonexistent/profile"}, [], "aclInit failed"),
        ({"ACL_SIM_PROFILE": "{tmp}/corrupt.profile"}, [], "aclInit failed"),
        ({}, ["--input", "/nonexistent/images"], "cannot read input '/nonexistent/images'"),
        ({}, ["--input", "{tmp}/empty"], "no .jpg or .jpeg files"),
        ({}, ["--model", "{tmp}/small.acl_sim_model"], "the model's input 0 takes 1000 bytes"),
        ({}, ["--model", "/nonexistent/model.om"], "aclmdlLoadFromFile failed"),
    ],
    ids=["missing-profile", "corrupt-profile", "missing-input", "empty-input", "model-mismatch", "missing-model"],
)
def test_a_broken_environment_is_one_clear_line(
    env: dict[str, str], args: list[str], expect: str, tmp_path: Path
) -> None:
    (tmp_path / "corrupt.profile").write_text("memory.device_bytes=lots\n")
    (tmp_path / "empty").mkdir()
    model = Path("generated/resnet50_b16/sim/resnet50_aipp.om.acl_sim_model").read_text()
    (tmp_path / "small.acl_sim_model").write_text(model.replace("input.0.bytes=1204224", "input.0.bytes=1000"))
    fill = {k: v.replace("{tmp}", str(tmp_path)) for k, v in env.items()}
    run = run_program(
        built(SEED).binary,
        *[a.replace("{tmp}", str(tmp_path)) for a in args],
        "--frames",
        "16",
        cwd=tmp_path,
        env=fill,
        timeout=60,
    )
    assert run.returncode == 3, run.stderr[-2000:]
    program_lines = [line for line in run.stderr.splitlines() if line.startswith("resnet50_b16:")]
    assert len(program_lines) == 1 and expect in program_lines[0], run.stderr[-2000:]
    assert "Traceback" not in run.stderr and "terminate called" not in run.stderr
