"""What ascgen does with SIGTERM (a scheduler's stop, `kill PID`): the same as with Ctrl-C, so
`ascgen tune` keeps the points it measured and exits 143; the children it runs are asked to stop
(SIGTERM, which a generated program handles as SIGINT) before they are killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from build_dirs import TEST_BUILD
from harness import ROOT, limits

from ascgen.common.friendly import stop_child

CHILD = """
import signal, sys, time
from pathlib import Path
def bye(signum, frame):
    Path(sys.argv[1]).write_text("kept")
    sys.exit(143)
signal.signal(signal.SIGTERM, bye if sys.argv[2] == "graceful" else signal.SIG_IGN)
print("ready", flush=True)
while True:
    time.sleep(1)
"""


def start_child(tmp_path: Path, mode: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(tmp_path / "kept"), mode], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    return proc


def test_a_child_is_asked_to_stop_before_it_is_killed(tmp_path: Path) -> None:
    proc = start_child(tmp_path, "graceful")
    stop_child(proc, grace_s=30)
    assert proc.returncode == 143 and (tmp_path / "kept").read_text() == "kept"


def test_a_child_that_ignores_sigterm_is_killed_after_the_grace(tmp_path: Path) -> None:
    proc = start_child(tmp_path, "ignore")
    stop_child(proc, grace_s=0.5)
    assert proc.returncode == -signal.SIGKILL and not (tmp_path / "kept").exists()


@pytest.mark.slow
def test_sigterm_during_a_tune_keeps_the_measured_points(tmp_path: Path) -> None:
    build_root = TEST_BUILD  # the suite's build folder: the simulator is built there once
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASCGEN_")}
    # The suite's quick builds kept (tests/conftest.py): without it this tune compiled decode_only
    # and the runtime library at -O3 once more, beside the -O1 builds every other test links.
    env.update(PYTHONPATH=str(ROOT), ASCGEN_QUICK_BUILDS=os.environ.get("ASCGEN_QUICK_BUILDS", ""))
    proc = subprocess.Popen(
        [sys.executable, "-m", "ascgen", "tune", str(ROOT / "pipelines" / "decode_only.yaml"),
         "--space", "threads=1,2,4,8", "--duration", "1", "--warmup", "0", "--repeat", "1", "--budget", "10m",
         "--min-gain", "0",
         "--out", str(out), "--write-spec", str(tmp_path / "tuned.yaml"), "--build-dir", str(build_root)],
        cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, preexec_fn=limits,
    )  # fmt: skip
    assert proc.stderr is not None
    seen = []
    try:
        for line in proc.stderr:  # the second point starts once the first is measured
            seen.append(line)
            if sum(x.startswith("measuring ") for x in seen) == 2:
                break
        proc.send_signal(signal.SIGTERM)
        rest = proc.communicate(timeout=120)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
    stderr = "".join(seen) + rest
    assert proc.returncode == 143, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    assert "after 1 measured points" in stderr or "after 2 measured points" in stderr, stderr
    report = json.loads((out / "tune.json").read_text(encoding="utf-8"))
    assert report["interrupted"] is True
    assert (out / "results.json").is_file() and (out / "summary.md").is_file()
    assert not (tmp_path / "tuned.yaml").exists()  # an interrupted tune names no winner
