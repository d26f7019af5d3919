"""What the commands write by default into the folder they run in (bench, tune and probe
results) is ignored by git, so a run never leaves untracked files to commit by mistake."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ascgen.bench.command import default_out_dir as bench_out
from ascgen.transfers.command import default_out_dir as probe_out
from ascgen.tune.command import default_out_dir as tune_out

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize("folder", [bench_out("resnet50", NOW), tune_out("resnet50", NOW), probe_out(NOW)])
def test_default_result_folders_are_ignored(folder: Path) -> None:
    path = folder / "results.json"
    assert not path.is_absolute()
    found = subprocess.run(
        ["git", "check-ignore", "--no-index", "-q", str(path)], cwd=ROOT, check=False, capture_output=True
    )
    assert found.returncode == 0, f"{path} is not ignored: add its folder to .gitignore"


def test_tracked_files_are_not_ignored() -> None:
    found = subprocess.run(["git", "check-ignore", "--no-index", "-q", "README.md"], cwd=ROOT, check=False)
    assert found.returncode == 1  # the check can fail
