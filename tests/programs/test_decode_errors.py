"""Inputs JPEGD cannot decode: refused at start-up when the header says so, otherwise the frame's
result code (acldvppGetPicDescRetCode) is read when its batch completes: the frame is counted,
never verified, and the run fails naming the input (or skips it with --on-decode-error skip)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from program_harness import REPO, built, run_program

SEED = REPO / "pipelines" / "resnet50_b16.yaml"
GOOD = REPO / "pipelines" / "data" / "images" / "frame_00.jpg"
ARGS = ("--threads", "1", "--depth", "4", "--warmup", "0", "--frames", "64")


def _sof(data: bytes) -> int:
    """Offset of the baseline frame header (FF C0)."""
    at = data.index(b"\xff\xc0")
    assert at > 0
    return at


def _exif_orientation(data: bytes, orientation: int) -> bytes:
    """`data` with an APP1 Exif segment after SOI whose first IFD holds the Orientation tag."""
    tiff = b"MM\x00\x2a\x00\x00\x00\x08" + b"\x00\x01"
    tiff += b"\x01\x12\x00\x03\x00\x00\x00\x01" + orientation.to_bytes(2, "big") + b"\x00\x00" + b"\x00" * 4
    body = b"Exif\x00\x00" + tiff
    return data[:2] + b"\xff\xe1" + (len(body) + 2).to_bytes(2, "big") + body + data[2:]


def _folder(tmp_path: Path, name: str, data: bytes) -> Path:
    folder = tmp_path / "inputs"
    folder.mkdir()
    shutil.copy(GOOD, folder / "good.jpg")
    (folder / name).write_bytes(data)
    return folder


@pytest.mark.slow
def test_a_truncated_jpeg_fails_the_run_naming_the_input(tmp_path: Path) -> None:
    data = GOOD.read_bytes()
    folder = _folder(tmp_path, "broken.jpg", data[: len(data) * 2 // 5])
    run = run_program(built(SEED).binary, *ARGS, "--verify", "--input", str(folder), cwd=tmp_path / "run")
    assert run.returncode == 1, run.stderr[-2000:]
    assert "broken.jpg" in run.stderr
    assert run.report is not None
    assert run.report["frames_failed"] > 0 and run.report["first_failure"]["input"].endswith("broken.jpg")
    assert run.report["first_failure"]["code"] != 0


@pytest.mark.slow
def test_skipping_decode_errors_counts_them_and_verifies_the_rest(tmp_path: Path) -> None:
    data = GOOD.read_bytes()
    folder = _folder(tmp_path, "broken.jpg", data[: len(data) * 2 // 5])
    run = run_program(
        built(SEED).binary, *ARGS, "--verify", "--on-decode-error", "skip", "--input", str(folder), cwd=tmp_path / "run"
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.report is not None
    assert run.report["frames_failed"] > 0 and run.report["verified"] is True


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "patch", "message"),
    [
        ("progressive.jpg", lambda d: d[: _sof(d) + 1] + b"\xc2" + d[_sof(d) + 2 :], "progressive JPEG"),
        # the frame header's height and width (after FF C0, length, precision) set to 16 x 16
        ("tiny.jpg", lambda d: d[: _sof(d) + 5] + b"\x00\x10\x00\x10" + d[_sof(d) + 9 :], "below JPEGD's minimum"),
        # issue 27 item 4: JPEGD applies the EXIF orientation (aclcppdevg_03_0191): 6 turns it 90 degrees
        ("rotated.jpg", lambda d: _exif_orientation(d, 6), "EXIF orientation 6: JPEGD rotates it to 1536x1024"),
    ],
)
def test_what_jpegd_cannot_decode_is_refused_at_start_up(tmp_path: Path, name: str, patch, message: str) -> None:  # type: ignore[no-untyped-def]
    folder = _folder(tmp_path, name, patch(GOOD.read_bytes()))
    run = run_program(built(SEED).binary, *ARGS, "--input", str(folder), cwd=tmp_path / "run")
    assert run.returncode != 0
    assert f"{name}' " in run.stderr and message in run.stderr, run.stderr[-2000:]


@pytest.mark.slow
def test_an_odd_sized_jpeg_is_decoded_to_its_even_size(tmp_path: Path) -> None:
    """JPEGD writes NV12, so a 1024x1535 picture comes out 1024x1534 (ACL_FACTS 4)."""
    data = GOOD.read_bytes()
    at = _sof(data)
    odd = data[: at + 5] + (1535).to_bytes(2, "big") + data[at + 7 :]
    folder = _folder(tmp_path, "odd.jpg", odd)
    run = run_program(built(SEED).binary, *ARGS, "--verify", "--input", str(folder), cwd=tmp_path / "run")
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.report is not None and run.report["verified"] is True and run.report["frames_failed"] == 0
