"""scripts/install.sh: re-runnable offline (nothing done when installed), and without root or
off Debian it lists what to install by hand instead of failing inside apt-get (issue 20)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "install.sh"
BASICS = ["bash", "env", "id", "sha256sum", "cut", "cat", "printf", "dirname"]


def fake_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(SCRIPT, repo / "scripts" / "install.sh")
    (repo / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    return repo


def tool_dir(tmp_path: Path, names: list[str], fakes: dict[str, str]) -> Path:
    """A PATH folder with only the named real tools and the given fake scripts."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in names:
        real = shutil.which(name)
        if real:
            (bin_dir / name).symlink_to(real)
    for name, body in fakes.items():
        (bin_dir / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_dir / name).chmod(0o755)
    return bin_dir


def run(repo: Path, path: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(repo / "scripts" / "install.sh")],
        capture_output=True,
        text=True,
        env={"PATH": path, "HOME": str(repo), **env},
        timeout=60,
        check=False,
    )


def test_without_root_or_sudo_it_lists_what_to_install(tmp_path: Path) -> None:
    repo = fake_repo(tmp_path)
    log = tmp_path / "calls.log"
    bin_dir = tool_dir(
        tmp_path, [*BASICS, "python3"], {"apt-get": f"echo apt-get >> {log}", "sudo": f"echo sudo >> {log}; exit 1"}
    )
    proc = run(repo, str(bin_dir), INSTALL_UID="1000")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "not root, and sudo is unavailable or asks for a password" in proc.stdout
    assert "CMake 3.20 or newer" in proc.stdout and "Ninja" in proc.stdout
    assert "apt-get install" in proc.stdout and "cmake" in proc.stdout and "ninja-build" in proc.stdout
    assert "brew install" in proc.stdout
    assert not log.exists() or "apt-get" not in log.read_text()  # never ran apt-get


def test_off_debian_it_lists_what_to_install(tmp_path: Path) -> None:
    repo = fake_repo(tmp_path)
    proc = run(repo, str(tool_dir(tmp_path, [*BASICS, "python3"], {})))
    assert proc.returncode == 1
    assert "not a Debian-like system" in proc.stdout and "dnf install" in proc.stdout


def test_when_installed_it_does_nothing_offline(tmp_path: Path) -> None:
    repo = fake_repo(tmp_path)
    log = tmp_path / "calls.log"
    venv = repo / ".venv" / "bin"
    venv.mkdir(parents=True)
    for name, body in {"ascgen": "echo 'ascgen, version 9'", "python": f'echo python "$@" >> {log}'}.items():
        (venv / name).write_text(f"#!/bin/sh\n{body}\n")
        (venv / name).chmod(0o755)
    (repo / ".venv" / ".ascgen-installed").write_text(
        hashlib.sha256((repo / "pyproject.toml").read_bytes()).hexdigest() + "\n"
    )
    proc = run(repo, os.environ["PATH"], PIP_NO_INDEX="1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "already installed in .venv (ascgen, version 9); nothing to do" in proc.stdout
    assert not log.exists()  # no pip, no reinstall
