"""`ascgen build` and `ascgen bench` share one build cache: a folder per program, named by the
hash of its generated files (the compiler is replaced here; tests/programs builds for real)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascgen.bench.points import configurations, parse_sweep
from ascgen.bench.roofline import Planner
from ascgen.codegen import build, cache

SEED = Path(__file__).resolve().parents[2] / "pipelines" / "resnet50_b16.yaml"


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The source folders compile_program was asked to build (the first build of a folder
    stamps it, as compile_program does after a build that succeeded)."""
    sources: list[Path] = []

    def fake_compile(name: str, src: Path, out: Path, *args: object, **kwargs: object) -> Path:
        sources.append(src)
        if not (out / cache.STAMP).exists():
            out.mkdir(parents=True, exist_ok=True)
            (out / cache.STAMP).write_text("built\n")
        return out / name

    monkeypatch.setattr(build, "compile_program", fake_compile)
    return sources


def test_build_then_bench_is_one_program_in_one_folder(tmp_path: Path, compiled: list[Path]) -> None:
    first = build.build_variant(SEED, build_root=tmp_path)  # ascgen build SPEC
    planner = Planner(SEED)
    spec, plan = planner.variant(configurations(planner.spec, [parse_sweep("threads=1,2")], {})[0])
    second = build.build_program(SEED, spec, plan, build_root=tmp_path)  # ascgen bench SPEC --sweep threads=1,2
    assert compiled[0] == compiled[1]
    assert compiled[0].parent.parent == tmp_path / "programs"
    assert compiled[0].parent.name.startswith("resnet50_b16-")
    assert (first.cached, second.cached) == (False, True)
    assert first.binary == second.binary


def test_another_program_gets_another_folder(tmp_path: Path, compiled: list[Path]) -> None:
    build.build_variant(SEED, build_root=tmp_path)
    build.build_variant(SEED, {"batch": 8}, build_root=tmp_path)
    assert compiled[0] != compiled[1]
    assert sorted(p.parent.name.split("-")[0] for p in compiled) == ["resnet50_b16", "resnet50_b16"]


def test_a_spec_is_one_program_however_its_path_is_spelled(
    tmp_path: Path, compiled: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The generated header names the spec; in the cache it names it by its absolute path, so a
    relative and an absolute path to one spec are one folder, built once (they were two)."""
    monkeypatch.chdir(SEED.parents[1])
    build.build_variant(Path("pipelines") / SEED.name, build_root=tmp_path)
    build.build_variant(SEED, build_root=tmp_path)
    assert compiled[0] == compiled[1]
    assert f"from {SEED}." in (compiled[0] / "main.cpp").read_text()
