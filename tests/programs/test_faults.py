"""Fault injection on every AscendCL call a generated program makes.

For each example and each API its program calls, the first call fails and, separately, a
call in steady state fails: the program must exit 3 with one line naming the stage, the
call and the code, release everything (the simulator's accounting reports no live object at
aclFinalize), and never hang.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from program_harness import PIPELINES, built, run_program

CODE = 507899  # ACL_ERROR_RT_DRV_INTERNAL_ERROR: a code no API returns by itself here
API = re.compile(r"\b(acl(?:rt|mdl|dvpp)?[A-Z]\w*)\(")
PER_FRAME = {"aclrtMemcpyAsync", "aclrtStreamWaitEvent", "aclrtRecordEvent", "acldvppJpegDecodeAsync",
             "acldvppVpcResizeAsync", "acldvppVpcCropAsync", "aclmdlExecuteAsync", "aclrtLaunchCallback",
             "aclrtSynchronizeEvent", "aclrtSynchronizeStream", "aclrtProcessReport"}
SUPPORT = Path("templates/support/ascgen_support.h").read_text()
# Calls that report failure by returning NULL or 0: the program names them with its own code.
NO_CODE = {"acldvppCreateChannelDesc", "acldvppCreatePicDesc", "acldvppCreateResizeConfig", "acldvppCreateRoiConfig",
           "aclmdlCreateDesc", "aclmdlCreateDataset", "aclCreateDataBuffer", "aclmdlGetInputSizeByIndex",
           "aclmdlGetOutputSizeByIndex"}


def apis_of(main_cpp: str) -> list[str]:
    """The AscendCL functions the program calls: its own and those of the support header it uses."""
    names = set(API.findall(main_cpp))
    if "Memory::kDvpp" in main_cpp:
        names |= {"acldvppMalloc", "acldvppFree", "aclrtMemset"}
    if "Memory::kDevice" in main_cpp:
        names |= {"aclrtMalloc", "aclrtFree", "aclrtMemset"}
    if "Memory::kHostPinned" in main_cpp:
        names |= {"aclrtMallocHost", "aclrtFreeHost"}
    if "EventRing" in main_cpp:
        names |= {"aclrtCreateEventWithFlag", "aclrtDestroyEvent"}
    if "new_pic_desc" in main_cpp:
        names |= {"acldvppCreatePicDesc", "acldvppDestroyPicDesc", "acldvppSetPicDescData"}
    if "new_dataset" in main_cpp:
        names |= {"aclmdlCreateDataset", "aclCreateDataBuffer", "aclmdlAddDatasetBuffer", "aclmdlDestroyDataset"}
    if "ReportThread" in main_cpp:
        names |= {"aclrtProcessReport"}
    if "expect_model_sizes" in main_cpp:
        names |= {"aclmdlGetInputSizeByIndex"}
    return sorted(n for n in names if n in SUPPORT or n in main_cpp)


CASES = []
for spec in PIPELINES:
    main = Path("generated", spec.stem, "main.cpp")
    for api in apis_of(main.read_text() if main.exists() else ""):
        CASES.append(pytest.param(spec, api, 1, id=f"{spec.stem}-{api}-first"))
        if api in PER_FRAME:
            CASES.append(pytest.param(spec, api, 20, id=f"{spec.stem}-{api}-steady"))


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "api", "nth"), CASES)
def test_a_failing_call_is_reported_and_everything_is_released(spec: Path, api: str, nth: int, tmp_path: Path) -> None:
    result = built(spec)
    run = run_program(result.binary, "--threads", "1", "--depth", "2", "--warmup", "0",
                      "--frames", str(8 * result.plan.batch), cwd=tmp_path, timeout=90,
                      env={"ACL_SIM_FAIL": f"{api}:{nth}:{CODE}", "ACL_SIM_LEAK_CHECK": "1"})
    if run.returncode == 0 and nth > 1:
        pytest.skip(f"{api} is called fewer than {nth} times in this run")
    assert run.returncode == 3, f"exit {run.returncode}\n{run.stderr[-3000:]}"
    code = r"\d+" if api in NO_CODE else str(CODE)
    assert re.search(rf"{api}\b.* failed with error {code}", run.stderr), run.stderr[-3000:]
    assert "still live" not in run.stderr, run.stderr[-3000:]
