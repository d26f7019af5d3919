"""The VPC of V2 video programs on the simulator (issue 30): a detector behind a letterbox on the same
clip, through V1 on the 310 (acldvppVpcCropResizePasteAsync on a stream, the canvas painted per
frame) and V2 on the 310P (hi_mpi_vpc_crop_resize_paste awaited by the host, the canvas painted
once), finds the same boxes in every picture: the detector's input is the same picture, byte for
byte. The V2 run makes no V1 media call (the simulator would fail it: rule dvpp.api_mix)."""

from __future__ import annotations

from pathlib import Path

import pytest
from program_harness import built, run_program
from test_video import DETECT, clips, video_spec  # noqa: F401 (clips: the fixture)

pytestmark = pytest.mark.slow  # builds and runs C++


def test_a_v2_letterbox_gives_the_detector_what_the_v1_one_does(clips: Path, tmp_path: Path) -> None:  # noqa: F811
    found = {}
    for profile in ("ascend310", "ascend310p"):
        folder = tmp_path / profile
        folder.mkdir()
        spec = video_spec(
            folder, clips, f"detect_{profile}", "qvga_h264.h264", (320, 240), 2, profile=profile, after=DETECT
        )
        result = built(spec)
        main = (result.binary.parents[1] / "src" / "main.cpp").read_text()
        v2 = profile == "ascend310p"
        assert ("hi_mpi_vpc_crop_resize_paste" in main) == v2
        assert ("acldvppVpcCropResizePasteAsync" in main) == (not v2)
        run = run_program(result.binary, "--frames", "40", "--warmup", "0", "--verify", cwd=folder)
        assert run.returncode == 0 and run.report is not None, run.stderr[-3000:]
        assert run.report["verified"] is True and "RULE" not in run.stderr
        found[profile] = {r["picture"]: r["found"] for r in run.report["results"]}
    v1, v2 = found["ascend310"], found["ascend310p"]
    common = v1.keys() & v2.keys()
    assert len(common) >= 10
    assert all(v1[n] == v2[n] for n in common), [n for n in sorted(common) if v1[n] != v2[n]][:5]
    assert any(v1[n] for n in common)  # the pictures have something to find
