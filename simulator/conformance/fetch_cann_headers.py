#!/usr/bin/env python3
"""Fetch CANN's real AscendCL headers for the conformance build.

CANN's acl_base*.h, acl_rt.h, acl_mdl.h and error-code headers (header version
1.17.0) ship inside the torch-npu wheel under ``torch_npu/include/acl/``. This
script downloads that wheel with pip into a cache OUTSIDE the repository,
extracts only ``torch_npu/include/acl/**`` and prints the include directory
(the one holding ``acl/``) on stdout.

The headers are under CANN's own licence: they must never be committed.

Idempotent: a populated cache is reused without touching the network.

Exit codes:
  0  success; the include directory is the only line on stdout
  3  the package registry could not be reached (or pip could not download)
  4  the download worked but did not contain the expected headers
Standard library only.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "torch-npu"
VERSION = "2.14.0"
PYTHON_VERSION = "3.11"
PLATFORM = "manylinux_2_28_x86_64"
MEMBER_PREFIX = "torch_npu/include/acl/"
INCLUDE_SUBDIR = "torch_npu/include"
CACHE_ENV = "ASCGEN_CANN_HEADERS_CACHE"
REQUIRED = ("acl/acl.h", "acl/acl_base.h", "acl/acl_rt.h", "acl/acl_mdl.h")

EXIT_OK = 0
EXIT_REGISTRY_UNREACHABLE = 3
EXIT_BAD_WHEEL = 4


def default_cache_dir() -> Path:
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override).expanduser()
    return Path.home() / ".cache" / "ascgen" / "cann-headers" / f"torch-npu-{VERSION}"


def loud(message: str) -> None:
    """One line on stderr that cannot be missed in a CI log."""
    print(f"!!!!! ascgen CANN headers: {message} !!!!!", file=sys.stderr, flush=True)


def cached_include_dir(cache: Path) -> Path | None:
    include = cache / INCLUDE_SUBDIR
    if all((include / name).is_file() for name in REQUIRED):
        return include
    return None


def download_wheel(dest: Path, timeout_s: int) -> Path:
    """pip-downloads the wheel into dest; raises RuntimeError on failure."""
    cmd = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--python-version", PYTHON_VERSION, "--platform", PLATFORM,
        "--timeout", str(timeout_s), "--retries", "1", "--disable-pip-version-check",
        "--dest", str(dest), f"{PACKAGE}=={VERSION}",
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wheels = sorted(dest.glob("torch_npu-*.whl"))
    if proc.returncode != 0 or not wheels:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"pip download failed (exit {proc.returncode}): {tail[0]}")
    return wheels[0]


def extract_headers(wheel: Path, cache: Path) -> int:
    """Extracts torch_npu/include/acl/** into cache atomically; returns file count."""
    cache.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=cache.parent))
    try:
        count = 0
        with zipfile.ZipFile(wheel) as zf:
            for info in zf.infolist():
                name = info.filename
                if not name.startswith(MEMBER_PREFIX) or info.is_dir():
                    continue
                if ".." in Path(name).parts:
                    continue
                zf.extract(info, staging)
                count += 1
        if cached_include_dir(staging) is None:
            return 0
        (staging / "SOURCE.txt").write_text(
            f"{PACKAGE}=={VERSION} ({wheel.name}); members {MEMBER_PREFIX}**\n"
            "CANN's headers are under CANN's own licence: never commit them.\n"
        )
        if cache.exists():
            shutil.rmtree(cache)
        staging.rename(cache)
        return count
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cache-dir", type=Path, default=None,
        help=f"cache directory (default: ${CACHE_ENV} or ~/.cache/ascgen/cann-headers/...)",
    )  # fmt: skip
    parser.add_argument("--timeout", type=int, default=60, help="pip network timeout, seconds")
    args = parser.parse_args(argv)
    cache = (args.cache_dir or default_cache_dir()).expanduser().resolve()

    include = cached_include_dir(cache)
    if include is not None:
        print(include)
        return EXIT_OK

    # One download at a time (the test suite's two workers ask at once on a fresh machine): a
    # process that waited here finds the headers the other one extracted.
    cache.parent.mkdir(parents=True, exist_ok=True)
    with open(cache.parent / f".{cache.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        include = cached_include_dir(cache)
        if include is not None:
            print(include)
            return EXIT_OK
        with tempfile.TemporaryDirectory(prefix="ascgen-torch-npu-") as tmp:
            try:
                wheel = download_wheel(Path(tmp), args.timeout)
            except RuntimeError as err:
                loud(f"REGISTRY UNREACHABLE, cannot fetch {PACKAGE}=={VERSION}: {err}")
                return EXIT_REGISTRY_UNREACHABLE
            count = extract_headers(wheel, cache)
    include = cached_include_dir(cache)
    if count == 0 or include is None:
        loud(f"{PACKAGE}=={VERSION} wheel has no {MEMBER_PREFIX} headers")
        return EXIT_BAD_WHEEL
    print(f"extracted {count} CANN header files into {cache}", file=sys.stderr)
    print(include)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
