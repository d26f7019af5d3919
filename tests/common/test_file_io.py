"""Files the user names: bounded reads that refuse devices and FIFOs, folders without specs,
atomic writes with the umask's modes, and unwritable outputs as one-line user errors (issue 20)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascgen.cli import cli
from ascgen.common.errors import UserError
from ascgen.common.fileio import FileRefused, check_can_create, read_bounded, write_atomic, write_tree_atomic
from ascgen.dsl.files import expand_specs

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "pipelines" / "resnet50_b16.yaml"


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_a_device_is_refused_without_reading_it() -> None:
    with pytest.raises(FileRefused, match="a character device, not a regular file"):
        read_bounded(Path("/dev/zero"), 1000)


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "spec.yaml"
    os.mkfifo(fifo)
    with pytest.raises(FileRefused, match="a FIFO"):
        read_bounded(fifo, 1000)


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileRefused, match="a folder"):
        read_bounded(tmp_path, 1000)


def test_a_file_over_the_limit_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * 1001)
    with pytest.raises(FileRefused, match="larger than 1000 bytes"):
        read_bounded(big, 1000)
    assert read_bounded(big, 1001) == b"#" * 1001


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_validate_dev_zero_is_a_user_error_within_little_memory() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ascgen", "validate", "/dev/zero"],
        capture_output=True, text=True, timeout=60, preexec_fn=_limited, check=False,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "/dev/zero:1:1: error: a character device, not a regular file" in proc.stderr


def test_validate_a_fifo_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    proc = subprocess.run(
        [sys.executable, "-m", "ascgen", "validate", str(fifo)], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 2
    assert "a FIFO, not a regular file" in proc.stderr


def test_a_folder_without_specs_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("no spec here")
    with pytest.raises(UserError, match="no spec in this folder"):
        expand_specs([tmp_path])
    result = CliRunner().invoke(cli, ["validate", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "no spec in this folder" in result.stderr


def test_write_tree_over_a_file_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "prog").write_text("mine")
    with pytest.raises(UserError, match="a file is in the way"):
        write_tree_atomic(tmp_path / "prog", {"a.txt": "x"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prog"]
    assert (tmp_path / "prog").read_text() == "mine"


def test_a_leftover_old_file_does_not_break_later_writes(tmp_path: Path) -> None:
    (tmp_path / ".prog.old").write_text("left by an interrupted run")
    write_tree_atomic(tmp_path / "prog", {"a.txt": "1"})
    write_tree_atomic(tmp_path / "prog", {"a.txt": "2"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prog"]
    assert (tmp_path / "prog" / "a.txt").read_text() == "2"


def test_generate_twice_over_a_file_is_a_user_error_both_times(tmp_path: Path) -> None:
    (tmp_path / "resnet50_b16").write_text("mine")
    for _ in range(2):
        result = CliRunner().invoke(cli, ["generate", str(SEED), "--out", str(tmp_path)])
        assert result.exit_code == 2, result.output
        assert "a file is in the way" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["resnet50_b16"]


@pytest.mark.parametrize(("mask", "file_mode", "dir_mode"), [(0o022, 0o644, 0o755), (0o077, 0o600, 0o700)])
def test_modes_follow_the_umask(tmp_path: Path, mask: int, file_mode: int, dir_mode: int) -> None:
    old = os.umask(mask)
    try:
        write_atomic(tmp_path / "one.txt", "x")
        write_tree_atomic(tmp_path / "tree", {"a.txt": "x", "sub/b.txt": "y"})
    finally:
        os.umask(old)
    assert (tmp_path / "one.txt").stat().st_mode & 0o777 == file_mode
    assert (tmp_path / "tree").stat().st_mode & 0o777 == dir_mode
    assert (tmp_path / "tree" / "sub").stat().st_mode & 0o777 == dir_mode
    assert (tmp_path / "tree" / "sub" / "b.txt").stat().st_mode & 0o777 == file_mode


def _one_line_user_error(args: list[str], *words: str) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1, result.stderr
    for word in words:
        assert word in result.stderr


@pytest.mark.parametrize("where", ["/proc/ascgen-out", "FILE/sub"])
def test_unwritable_outputs_are_user_errors(tmp_path: Path, umask: None, where: str) -> None:
    blocker = tmp_path / "FILE"
    blocker.write_text("x")
    target = where.replace("FILE", str(blocker))
    _one_line_user_error(["generate", str(SEED), "--out", target], "cannot write", target)
    _one_line_user_error(["schema", "-o", f"{target}/schema.json"], "cannot write")
    _one_line_user_error(["init", f"{target}/p.yaml"], "cannot write")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["FILE"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_output_folder_is_a_user_error(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    _one_line_user_error(["generate", str(SEED), "--out", str(ro)], "Permission denied")


def test_check_can_create_creates_nothing(tmp_path: Path) -> None:
    check_can_create(tmp_path / "a" / "b")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "f").write_text("x")
    with pytest.raises(UserError, match="is a file, not a folder"):
        check_can_create(tmp_path / "f" / "out")
    with pytest.raises(UserError, match="cannot write /proc/x"):
        check_can_create(Path("/proc/x"))
