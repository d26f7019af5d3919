"""Fault injection on every AscendCL call a generated program makes.

For each example and each API its program calls, the first call fails and, separately, a
call in steady state fails: the program must exit 3 with one line naming the stage, the
call and the code, release everything (the simulator's accounting reports no live object at
aclFinalize), and never hang.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from program_harness import BASELINE_GRAPH, REPRESENTATIVE_SHAPES, built, first_devices, run_program

from ascgen.codegen.build import BuildResult

FAULT_TIMEOUT_S = 90
CODE = 507899  # ACL_ERROR_RT_DRV_INTERNAL_ERROR: a code no API returns by itself here
RELEASE = re.compile(r"acl\w*(Destroy|Free|Unload)|hi_mpi_\w*(destroy|free|exit|stop)")  # stop: before destroy
API = re.compile(r"\b(acl(?:rt|mdl|dvpp|vdec)?[A-Z]\w*|hi_mpi_\w+)\(")
PER_FRAME = {
    "aclrtMemcpyAsync",
    "aclrtStreamWaitEvent",
    "aclrtResetEvent",
    "aclrtRecordEvent",
    "aclrtMemsetAsync",
    "acldvppJpegDecodeAsync",
    "acldvppVpcResizeAsync",
    "acldvppVpcCropResizeAsync",
    "acldvppVpcCropResizePasteAsync",
    "acldvppSetPicDescData",
    "aclmdlExecuteAsync",
    "aclrtLaunchCallback",
    "aclrtSynchronizeEvent",
    "aclrtSynchronizeStream",
    "aclrtProcessReport",
    "aclvdecSendFrame",
    "acldvppSetStreamDescData",
    "hi_mpi_vdec_send_stream",
    "hi_mpi_vdec_get_frame",
    "hi_mpi_vdec_release_frame",
    "hi_mpi_vpc_resize",
    "hi_mpi_vpc_crop_resize",
    "hi_mpi_vpc_crop_resize_paste",
    "hi_mpi_vpc_get_process_result",
}
# Calls that report failure by returning NULL or 0: the program names them with its own code.
NO_CODE = {
    "acldvppCreateChannelDesc",
    "acldvppCreatePicDesc",
    "acldvppCreateBatchPicDesc",
    "acldvppGetPicDesc",
    "acldvppCreateResizeConfig",
    "acldvppCreateRoiConfig",
    "acldvppCreateStreamDesc",
    "aclvdecCreateChannelDesc",
    "aclmdlCreateDesc",
    "aclmdlCreateDataset",
    "aclCreateDataBuffer",
    "aclmdlGetInputSizeByIndex",
    "aclmdlGetNumInputs",
    "aclmdlGetNumOutputs",
    "aclmdlGetOutputSizeByIndex",
}
# Calls whose result is data, not success or failure: an injected fault has no meaning there.
NOT_CHECKED = {"acldvppGetPicDescRetCode", "acldvppGetPicDescData", "aclError"}


def apis_of(sources: Path) -> list[str]:
    """The AscendCL functions a program may call: those its sources name, as its build compiled
    them (``sources``: its main.cpp beside the runtime files and kinds' headers it includes, no
    others). A function named only in runtime files the program does not include cannot be called
    by it: a fault injected there would run the whole program for nothing."""
    text = "".join(p.read_text(encoding="utf-8") for p in sorted(sources.rglob("*")) if p.suffix in (".h", ".cpp"))
    return sorted(set(API.findall(text)) - NOT_CHECKED)


def cases(result: BuildResult) -> list[tuple[str, int]]:
    apis = apis_of(result.binary.parents[1] / "src")  # <program>/<backend>-<setting>/<binary>
    return [(api, 1) for api in apis] + [(api, 20) for api in apis if api in PER_FRAME]


def failure_of(
    binary: Path, batch: int, api: str, nth: int, cwd: Path, devices: list[str], depth: int = 2
) -> str | None:
    """Why this injected fault was handled wrongly, or None if it was handled right. ``depth``: frames
    in flight (a graph needs its batch + 1)."""
    try:
        run = run_program(
            binary,
            *devices,
            "--threads",
            "1",
            "--depth",
            str(depth),
            "--warmup",
            "0",
            "--frames",
            str(8 * batch),
            cwd=cwd,
            timeout=FAULT_TIMEOUT_S,
            env={"ACL_SIM_FAIL": f"{api}:{nth}:{CODE}", "ACL_SIM_LEAK_CHECK": "1"},
        )
    except subprocess.TimeoutExpired:
        return f"{api}:{nth}: no exit within {FAULT_TIMEOUT_S} s (a hang is a mishandled fault)"
    if run.returncode == 0:
        return None  # called fewer than nth times in this run (or not at all by this program)
    code = r"\d+" if api in NO_CODE else str(CODE)
    if run.returncode != 3:
        return f"{api}:{nth}: exit {run.returncode}, expected 3: {run.stderr.strip()[-400:]}"
    if not re.search(rf"{api}\b.* failed with error {code}", run.stderr):
        return f"{api}:{nth}: no line naming the call and code: {run.stderr.strip()[-400:]}"
    # A failed release call (injected) leaves its object alive by definition; the
    # simulator's leak report (ACL_SIM_LEAK_CHECK) checks everything else is released.
    if "still live" in run.stderr and not RELEASE.match(api):
        return f"{api}:{nth}: resources left at aclFinalize: {run.stderr.strip()[-400:]}"
    return None


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "overrides"),
    [pytest.param(spec, None, id=spec.stem) for spec in REPRESENTATIVE_SHAPES]
    + [pytest.param(*BASELINE_GRAPH, id=f"{BASELINE_GRAPH[0].stem}-per_thread")],
)
def test_every_failing_call_is_reported_and_everything_is_released(
    spec: Path, overrides: dict[str, object] | None, tmp_path: Path, record_property: Callable[[str, object], None]
) -> None:
    """The runs are independent processes that mostly wait on the simulated device (a fifth of a
    core each, under 100 MB): 8 at a time, which halves the sweep's time of 4 at the same CPU.
    A graph's baseline layout (BASELINE_GRAPH) is a shape no example spec has: configured here."""
    result = built(spec, overrides=overrides)
    todo = cases(result)
    assert todo, "no AscendCL call found in the generated program"
    with ThreadPoolExecutor(max_workers=8) as pool:
        futures = [
            # One device of several: the parent makes no AscendCL call (test_devices.py tests it).
            pool.submit(
                failure_of,
                result.binary,
                result.plan.batch,
                api,
                nth,
                tmp_path / f"{api}-{nth}",
                first_devices(result, 1),
                result.plan.batch + 1 if result.plan.object_stages else 2,
            )
            for api, nth in todo
        ]
        failures = [f for f in (fut.result() for fut in futures) if f]
    record_property("fault_runs", len(todo))  # read by scripts/reliability.py (JUnit XML)
    record_property("fault_runs_ok", len(todo) - len(failures))
    assert not failures, f"{len(failures)} of {len(todo)} injected faults mishandled:\n" + "\n".join(failures)


@pytest.mark.slow
@pytest.mark.parametrize("api", ["aclmdlExecuteAsync", "aclrtLaunchCallback", "aclrtMemcpyAsync"])
def test_a_fault_between_the_report_thread_start_and_its_drain_leaves_no_callback_pending(
    api: str, tmp_path: Path
) -> None:
    """Issue 27 item 7: with --verify the reference frames run after the report thread started
    and before the workers do; a fault there throws out of the run, and the callbacks already
    launched still run before aclrtUnSubscribeReport (no RULE report.unsubscribe_pending), with
    everything released."""
    result = built(Path("pipelines/resnet50_b16.yaml"))
    batch = result.plan.batch
    run = run_program(
        result.binary,
        *first_devices(result, 1),
        "--threads", "1", "--depth", "2", "--warmup", "0", "--frames", str(8 * batch), "--verify",
        cwd=tmp_path,
        timeout=FAULT_TIMEOUT_S,
        env={"ACL_SIM_FAIL": f"{api}:2:{CODE}", "ACL_SIM_LEAK_CHECK": "1"},
    )  # fmt: skip
    assert run.returncode == 3, run.stderr[-2000:]
    assert f"{api} failed with error {CODE}" in run.stderr
    assert "RULE" not in run.stderr and "still live" not in run.stderr, run.stderr[-2000:]
