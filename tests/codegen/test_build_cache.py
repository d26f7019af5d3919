"""The per-user build cache (ascgen.codegen.cache): where it is, the simulator's key, a second
checkout reusing the first's simulator, a program reused from another folder, no entry left by an
interrupted build, `ascgen cache info|clean`, and the build time in the bench's ETA."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from build_dirs import REPO, TEST_BUILD
from click.testing import CliRunner

from ascgen.bench.eta import SweepEta
from ascgen.cli import cli
from ascgen.codegen import build, cache
from ascgen.common.progress import CACHED
from ascgen.common.resources import simulator_dir
from ascgen.dsl.parse import parse_file
from ascgen.pipeline import analyze_data

SPEC = REPO / "pipelines" / "resnet50_b16.yaml"


def test_the_cache_is_the_env_var_else_xdg_else_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ASCGEN_CACHE_DIR", str(tmp_path / "mine"))
    assert cache.default_root() == tmp_path / "mine"
    monkeypatch.delenv("ASCGEN_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.default_root() == tmp_path / "xdg" / "ascgen"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # the XDG spec: a relative path is ignored
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.default_root() == tmp_path / "home" / ".cache" / "ascgen"


def _copy_simulator(into: Path) -> Path:
    copy = into / "checkout2" / "simulator"
    shutil.copytree(simulator_dir(), copy, ignore=shutil.ignore_patterns("build*", ".*"))
    return copy


def test_the_simulator_key_follows_its_sources_not_their_folder(tmp_path: Path) -> None:
    copy = _copy_simulator(tmp_path)
    here = cache.simulator_key(simulator_dir(), ["plain"])
    assert cache.simulator_key(copy, ["plain"]) == here
    assert cache.simulator_key(copy, ["address", "-DACL_SIM_SANITIZE=address"]) != here
    source = next(copy.glob("src/core/*.cpp"))
    source.write_text(source.read_text() + "\n// changed\n")
    assert cache.simulator_key(copy, ["plain"]) != here


@pytest.mark.slow  # installs the simulator (C++) where the suite has not yet
def test_a_second_checkout_reuses_the_first_checkout_s_simulator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second checkout (a copy of the simulator's sources elsewhere) finds the simulator the
    first installed: nothing runs, the installed library is untouched, one "cached" line."""
    prefix = build.ensure_simulator(TEST_BUILD, None)
    library = next(prefix.rglob("libacl_sim.a"))
    before = library.stat().st_mtime_ns
    copy = _copy_simulator(tmp_path)
    monkeypatch.setattr(build, "simulator_dir", lambda: copy)
    monkeypatch.setattr(build, "_run", lambda *a, **k: pytest.fail(f"a build step ran: {a[0]}"))
    monkeypatch.setattr(build, "_announced", set())
    lines: list[tuple[str, int, int]] = []
    assert build.ensure_simulator(TEST_BUILD, None, lambda *step: lines.append(step)) == prefix
    assert lines == [(f"simulator (plain): cached, {prefix}", CACHED, CACHED)]
    assert library.stat().st_mtime_ns == before


def test_a_changed_simulator_installs_under_a_new_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ours = build.simulator_prefix(tmp_path, None)
    copy = _copy_simulator(tmp_path)
    (copy / "src" / "core" / "extra_note.txt").write_text("changed\n")
    monkeypatch.setattr(build, "simulator_dir", lambda: copy)
    theirs = build.simulator_prefix(tmp_path, None)
    assert theirs.parent == ours.parent and theirs.name.startswith("plain-") and theirs != ours


class _Killed(KeyboardInterrupt):
    pass


def test_an_interrupted_simulator_install_leaves_no_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def run(cmd: list[str], *args: object, **kw: object) -> None:
        if cmd[:2] == ["cmake", "--install"]:
            into = Path(cmd[-1])
            (into / "lib").mkdir(parents=True)
            (into / "lib" / "libacl_sim.a").write_bytes(b"half")
            raise _Killed

    monkeypatch.setattr(build, "_run", run)
    with pytest.raises(_Killed):
        build.ensure_simulator(tmp_path, None)
    installs = tmp_path / "acl_sim-install"
    assert [p.name for p in installs.iterdir() if p.is_dir()] == []
    # the next build installs it whole
    monkeypatch.setattr(build, "_run", lambda cmd, *a, **k: Path(cmd[-1]).mkdir() if "--install" in cmd else None)
    assert build.ensure_simulator(tmp_path, None).is_dir()


def _plan(spec_path: Path = SPEC):  # type: ignore[no-untyped-def]
    spec, smap = parse_file(spec_path)
    return spec, analyze_data(spec, smap)


def _runtime_library(log: Path, what: str) -> bool:
    """A stand-in for the runtime library's build steps (ensure_runtime): the library appears."""
    if not what.endswith("the runtime"):
        return False
    (log.parent / "libascgen_runtime.a").write_bytes(b"a library")
    return True


def _pretend_to_build(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Build steps that only pretend (the runtime library and resnet50_b16's binary appear); the
    list they return gets the name of each program step that ran."""
    steps: list[str] = []

    def run(cmd: list[str], log: Path, what: str, *a: object) -> None:
        if not _runtime_library(log, what):
            steps.append(what)
            if what == "build":
                (log.parent / "resnet50_b16").write_bytes(b"a binary")

    monkeypatch.setattr(build, "check_tools", lambda: None)
    monkeypatch.setattr(build, "_run", run)
    return steps


def test_an_interrupted_program_build_is_not_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stamp that makes a program's build folder count as built is written only after a
    build that succeeded: a build killed half way is built again."""
    build.simulator_prefix(tmp_path, None).mkdir(parents=True)  # an installed simulator
    steps: list[str] = []

    def killed(cmd: list[str], log: Path, what: str, *a: object) -> None:
        if _runtime_library(log, what):
            return
        steps.append(what)
        if what == "build":
            (log.parent / "resnet50_b16").write_bytes(b"half a binary")
            raise _Killed

    monkeypatch.setattr(build, "check_tools", lambda: None)
    monkeypatch.setattr(build, "_run", killed)
    spec, plan = _plan()
    with pytest.raises(_Killed):
        build.build_program(SPEC, spec, plan, build_root=tmp_path)
    assert not list((tmp_path / "programs").rglob(cache.STAMP))
    assert build.build_estimate_s([(spec, plan)], build_root=tmp_path) == cache.DEFAULT_BUILD_S["program"]

    def finished(cmd: list[str], log: Path, what: str, *a: object) -> None:
        if _runtime_library(log, what):
            return
        steps.append(what)
        if what == "build":
            (log.parent / "resnet50_b16").write_bytes(b"a binary")

    steps.clear()
    monkeypatch.setattr(build, "_run", finished)
    first = build.build_program(SPEC, spec, plan, build_root=tmp_path)
    assert steps == ["configure", "build"] and not first.cached
    steps.clear()
    monkeypatch.setattr(build, "_announced", set())
    lines: list[str] = []
    again = build.build_program(SPEC, spec, plan, build_root=tmp_path, progress=lambda w, d, t: lines.append(w))
    assert steps == [] and again.cached and again.binary == first.binary
    prefix = build.simulator_prefix(tmp_path, None)
    assert lines == [f"simulator (plain): cached, {prefix}", f"resnet50_b16 (sim-plain): cached, {first.binary}"]
    assert build.build_estimate_s([(spec, plan)], build_root=tmp_path) == 0.0


def test_a_program_built_while_this_process_waited_is_not_built_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two test workers that want one program at once: the second, which found no stamp and then
    waited for the folder's lock, finds the first's build done when it gets the lock and runs no
    configure or build of its own."""
    build.simulator_prefix(tmp_path, None).mkdir(parents=True)  # an installed simulator
    steps = _pretend_to_build(monkeypatch)
    spec, plan = _plan()
    first = build.build_program(SPEC, spec, plan, build_root=tmp_path)
    folder = first.binary.parent
    stamp = (folder / cache.STAMP).read_text(encoding="utf-8")
    (folder / cache.STAMP).unlink()  # the other worker's build, not finished when this one looks
    real = cache.locked

    @contextlib.contextmanager
    def finished_while_waiting(where: Path) -> Iterator[None]:
        if where == folder:
            (folder / cache.STAMP).write_text(stamp, encoding="utf-8")  # the other worker's stamp
        with real(where):
            yield

    monkeypatch.setattr(cache, "locked", finished_while_waiting)
    steps.clear()
    again = build.build_program(SPEC, spec, plan, build_root=tmp_path)
    assert steps == [] and again.binary == first.binary


def test_the_build_estimate_uses_the_times_measured_in_the_cache(tmp_path: Path) -> None:
    spec, plan = _plan()
    fresh = build.build_estimate_s([(spec, plan)], build_root=tmp_path)
    assert fresh == cache.DEFAULT_BUILD_S["simulator"] + cache.DEFAULT_BUILD_S["program"]
    cache.record_build_seconds(tmp_path, "simulator", 100.0)
    cache.record_build_seconds(tmp_path, "program", 12.5)
    assert build.build_estimate_s([(spec, plan), (spec, plan)], build_root=tmp_path) == 125.0
    assert build.build_estimate_s([(spec, plan)], backend="cann", build_root=tmp_path) == 12.5


def test_the_eta_counts_the_build_still_to_do() -> None:
    now = [0.0]
    eta = SweepEta(10.0, clock=lambda: now[0])
    eta.builds_planned(60.0)
    eta.planned(3)
    assert eta.remaining_s() == 90.0
    now[0] = 20.0  # building for 20 s
    assert eta.remaining_s() == 70.0
    now[0] = 80.0  # the build overran its estimate: only the runs remain
    assert eta.remaining_s() == 30.0
    eta.run_started()
    assert eta.remaining_s() == 30.0


def test_cache_info_and_clean(tmp_path: Path) -> None:
    (tmp_path / "acl_sim-install" / "plain-0123").mkdir(parents=True)
    (tmp_path / "acl_sim-install" / "plain-0123" / "libacl_sim.a").write_bytes(b"x" * 3000)
    (tmp_path / "programs" / "resnet50-abc" / "sim-plain").mkdir(parents=True)
    (tmp_path / "programs" / "resnet50-abc" / "sim-plain" / "resnet50").write_bytes(b"y" * 2048)
    (tmp_path / "runtime" / "plain-4567").mkdir(parents=True)  # the programs' runtime library
    (tmp_path / "runtime" / "plain-4567" / "libascgen_runtime.a").write_bytes(b"z" * 1024)
    result = CliRunner().invoke(cli, ["cache", "info", "--build-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert f"build cache: {tmp_path}" in result.output
    assert "simulator     2.9 KiB, 1 entry" in result.output
    assert "programs      2.0 KiB, 1 program" in result.output
    assert "runtime       1.0 KiB, 1 entry" in result.output
    (tmp_path / "cann-headers").mkdir()  # not a build: clean leaves it
    (tmp_path / "cann-headers" / "acl.h").write_text("kept\n")
    result = CliRunner().invoke(cli, ["cache", "clean", "--build-dir", str(tmp_path)])
    assert result.exit_code == 0 and "removed 5.9 KiB" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [cache.LOCK, "cann-headers"]


def test_a_plain_bench_says_a_cached_program_in_one_line() -> None:
    from io import StringIO

    from rich.console import Console

    from ascgen.bench.live import PlainMonitor
    from ascgen.bench.runner import RunOptions

    text = StringIO()
    with PlainMonitor(Console(file=text, width=200), RunOptions(duration_s=1, warmup_s=0)) as monitor:
        monitor.building("batch=1")
        monitor.build_progress("simulator (plain): cached, /c/acl_sim-install/plain-1", CACHED, CACHED)
        monitor.build_progress("resnet50_b16 (sim-plain): cached, /c/programs/r-1/sim-plain/resnet50", CACHED, CACHED)
        monitor.built("batch=1", cached=True)
    assert text.getvalue().splitlines() == [
        "simulator (plain): cached, /c/acl_sim-install/plain-1",
        "resnet50_b16 (sim-plain): cached, /c/programs/r-1/sim-plain/resnet50",
    ]


@pytest.mark.slow
def test_a_build_from_another_folder_reuses_the_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`ascgen build` from two folders with no --build-dir: both use the cache (the suite's folder,
    as ASCGEN_CACHE_DIR says), the second compiles nothing and says so in one line."""
    binaries = []
    for folder in ("first", "second"):
        (tmp_path / folder).mkdir()
        monkeypatch.chdir(tmp_path / folder)
        monkeypatch.setattr(build, "_announced", set())
        result = CliRunner().invoke(cli, ["build", str(SPEC)])
        assert result.exit_code == 0, result.output
        binaries.append(Path(result.stdout.strip().splitlines()[-1]))
        stamp = (binaries[-1].parent / cache.STAMP).stat().st_mtime_ns
        if folder == "first":
            first_stamp = stamp
    assert binaries[0] == binaries[1] and TEST_BUILD in binaries[0].parents
    assert stamp == first_stamp
    assert f"resnet50_b16 (sim-plain): cached, {binaries[1]}" in result.output
    assert not (tmp_path / "second" / "build").exists()
    # The suite's builds are quick ones (tests/conftest.py): CMake compiled main.cpp at -O1.
    rules = (binaries[0].parent / "build.ninja").read_text()
    flags = next(line for line in rules.splitlines() if line.startswith("  FLAGS =") and "-Wall" in line)
    assert " -O1 " in f"{flags} " and "-O3" not in flags, flags


@pytest.mark.parametrize(("sanitize", "flag"), [(None, "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG"),
                                               ("address", "-DASCGEN_SANITIZE_OPT=-O0")])  # fmt: skip
def test_a_quick_build_is_compiled_less_optimised_and_switching_it_rebuilds(
    sanitize: str | None, flag: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ASCGEN_QUICK_BUILDS=1 (the test suite's setting) configures a program and the runtime
    library at -O1 (ASan+UBSan: -O0); the setting is part of the program build's stamp and of the
    library's key, so a build without it is not taken for a build with it."""
    build.simulator_prefix(tmp_path, sanitize).mkdir(parents=True)
    configures: list[list[str]] = []
    libraries: list[Path] = []

    def run(cmd: list[str], log: Path, what: str, *a: object) -> None:
        if what == "configure the runtime":
            libraries.append(log.parent)
            assert (flag in cmd) == (os.environ[build.QUICK_ENV] == "1"), cmd
        if _runtime_library(log, what):
            return
        if what == "configure":
            configures.append(cmd)
        if what == "build":
            (log.parent / "resnet50_b16").write_bytes(b"a binary")

    monkeypatch.setattr(build, "check_tools", lambda: None)
    monkeypatch.setattr(build, "_run", run)
    spec, plan = _plan()
    for quick in ("1", "", "", "1"):
        monkeypatch.setenv(build.QUICK_ENV, quick)
        build.build_program(SPEC, spec, plan, build_root=tmp_path, sanitize=sanitize)
    assert [flag in cmd for cmd in configures] == [True, False, True]
    assert len(libraries) == len(set(libraries)) == 2  # one library each, each built once


def test_programs_link_the_runtime_library_compiled_once_per_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A program of the simulator backend links the runtime's .cpp files compiled once for its
    sanitizer setting (ensure_runtime), with the flags file the programs use; two programs of
    one setting share that library, another setting has its own."""
    for sanitize in (None, "address"):
        build.simulator_prefix(tmp_path, sanitize).mkdir(parents=True)
    commands: list[list[str]] = []

    def run(cmd: list[str], log: Path, what: str, *a: object) -> None:
        commands.append(cmd)
        if what == "build the runtime":
            (log.parent / "libascgen_runtime.a").write_bytes(b"a library")
        if what == "build":
            (log.parent / log.parent.parent.name.rsplit("-", 1)[0]).write_bytes(b"a binary")

    monkeypatch.setattr(build, "check_tools", lambda: None)
    monkeypatch.setattr(build, "_run", run)
    libraries = []
    for spec_path, sanitize in ((SPEC, None), (Path("pipelines/decode_only.yaml"), None), (SPEC, "address")):
        spec, plan = _plan(spec_path)
        commands.clear()
        build.build_program(spec_path, spec, plan, build_root=tmp_path, sanitize=sanitize)
        configure = next(c for c in commands if "-S" in c and "programs" in c[c.index("-S") + 1])
        libraries.append(next(f for f in configure if f.startswith("-DASCGEN_RUNTIME_LIBRARY=")).split("=", 1)[1])
        runtime = [c for c in commands if "runtime_library" in " ".join(c)]
        assert bool(runtime) == (spec_path == SPEC), runtime  # compiled by the first program only
    assert libraries[0] == libraries[1] != libraries[2]
    assert Path(libraries[2]).parent.name.startswith("address-")


def test_the_build_log_lists_each_build_that_ran_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ASCGEN_BUILD_LOG (how to list what a test run compiled): one line per build that ran, the
    runtime library and the program the first time, nothing when both are found built."""
    build.simulator_prefix(tmp_path, None).mkdir(parents=True)  # an installed simulator
    _pretend_to_build(monkeypatch)
    listing = tmp_path / "builds.log"
    monkeypatch.setenv(cache.BUILD_LOG_ENV, str(listing))
    spec, plan = _plan()
    first = build.build_program(SPEC, spec, plan, build_root=tmp_path)
    again = build.build_program(SPEC, spec, plan, build_root=tmp_path)
    assert again.cached
    rows = [line.split("\t") for line in listing.read_text(encoding="utf-8").splitlines()]
    assert [(what, Path(folder).parent.name) for what, _, folder in rows] == [
        ("runtime", "runtime"),
        ("program", first.binary.parents[1].name),
    ]
    assert all(float(seconds) >= 0 for _, seconds, _ in rows)


def test_a_plain_bench_announces_the_build_in_its_estimate() -> None:
    from io import StringIO

    from rich.console import Console

    from ascgen.bench.live import PlainMonitor
    from ascgen.bench.runner import RunOptions

    text = StringIO()
    with PlainMonitor(Console(file=text, width=200), RunOptions(duration_s=10, warmup_s=2)) as monitor:
        monitor.builds_planned(240.0)
        monitor.planned(2)
    # 2 runs of 2 + 10 + 1 s start-up, and 4 minutes of building
    assert text.getvalue().splitlines()[0] == "bench: 2 runs, about 4m26s (building included: 4m00s)"


@pytest.mark.slow  # installs the simulator (C++) where the suite has not yet
def test_builds_name_the_installed_simulator_s_cmake_package(tmp_path: Path) -> None:
    """A program's build finds the simulator at its prefix by acl_sim_DIR too: find_package keeps
    the folder it found in the build's CMake cache, so with CMAKE_PREFIX_PATH alone a rebuilt
    simulator (a new prefix) left an old program build linking the old simulator."""
    prefix = build.ensure_simulator(TEST_BUILD, None)
    flags = build.simulator_flags(prefix)
    assert f"-DCMAKE_PREFIX_PATH={prefix}" in flags
    package = next(f.split("=", 1)[1] for f in flags if f.startswith("-Dacl_sim_DIR="))
    assert (Path(package) / "acl_simConfig.cmake").is_file()
