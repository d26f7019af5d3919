"""Conformance of the simulator with CANN's REAL AscendCL headers.

CANN's headers come from the torch-npu wheel (fetched into a cache outside the
repository by simulator/conformance/fetch_cann_headers.py). If the package
registry cannot be reached the build tests are skipped, loudly.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from build_dirs import TEST_BUILD

REPO = Path(__file__).resolve().parents[2]
CONFORMANCE = REPO / "simulator" / "conformance"
BUILD_DIR = TEST_BUILD / "conformance"
FETCH = CONFORMANCE / "fetch_cann_headers.py"
GEN = CONFORMANCE / "gen_checks.py"
OUR_INCLUDE = REPO / "simulator" / "include"
EXIT_REGISTRY_UNREACHABLE = 3
# Spelled in two pieces so that this file does not match its own search.
CANN_LICENCE_MARK = "CANN Open " + "Software License"


@pytest.fixture(scope="session")
def cann_include() -> Path:
    proc = subprocess.run([sys.executable, str(FETCH)], capture_output=True, text=True, timeout=900, check=False)
    if proc.returncode != 0:
        why = "registry unreachable" if proc.returncode == EXIT_REGISTRY_UNREACHABLE else "failed"
        message = (
            f"!!! CANN HEADER CONFORMANCE NOT CHECKED: fetching torch-npu {why} "
            f"(exit {proc.returncode}): {proc.stderr.strip()[-400:]}"
        )
        print(f"WARNING: {message}", file=sys.stderr)
        warnings.warn(message, stacklevel=1)
        pytest.skip(message)
    include = Path(proc.stdout.strip().splitlines()[-1])
    assert (include / "acl" / "acl.h").is_file(), include
    return include


def _cxx() -> str:
    for name in ("c++", "g++", "clang++"):
        if shutil.which(name):
            return name
    pytest.fail("no C++ compiler: run scripts/install.sh")


def test_cann_headers_cached_outside_repo(cann_include: Path) -> None:
    assert REPO not in cann_include.resolve().parents, (
        f"CANN's headers must be cached outside the repository, not in {cann_include}"
    )


@pytest.mark.slow
def test_conformance_build(cann_include: Path) -> None:
    """Our headers and the simulator's sources compile against CANN's headers."""
    if not shutil.which("cmake") or not shutil.which("ninja"):
        pytest.fail("cmake and ninja are needed: run scripts/install.sh")
    configure = [
        "cmake", "-S", str(CONFORMANCE), "-B", str(BUILD_DIR), "-G", "Ninja",
        f"-DCANN_INCLUDE_DIR={cann_include}",
    ]  # fmt: skip
    proc = subprocess.run(configure, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"configure failed:\n{proc.stdout}\n{proc.stderr}"
    build = ["cmake", "--build", str(BUILD_DIR), "-j2"]
    proc = subprocess.run(build, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, (
        "the simulator drifted from CANN's real headers (or does not compile):\n"
        + proc.stdout[-12000:]
        + proc.stderr[-4000:]
    )


def _compile_checks(tmp_path: Path, include_root: Path, cann_include: Path) -> str:
    out = tmp_path / "checks.cpp"
    headers = sorted(str(p) for p in (include_root / "acl").glob("*.h"))
    gen = [sys.executable, str(GEN), "--out", str(out), "--root", str(include_root), *headers]
    subprocess.run(gen, check=True, capture_output=True, text=True)
    cmd = [
        _cxx(), "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
        f"-I{cann_include}", f"-I{include_root}", str(out),
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return proc.stderr if proc.returncode != 0 else ""


@pytest.mark.slow  # compiles C++
def test_generated_checks_catch_drift(tmp_path: Path, cann_include: Path) -> None:
    """The checks are not vacuous: a copy of our headers with drift fails."""
    mutated = tmp_path / "include"
    shutil.copytree(OUR_INCLUDE / "acl", mutated / "acl")
    mdl = mutated / "acl" / "acl_mdl.h"
    text = mdl.read_text()
    edits = {
        "aclmdlExecuteAsync(uint32_t modelId": "aclmdlExecuteAsync(int32_t modelId",
        "size_t dimCount;": "uint32_t dimCount;",
        "#define ACL_MAX_BATCH_NUM 128": "#define ACL_MAX_BATCH_NUM 64",
    }
    for old, new in edits.items():
        assert old in text, f"test needs '{old}' in acl_mdl.h"
        text = text.replace(old, new)
    mdl.write_text(text)
    errors = _compile_checks(tmp_path, mutated, cann_include)
    assert "signature of aclmdlExecuteAsync differs" in errors, errors[-3000:]
    assert "type of aclmdlIODims::dimCount differs" in errors, errors[-3000:]
    assert "ACL_MAX_BATCH_NUM differs" in errors, errors[-3000:]


def _deprecated(include: Path, names: list[str], tmp_path: Path) -> set[str]:
    """The functions among `names` that the headers under `include` mark deprecated."""
    src = tmp_path / f"deprecated_{abs(hash(str(include)))}.cpp"
    refs = "".join(f"  (void)&::{n};\n" for n in names)
    headers = "".join(f'#include "acl/{h.name}"\n' for h in sorted((OUR_INCLUDE / "acl").glob("*.h")))
    src.write_text(f"{headers}void f();\nvoid f() {{\n{refs}}}\n")  # (acl.h includes not all: acl_prof.h)
    cmd = [_cxx(), "-std=c++17", "-fsyntax-only", "-Wdeprecated-declarations", f"-I{include}", str(src)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env={**os.environ, "LC_ALL": "C"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return set(re.findall(r"(\w+)\([^)]*\)' is deprecated", proc.stderr))


@pytest.mark.slow  # compiles C++
def test_deprecations_match(tmp_path: Path, cann_include: Path) -> None:
    """A function CANN deprecates is deprecated in ours too (and only those), so code
    that builds warning-free on the simulator also builds with -Werror on CANN."""
    sys.path.insert(0, str(CONFORMANCE))
    import gen_checks

    names = [n for h in sorted((OUR_INCLUDE / "acl").glob("*.h")) for n in gen_checks.function_names(h)]
    ours = _deprecated(OUR_INCLUDE, names, tmp_path)
    cann = _deprecated(cann_include, names, tmp_path)
    assert ours == cann, f"deprecated only in CANN: {sorted(cann - ours)}; only in ours: {sorted(ours - cann)}"


@pytest.mark.slow  # compiles C++
def test_dvpp_header_requires_enable_macro(tmp_path: Path, cann_include: Path) -> None:
    src = tmp_path / "t.cpp"
    src.write_text('#include "acl/ops/acl_dvpp.h"\n')
    cmd = [_cxx(), "-std=c++17", "-fsyntax-only", f"-I{cann_include}", f"-I{OUR_INCLUDE}"]
    bad = subprocess.run([*cmd, str(src)], capture_output=True, text=True, check=False)
    assert bad.returncode != 0 and "ENABLE_DVPP_INTERFACE" in bad.stderr
    good = subprocess.run([*cmd, "-DENABLE_DVPP_INTERFACE", str(src)], capture_output=True, text=True, check=False)
    assert good.returncode == 0, good.stderr


@pytest.mark.slow  # compiles C++
def test_headers_compile_as_c_like_canns(tmp_path: Path, cann_include: Path) -> None:
    """CANN's acl.h is valid C99 (only acl_dvpp.h is C++-only); ours must be too."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.fail("no C compiler: run scripts/install.sh")
    src = tmp_path / "t.c"
    src.write_text('#include "acl/acl.h"\n#include "acl/acl_base.h"\nint main(void) { return 0; }\n')
    for include in (cann_include, OUR_INCLUDE):
        cmd = [cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", f"-I{include}", str(src)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, f"{include}:\n{proc.stderr[-3000:]}"


def test_no_cann_licensed_file_tracked() -> None:
    """CANN's headers (CANN licence) must never be committed."""
    if not (REPO / ".git").exists() or not shutil.which("git"):
        pytest.skip("not a git checkout")
    proc = subprocess.run(
        ["git", "grep", "-l", CANN_LICENCE_MARK],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GIT_PAGER": "cat"},
    )
    assert proc.returncode in (0, 1), proc.stderr
    offenders = [p for p in proc.stdout.splitlines() if not p.startswith("tests/fixtures/")]
    assert not offenders, f"files under CANN's licence are tracked in git: {offenders}"


def _dvpp_profile_keys() -> list[str]:
    """The flat profile keys sim::dvpp::limits_from_profile requires."""
    src = (REPO / "simulator" / "src" / "dvpp" / "dvpp_check.cpp").read_text()
    body = src[src.index("bool limits_from_profile(") :]
    body = body[: body.index("// Optional keys")]
    keys = re.findall(r'(?:read_u32|lookup)\(num, "([\w.]+)"', body)
    for prefix in re.findall(r'read_range\(num, "([\w.]+)"', body):
        keys += [f"{prefix}.{k}" for k in ("min_width", "min_height", "max_width", "max_height")]
    return keys


@pytest.mark.parametrize("profile", sorted(p.stem for p in (REPO / "ascgen" / "profiles").glob("*.yaml")))
def test_profiles_have_dvpp_limit_keys(profile: str) -> None:
    """Every device profile has the keys the simulator's DVPP checks read."""
    cmd = [sys.executable, "-c", "from ascgen.cli import main; main()", "profile", profile, "--flat"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, check=False)
    assert proc.returncode == 0, proc.stderr
    flat = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    keys = _dvpp_profile_keys()
    assert len(keys) == 25, keys
    missing = [k for k in keys if k not in flat]
    assert not missing, f"profile {profile} lacks {missing}"
    for k in keys:
        float(flat[k])


@pytest.mark.slow
def test_every_declared_function_is_defined(sim_build: Callable[[str], Path]) -> None:
    """Every function our acl/*.h and acl/ops/acl_dvpp.h declare is defined in
    libacl_sim.a, so generated code never meets an undefined reference."""
    if not shutil.which("nm"):
        pytest.fail("nm (binutils) is needed: run scripts/install.sh")
    sys.path.insert(0, str(CONFORMANCE))
    import gen_checks

    lib = sim_build("plain") / "libacl_sim.a"
    proc = subprocess.run(["nm", "--defined-only", str(lib)], capture_output=True, text=True, check=True)
    defined = {parts[2] for parts in (line.split() for line in proc.stdout.splitlines()) if len(parts) == 3}
    headers = sorted((OUR_INCLUDE / "acl").rglob("*.h"))
    declared = {n: h.name for h in headers for n in gen_checks.function_names(h)}
    assert len(declared) > 100, declared
    missing = sorted(f"{n} ({h})" for n, h in declared.items() if n not in defined)
    assert not missing, f"declared but not defined in libacl_sim.a: {missing}"
