"""Every generated main.cpp compiles against CANN's REAL runtime and model headers.

The headers come from the torch-npu wheel (simulator/conformance/fetch_cann_headers.py caches
them outside the repository); CANN publishes no DVPP header there, so acl_dvpp.h and hi_dvpp.h
are ours.
When the package registry cannot be reached the test is skipped, loudly.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from program_harness import BASELINE_GRAPH

from ascgen.codegen.lower import lower
from ascgen.codegen.render import render
from ascgen.dsl.configure import configure
from ascgen.dsl.parse import parse_file
from ascgen.pipeline import analyze_data

pytestmark = pytest.mark.slow  # every test compiles C++ (a main.cpp, a probe, or a CMake build)

REPO = Path(__file__).resolve().parents[2]
FETCH = REPO / "simulator" / "conformance" / "fetch_cann_headers.py"
GENERATED = sorted(p for p in (REPO / "generated").iterdir() if (p / "main.cpp").is_file())
RUNTIME = REPO / "generated" / "runtime"  # the programs' shared runtime headers


@pytest.fixture(scope="module")
def cann_include(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    proc = subprocess.run([sys.executable, str(FETCH)], capture_output=True, text=True, timeout=900, check=False)
    if proc.returncode != 0:
        message = f"!!! GENERATED CODE NOT CHECKED AGAINST CANN'S HEADERS: {proc.stderr.strip()[-300:]}"
        print(f"WARNING: {message}", file=sys.stderr)
        warnings.warn(message, stacklevel=1)
        pytest.skip(message)
    cann = Path(proc.stdout.strip().splitlines()[-1])
    dvpp_only = tmp_path_factory.mktemp("dvpp")
    (dvpp_only / "acl" / "ops").mkdir(parents=True)
    shutil.copy(REPO / "simulator" / "include" / "acl" / "ops" / "acl_dvpp.h", dvpp_only / "acl" / "ops")
    (dvpp_only / "acl" / "dvpp").mkdir(parents=True)  # the V2 media API (hi_mpi_*): ours too
    shutil.copy(REPO / "simulator" / "include" / "acl" / "dvpp" / "hi_dvpp.h", dvpp_only / "acl" / "dvpp")
    return cann, dvpp_only


# Each program's main.cpp, and the runtime's .cpp files (compiled apart from main.cpp, without the
# program's own paths: no runtime .cpp file may use them).
SOURCES = {p.name: [p / "main.cpp"] for p in GENERATED} | {"runtime": sorted(RUNTIME.glob("*.cpp"))}


@pytest.mark.parametrize("program", sorted(SOURCES))
def test_generated_program_compiles_against_cann(program: str, cann_include: tuple[Path, Path]) -> None:
    _compiles_against_cann(SOURCES[program], program != "runtime", cann_include)


def test_the_baseline_graph_compiles_against_cann(cann_include: tuple[Path, Path], tmp_path: Path) -> None:
    """A graph's baseline layout (per_thread), which no example spec has (generated/ holds none):
    the 310 graph configured so, as bench sweeps it."""
    spec_path, overrides = BASELINE_GRAPH
    spec, smap = parse_file(spec_path)
    program = lower(analyze_data(configure(spec, overrides), smap), tmp_path / "program", shared_runtime=True)
    main = tmp_path / "main.cpp"
    main.write_text(render(program)["main.cpp"], encoding="utf-8")
    assert "ascgen::PerThreadLayout" in main.read_text(encoding="utf-8")
    _compiles_against_cann([main], True, cann_include)


def _compiles_against_cann(sources: list[Path], program: bool, cann_include: tuple[Path, Path]) -> None:
    """``sources`` (a program's main.cpp, or the runtime's .cpp files) compile with the real headers."""
    cann, dvpp_only = cann_include
    paths = ['-DASCGEN_DEFAULT_INPUT="in"', '-DASCGEN_DEFAULT_MODEL="m.om"'] if program else []
    if program and "ASCGEN_OBJECTS_MODEL" in sources[0].read_text(encoding="utf-8"):
        paths.append('-DASCGEN_OBJECTS_MODEL="o.om"')  # a graph's model of objects
    cmd = [
        "c++",
        "-std=c++17",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-fsyntax-only",
        "-DENABLE_DVPP_INTERFACE",
        "-DASCGEN_BACKEND_SIM=0",
        *paths,
        f"-I{cann}",
        f"-I{dvpp_only}",
        f"-I{RUNTIME}",
        *map(str, sources),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-4000:]


def _toolkit(root: Path, cann: Path, dvpp_only: Path) -> Path:
    """A CANN 5.1+ toolkit tree: the real headers under runtime/include (with one that warns,
    as a toolkit's headers may), link stubs under runtime/lib64/stub."""
    include = root / "runtime" / "include"
    shutil.copytree(cann, include, dirs_exist_ok=True)
    shutil.copytree(dvpp_only, include, dirs_exist_ok=True)
    acl_h = include / "acl" / "acl.h"
    text = acl_h.read_text()
    guard_end = text.rindex("#endif")  # inside the include guard
    probe = "inline int ascgen_probe_warning(int unused) { return 0; }  // -Wunused-parameter\n"
    acl_h.write_text(text[:guard_end] + probe + text[guard_end:])
    stub = root / "runtime" / "lib64" / "stub"
    stub.mkdir(parents=True)
    for lib in ("libascendcl.so", "libacl_dvpp.so", "libmsprofiler.so"):
        (stub / lib).write_bytes(b"")
    return root


def _configure(src: Path, build: Path, env: dict[str, str]) -> str:
    """CMake's configure of ``src`` against the toolkit ``env`` names; its output."""
    configure = subprocess.run(
        ["cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert configure.returncode == 0, configure.stdout[-2000:] + configure.stderr[-2000:]
    return configure.stdout


def _main_compiles(build: Path, env: dict[str, str]) -> None:
    """main.cpp compiles with the command the configured build holds for it (its flags, include
    folders and definitions, -Werror), front end only (-fsyntax-only): what the toolkit's headers
    decide ends there, and code generation would only take a compiler's time."""
    commands = json.loads((build / "compile_commands.json").read_text(encoding="utf-8"))
    (entry,) = [c for c in commands if Path(c["file"]).name == "main.cpp"]
    compiled = subprocess.run(
        [*shlex.split(entry["command"]), "-fsyntax-only"],
        cwd=entry["directory"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert compiled.returncode == 0, compiled.stderr[-4000:]


@pytest.mark.parametrize("name", ["resnet50_b16", "study_b1_per_thread", "letterbox_yolo", "detect_classify_310"])
def test_cmake_cann_branch_builds_against_a_toolkit(name: str, cann_include: tuple[Path, Path], tmp_path: Path) -> None:
    """The generated CMakeLists finds a toolkit as CANN's samples do (DDK_PATH), includes its
    headers as SYSTEM (their warnings do not fail -Werror) and keeps the link stubs out of RPATH."""
    cann, dvpp_only = cann_include
    root = _toolkit(tmp_path / "Ascend" / "latest", cann, dvpp_only)
    build = tmp_path / "build"
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DDK_PATH": str(root)}
    assert "AscendCL backend cann" in _configure(REPO / "generated" / name, build, env)
    _main_compiles(build, env)
    ninja = (build / "build.ninja").read_text()
    assert "-isystem" in ninja and str(root / "runtime" / "include") in ninja
    assert "rpath" not in ninja, "the link stubs must not end up in the binary's RPATH"


def _probe_sources(root: Path) -> Path:
    """The transfer probe with every case it can have (atlas_a3: copies and both links)."""
    from ascgen.transfers import probe

    options = probe.Options(profile="atlas_a3", host_memory=("pinned", "pageable"))
    for merged in (False, True):
        folder = root / ("merged" if merged else "unmerged")
        folder.mkdir(parents=True)
        files = probe.render(dataclasses.replace(options, merged=merged), folder)
        for rel, text in files.items():
            (folder / rel).write_text(text)
    return root


def test_probe_programs_compile_against_cann(cann_include: tuple[Path, Path], tmp_path: Path) -> None:
    """The transfer probes (ascgen probe transfer) build against CANN's real headers: their link
    cases, simulator-only, are left out there and report themselves unsupported."""
    cann, _ = cann_include
    root = _probe_sources(tmp_path / "probes")
    for folder in sorted(root.iterdir()):
        cmd = ["c++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-DASCGEN_BACKEND_SIM=0"]
        proc = subprocess.run(
            [*cmd, f"-I{cann}", str(folder / "main.cpp")], capture_output=True, text=True, check=False
        )
        assert proc.returncode == 0, proc.stderr[-4000:]


@pytest.mark.parametrize("profile_name", ["ascend310", "atlas_a3"])
def test_engine_probe_compiles_against_cann(profile_name: str, cann_include: tuple[Path, Path], tmp_path: Path) -> None:
    """The engine probe (ascgen calibrate: scheduler, host submit, JPEGD and VPC by channel count)
    builds against CANN's real runtime headers and our DVPP header, with and without channel modes."""
    from ascgen.calibrate import engines

    cann, dvpp_only = cann_include
    files = engines.render(engines.Options(profile=profile_name), tmp_path)
    (tmp_path / "main.cpp").write_text(files["main.cpp"])
    cmd = ["c++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-DASCGEN_BACKEND_SIM=0"]
    proc = subprocess.run(
        [*cmd, f"-I{cann}", f"-I{dvpp_only}", str(tmp_path / "main.cpp")], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_probe_cmake_cann_branch_builds_against_a_toolkit(cann_include: tuple[Path, Path], tmp_path: Path) -> None:
    cann, dvpp_only = cann_include
    root = _toolkit(tmp_path / "Ascend" / "latest", cann, dvpp_only)
    src = _probe_sources(tmp_path / "probes") / "unmerged"
    build = tmp_path / "build"
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "DDK_PATH": str(root)}
    assert "AscendCL backend cann" in _configure(src, build, env)
    _main_compiles(build, env)
    assert "rpath" not in (build / "build.ninja").read_text()
