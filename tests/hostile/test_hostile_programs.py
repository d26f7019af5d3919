"""Hostile input for the generated programs beyond their flags: a server's load (traces, rates),
a deployment over several devices (signals, a killed parent, failures at start and at exit), the
host's NUMA layout in sysfs, the simulator's environment, and what the report may claim.

Every case runs under the harness's limits (1 GiB of address space, CPU seconds, a wall-clock
timeout); the cases that signal a running program give it a stated grace to stop in. A program
must stop at SIGTERM as at SIGINT (exit 128 + the signal, its JSON marked interrupted), never
wait past its --duration (or --frames) plus that grace, never grow past its bounds, and never
leave a file, folder or shared-memory segment behind, even when its parent is killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from harness import ROOT, Case, limits, prepare, run_and_check, run_case

# No simulated device-open delay; two malloc arenas: glibc reserves 64 MiB of address space per
# arena, up to 8 per CPU, which a program of 30 threads under the 1 GiB limit can exhaust with
# next to nothing resident (the limit is there for what a program really grows to).
QUICK = {"ACL_SIM_DEVICE_OPEN_MS": "0", "MALLOC_ARENA_MAX": "2"}
GRACE_S = 10.0  # what a program may take past its duration to drain, report and release


def fifo(name: str):  # type: ignore[no-untyped-def]
    return lambda tmp: os.mkfifo(tmp / name)


def sparse(name: str, size: int):  # type: ignore[no-untyped-def]
    def make(tmp: Path) -> None:
        with open(tmp / name, "wb") as f:
            f.truncate(size)

    return make


def trace(id: str, text: str | bytes, *args: str, says: str, code: int = 2) -> Case:
    return Case(
        f"trace-{id}", ("--trace", "t.txt", *args), code, says, files={"t.txt": text}, env=QUICK, program="program"
    )


# ---------------------------------------------------------------- a server's trace

TRACES = [
    Case(
        "trace-fifo",
        ("--trace", "t.txt"),
        2,
        "trace 't.txt' is a FIFO, not a regular file",
        setup=fifo("t.txt"),
        program="program",
    ),
    Case("trace-dev-zero", ("--trace", "/dev/zero"), 2, "trace '/dev/zero' is a character device", program="program"),
    Case(
        "trace-too-big",
        ("--trace", "t.txt"),
        2,
        "more than the trace limit of 67108864",
        setup=sparse("t.txt", 64 << 20 | 1),
        program="program",
    ),
    trace(
        "binary-line", b"0\n\x01\xff\xfeabc\n", says="t.txt:2: not a timestamp in microseconds: '\\x01\\xff\\xfeabc'"
    ),
    trace("long-line", "0\n" + "9" * 2_000_000 + "\n", says="t.txt:2: a line of 2000000 bytes"),
    trace("huge-gap", "0\n10000000000000000\n", "--duration", "1", says="a trace spans at most 90000 s"),
    trace("past-int64", "0\n99999999999999999999\n", says="not a timestamp in microseconds"),
    trace(
        "inside-warmup",
        "0\n1000\n",
        "--warmup",
        "1",
        says="none of its 2 requests (at 0..0.001 s) falls after the --warmup of 1 s",
    ),
    trace("after-duration", "0\n5000000\n", "--warmup", "1", "--duration", "1", says="nothing would be measured"),
    trace("fewer-than-frames", "0\n", "--warmup", "0", "--frames", "10", says="--frames 10: the trace's 1 request"),
    trace("empty", "# nothing\n", says="no timestamps"),
]


@pytest.mark.slow
@pytest.mark.parametrize("c", TRACES, ids=[c.id for c in TRACES])
def test_a_hostile_trace_is_refused_at_start_up(c: Case, tmp_path: Path, server_program: Path) -> None:
    started = time.monotonic()
    proc = run_and_check(c, tmp_path, server_program)
    assert time.monotonic() - started < GRACE_S, "refused at start-up, before any device work"
    assert len(proc.stderr) < 400, proc.stderr[:1000]  # what it echoes is cut and escaped
    assert proc.stdout == ""


def _timed(c: Case, tmp: Path, binary: Path, limit_s: float) -> subprocess.CompletedProcess[str]:
    started = time.monotonic()
    proc = run_and_check(c, tmp, binary)
    took = time.monotonic() - started
    assert took < limit_s, f"{c.id}: took {took:.1f} s, more than {limit_s} s\n{proc.stderr[-2000:]}"
    return proc


@pytest.mark.slow
def test_a_trace_replayed_to_its_end_ends_the_run(tmp_path: Path, server_program: Path) -> None:
    """20 requests over 0.2 s and a 30 s --duration: the run ends once they are served."""
    text = "".join(f"{10000 * k}\n" for k in range(20))
    c = Case(
        "trace-ends",
        ("--trace", "t.txt", "--duration", "30", "--warmup", "0", "--quiet"),
        0,
        files={"t.txt": text},
        env=QUICK,
        program="program",
    )
    report = json.loads(_timed(c, tmp_path, server_program, GRACE_S).stdout)
    assert report["frames"] == 20 and report["interrupted"] is False


@pytest.mark.slow
def test_a_server_stops_at_the_end_of_its_duration_whatever_its_load(tmp_path: Path, server_program: Path) -> None:
    """A closed loop, and an open loop at 10 million requests/s that no host keeps up with."""
    closed = Case("closed", ("--duration", "0.5", "--warmup", "0", "--quiet"), 0, env=QUICK, program="program")
    assert json.loads(_timed(closed, tmp_path / "closed", server_program, 0.5 + GRACE_S).stdout)["frames"] > 0
    flood = Case(
        "flood", ("--rate", "1e7", "--duration", "0.5", "--warmup", "0", "--quiet"), 0, env=QUICK, program="program"
    )
    proc = _timed(flood, tmp_path / "flood", server_program, 0.5 + GRACE_S)
    assert json.loads(proc.stdout)["serving"]["generator"]["kept_up"] is False
    assert "the load generator could not keep up" in proc.stderr


# ---------------------------------------------------------------- signals and a killed parent


def start(binary: Path, *args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """The program under the harness's limits, its progress lines on stderr (read to know it runs)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("ASCGEN_")}
    full.update({**QUICK, **(env or {})})
    return subprocess.Popen(
        [str(binary), *args],
        cwd=cwd,
        env=full,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limits,
    )


def wait_running(proc: subprocess.Popen[str]) -> list[str]:
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:  # the first progress line: it runs
        seen.append(line)
        if line.startswith("progress:"):
            return seen
    raise AssertionError(f"no progress line: {''.join(seen)[-2000:]}")


def stop(proc: subprocess.Popen[str], sig: int) -> tuple[int, str, str]:
    proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=GRACE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"still running {GRACE_S} s after signal {sig}: {err[-2000:]}") from None
    return proc.returncode, out, err


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_a_server_waiting_for_its_next_request(sig: int, tmp_path: Path, server_program: Path) -> None:
    """The trace's second request is due in 60 s: the signal ends the wait, the result is kept."""
    (tmp_path / "t.txt").write_text("0\n60000000\n")
    proc = start(server_program, "--trace", "t.txt", "--duration", "120", "--warmup", "0", cwd=tmp_path)
    wait_running(proc)
    code, out, _ = stop(proc, sig)
    assert code == 128 + sig
    report = json.loads(out)
    assert report["interrupted"] is True and report["frames"] == 1


def children_of(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(c) for c in (task / "children").read_text().split()]
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def device_folders() -> set[Path]:
    return set(Path("/tmp").glob("ascgen-devices.*"))


@pytest.mark.slow
def test_a_killed_parent_takes_its_devices_with_it(tmp_path: Path, small_program: Path) -> None:
    """deploy: processes, parent SIGKILLed (as a scheduler's last resort): its children stop
    within the grace, and neither a folder nor the simulated machine's shared memory stays."""
    before = device_folders()
    args = ("--devices", "0,1", "--deploy", "processes", "--duration", "60", "--warmup", "0")
    proc = start(small_program, *args, cwd=tmp_path)
    seen = wait_running(proc)
    children = children_of(proc.pid)
    assert len(children) == 2, "".join(seen)[-2000:]
    machine = Path(f"/dev/shm/acl_sim_machine.ascgen-{proc.pid}")
    proc.kill()
    proc.communicate()
    deadline = time.monotonic() + GRACE_S
    while any(alive(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(c) for c in children), "the devices ran on without their parent"
    assert not machine.exists()
    assert device_folders() <= before


@pytest.mark.slow
def test_the_next_run_removes_what_a_killed_run_left_and_names_it(tmp_path: Path, small_program: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a pid no process has now
    left = Path(f"/dev/shm/acl_sim_machine.ascgen-{dead.pid}")
    left.write_bytes(b"\0" * 64)
    try:
        c = Case(
            "sweep", ("--devices", "0,1", "--frames", "8", "--warmup", "0", "--quiet"), 0, env=QUICK, program="program"
        )
        proc = run_and_check(c, tmp_path, small_program)
        assert f"removed /dev/shm/{left.name}, left by a run whose parent was killed" in proc.stderr
        assert not left.exists()
    finally:
        left.unlink(missing_ok=True)


@pytest.mark.slow
@pytest.mark.parametrize("deploy", ["processes", "threads"])
def test_a_failed_start_leaves_nothing(deploy: str, tmp_path: Path, small_program: Path) -> None:
    before = device_folders()
    c = Case(
        "init",
        ("--devices", "0,1", "--deploy", deploy, "--frames", "8"),
        3,
        env={**QUICK, "ACL_SIM_PROFILE": "/nonexistent/p"},
        program="program",
    )
    proc = run_case(c, tmp_path, small_program)
    assert proc.returncode == 3 and "aclInit failed" in proc.stderr, proc.stderr[-2000:]
    assert device_folders() <= before and not list(tmp_path.iterdir())


@pytest.mark.slow
def test_a_device_that_fails_at_exit_is_named_with_its_reason_and_its_frames_kept(
    tmp_path: Path, small_program: Path
) -> None:
    env = {**QUICK, "ACL_SIM_FAIL": "aclFinalize:1"}  # each device's process: its aclFinalize fails
    c = Case(
        "finalize",
        ("--devices", "0,1", "--deploy", "processes", "--frames", "8", "--warmup", "0", "--quiet"),
        3,
        env=env,
        program="program",
    )
    proc = run_case(c, tmp_path, small_program)
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert "device 0 failed (exit status 3): cleanup: aclFinalize failed with error" in proc.stderr
    report = json.loads(proc.stdout)
    devices = {d["device"]: d for d in report["devices"]}
    assert devices[0]["error"].startswith("cleanup: aclFinalize failed")
    assert devices[0]["report"]["frames"] >= 8 and report["frames"] >= 16


# ---------------------------------------------------------------- the host's NUMA layout


def fake_host(root: Path, numa_node: str, cpulist: str) -> None:
    dev = root / "sys/bus/pci/devices/0000:01:00.0"
    dev.mkdir(parents=True)
    for name, value in (("vendor", "0x19e5"), ("class", "0x120000"), ("numa_node", numa_node)):
        (dev / name).write_text(value + "\n")
    node = root / "sys/devices/system/node/node0"
    node.mkdir(parents=True)
    (node / "cpulist").write_text(cpulist + "\n")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("numa_node", "cpulist", "says"),
    [
        ("abc", "0", "numa_node holds 'abc', not a NUMA node 0..1023; taken as unknown"),
        ("99999999999", "0", "not a NUMA node 0..1023"),
        ("0", "0-2147483647", "cpulist holds '0-2147483647', not a list of CPUs 0..1023; taken as none"),
        ("0", "1-0", "not a list of CPUs"),
        ("0", "\x01" * 5000, "cpulist holds '\\x01\\x01"),
    ],
    ids=["node-word", "node-huge", "cpus-huge", "cpus-reversed", "cpus-binary"],
)
def test_a_hostile_numa_layout_binds_nothing_and_says_why(
    numa_node: str, cpulist: str, says: str, tmp_path: Path, small_program: Path
) -> None:
    fake_host(tmp_path / "host", numa_node, cpulist)
    env = {**QUICK, "ASCGEN_HOST_ROOT": str(tmp_path / "host")}
    c = Case("numa", ("--numa", "device", "--frames", "8", "--warmup", "0", "--quiet"), 0, env=env, program="program")
    proc = _timed(c, tmp_path / "run", small_program, 30)
    assert says in proc.stderr and len(proc.stderr) < 1000, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    if numa_node != "0":
        assert "numa" not in report  # an unknown node: not bound, not reported as bound
    else:  # node 0 with no CPUs it can name: reported so, the threads left where they were
        here = sorted(os.sched_getaffinity(0))
        assert report["numa"]["cpus"] == "" and report["numa"]["pinned"].startswith(str(here[0]))


# ---------------------------------------------------------------- the simulator's clock


@pytest.mark.slow
@pytest.mark.parametrize("scale", ["inf", "1e300", "1e-300", "nan", "0", "-1"])
def test_an_absurd_time_scale_is_refused(scale: str, tmp_path: Path, small_program: Path) -> None:
    c = Case(
        "scale", ("--frames", "8", "--warmup", "0"), 3, env={**QUICK, "ACL_SIM_TIME_SCALE": scale}, program="program"
    )
    started = time.monotonic()
    proc = run_case(c, tmp_path, small_program)
    assert time.monotonic() - started < GRACE_S
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert f"ACL_SIM_TIME_SCALE='{scale}' is not a number in 0.001..1000" in proc.stderr


# ---------------------------------------------------------------- what the report claims


@pytest.mark.slow
def test_a_run_that_measured_nothing_does_not_pass(tmp_path: Path, small_program: Path) -> None:
    """A device 100x slower than the profile: no frame completes in the 0.1 s measured."""
    env = {**QUICK, "ACL_SIM_TIME_SCALE": "100"}
    c = Case(
        "nothing",
        ("--duration", "0.1", "--warmup", "0", "--threads", "1", "--depth", "1", "--quiet"),
        3,
        env=env,
        program="program",
    )
    proc = run_case(c, tmp_path, small_program)
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert "nothing was measured" in proc.stderr and json.loads(proc.stdout)["frames"] == 0


@pytest.mark.slow
def test_frames_that_failed_to_decode_are_not_verified(tmp_path: Path, seed_program: Path) -> None:
    good = ROOT / "pipelines/data/images/frame_00.jpg"
    data = good.read_bytes()
    files = {"in/good.jpg": data, "in/broken.jpg": data[: len(data) * 2 // 5]}
    args = ("--threads", "1", "--depth", "4", "--warmup", "0", "--frames", "64", "--verify", "--quiet")
    c = Case("broken", (*args, "--input", "in"), 1, files=files, env=QUICK, program="program")
    prepare(c, tmp_path)
    proc = run_case(c, tmp_path, seed_program)  # the simulator names the bad stream too: two lines
    assert proc.returncode == 1 and "decoding input 'in/broken.jpg' failed" in proc.stderr, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["frames_failed"] > 0 and report["verified"] is False
    skip = Case("skip", (*args, "--input", "in", "--on-decode-error", "skip"), 0, env=QUICK, program="program")
    proc = run_case(skip, tmp_path, seed_program)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["frames_failed"] > 0 and report["verified"] is True  # skipped by request; the rest matched


# ---------------------------------------------------------------- what ascgen passes to a program


def test_sweep_rates_that_differ_past_six_digits_run_apart(tmp_path: Path) -> None:
    """`--sweep rate=1000001,1000002` ran both points as --rate 1e+06 into one raw file."""
    from ascgen.bench.runner import RunOptions, command
    from ascgen.bench.schema import Config
    from ascgen.bench.session import raw_name

    points = [
        Config(threads=1, depth=4, batch=1, streams="per_stage", sync_every=None, rate=r) for r in (1000001, 1000002)
    ]
    options = RunOptions(duration_s=1.25, warmup_s=0.0001)
    cmds = [command(Path("prog"), p, options, tmp_path / "r.json") for p in points]
    assert [c[c.index("--rate") + 1] for c in cmds] == ["1000001", "1000002"]
    assert cmds[0][cmds[0].index("--warmup") + 1] == "0.0001"
    assert raw_name(points[0], 1) != raw_name(points[1], 1)
    assert points[0].label() != points[1].label()


# ---------------------------------------------------------------- what a program echoes


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--threads", "9" * 5000), "not '9999999999999999999999999999999999999999...'"),
        (("--numa", "\x01\x7f"), "not '\\x01\\x7f'"),
        (("--frobnicate" + "x" * 3000,), "unknown flag '--frobnicatexxx"),
    ],
    ids=["long", "control", "long-flag"],
)
def test_a_program_echoes_a_bad_value_cut_and_escaped(
    args: tuple[str, ...], says: str, tmp_path: Path, host_driver: Path
) -> None:
    proc = run_and_check(Case("echo", args, 2, says, program="driver"), tmp_path, host_driver)
    assert len(proc.stderr) < 300, proc.stderr[:500]
