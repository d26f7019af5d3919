"""The front-end commands of the CLI: version, schema, init, validate, plan, profile, exit codes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ascgen import __version__
from ascgen import pipeline as analysis
from ascgen.cli import cli
from ascgen.common.errors import EXIT_INTERNAL, EXIT_USER_ERROR
from ascgen.dsl import profile as profiles
from ascgen.dsl.spec import STAGE_KINDS

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "pipelines" / "resnet50_b16.yaml"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), prog_name="ascgen")


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout == f"ascgen, version {__version__}\n"


def test_schema_is_json_schema_with_every_stage_kind() -> None:
    result = run("schema")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert set(doc["required"]) == {"name", "source", "stages"}
    assert doc["additionalProperties"] is False
    mapping = doc["properties"]["stages"]["items"]["discriminator"]["mapping"]
    assert sorted(mapping) == sorted(STAGE_KINDS)
    for kind, ref in mapping.items():
        assert doc["$defs"][ref.rsplit("/", 1)[1]]["properties"]["kind"]["const"] == kind


def test_schema_to_a_file(tmp_path: Path) -> None:
    out = tmp_path / "sub" / "schema.json"
    assert run("schema", "-o", str(out)).exit_code == 0
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(run("schema").stdout)


def test_init_writes_a_spec_that_validates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("init")
    assert result.exit_code == 0, result.output
    assert "wrote pipeline.yaml" in result.stdout
    assert (tmp_path / "pipeline.yaml").read_text(encoding="utf-8") == (
        ROOT / "ascgen" / "example_spec.yaml"
    ).read_text(encoding="utf-8")
    check = run("validate", "pipeline.yaml")
    assert check.exit_code == 0 and check.stdout.startswith("pipeline.yaml: ok (")


def test_init_refuses_to_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "mine.yaml"
    target.write_text("name: mine\n", encoding="utf-8")
    result = run("init", str(target))
    assert result.exit_code == EXIT_USER_ERROR
    assert "exists; pass --force to overwrite it" in result.stderr
    assert target.read_text(encoding="utf-8") == "name: mine\n"
    assert run("init", "--force", str(target)).exit_code == 0
    assert target.read_text(encoding="utf-8").startswith("# An ascgen pipeline spec.")


def test_validate_ok_exits_0() -> None:
    result = run("validate", str(SEED))
    assert result.exit_code == 0
    assert re.fullmatch(
        rf"{re.escape(str(SEED))}: ok \(6 stages, roofline [\d,]+ frames/s, bottleneck .+\)\n", result.stdout
    )
    assert result.stderr == ""


def test_validate_a_folder_checks_every_spec() -> None:
    result = run("validate", str(ROOT / "pipelines"))
    assert result.exit_code == 0, result.stderr
    specs = sorted((ROOT / "pipelines").rglob("*.yaml"))
    assert [line.split(": ok")[0] for line in result.stdout.splitlines()] == [str(p) for p in specs]


def test_validate_reports_every_file_then_fails(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(SEED.read_text(encoding="utf-8").replace("threads: 4", "thread: 4"), encoding="utf-8")
    missing = tmp_path / "missing.yaml"
    result = run("validate", str(bad), str(SEED), str(missing))
    assert result.exit_code == EXIT_USER_ERROR
    assert result.stdout.startswith(f"{SEED}: ok")
    assert result.stderr.splitlines() == [
        f"{bad}:6:1: error: unknown key 'thread' (did you mean 'threads'?)",
        f"{missing}:1:1: error: cannot read: No such file or directory",
        "2 errors",
    ]


@pytest.mark.parametrize(
    "args",
    [("validate",), ("plan",), ("no-such-command",), ("validate", "--no-such-option", "x.yaml")],
    ids=["validate_without_spec", "plan_without_spec", "unknown_command", "unknown_option"],
)
def test_usage_errors_exit_2(args: tuple[str, ...]) -> None:
    result = run(*args)
    assert result.exit_code == EXIT_USER_ERROR
    assert "Usage: ascgen" in result.stderr and "Traceback" not in result.output


def test_plan_prints_tables_and_the_roofline() -> None:
    result = run("plan", str(SEED))
    assert result.exit_code == 0
    for text in ("Buffers between stages", "decode_out", "2,359,296", "75,264", "roofline: ", "bottleneck: "):
        assert text in result.stdout


def test_plan_of_a_bad_spec_exits_2(tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text("name: x\n", encoding="utf-8")
    result = run("plan", "--json", str(spec))
    assert result.exit_code == EXIT_USER_ERROR
    assert result.stdout == ""
    assert result.stderr.endswith("2 errors\n")  # source and stages


def test_internal_error_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(path: Path) -> None:
        raise RuntimeError("planner exploded")

    monkeypatch.setattr(analysis, "analyze_file", broken)
    monkeypatch.delenv("ASCGEN_TRACEBACK", raising=False)
    result = run("validate", str(SEED))
    assert result.exit_code == EXIT_INTERNAL
    assert result.stderr.splitlines() == [
        "ascgen: internal error: RuntimeError: planner exploded "
        "(run again with ASCGEN_TRACEBACK=1 for the trace, and report it)"
    ]
    assert "Traceback" not in result.output


def test_internal_error_trace_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(path: Path) -> None:
        raise RuntimeError("planner exploded")

    monkeypatch.setattr(analysis, "analyze_file", broken)
    monkeypatch.setenv("ASCGEN_TRACEBACK", "1")
    result = run("validate", str(SEED))
    assert isinstance(result.exception, RuntimeError)


def test_profile_lists_and_prints() -> None:
    result = run("profile")
    assert result.exit_code == 0 and result.stdout.splitlines() == profiles.available()
    assert "ascend310" in result.stdout.splitlines()
    yaml_text = run("profile", "ascend310")
    assert yaml_text.exit_code == 0 and "name: ascend310" in yaml_text.stdout


def test_profile_flat() -> None:
    result = run("profile", "--flat", "ascend310")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("# ascgen device profile 'ascend310'")
    pairs = dict(line.split("=", 1) for line in lines[1:])
    assert list(pairs) == sorted(pairs)
    assert pairs["limits.max_events"] == "1023"
    assert pairs["align.jpegd_out.width"] == "128"
    assert pairs["memory.dvpp_bytes"] == "2415919104"
    assert pairs["models.resnet50.latency_ms.16"] == "21.78"


def test_unknown_profile_is_a_usage_error() -> None:
    result = run("profile", "ascend999")
    assert result.exit_code == EXIT_USER_ERROR
    assert "unknown profile 'ascend999'; available: ascend310" in result.stderr


def test_real_process_exit_codes(tmp_path: Path) -> None:
    """The installed entry point, not CliRunner: exit 2 on a bad spec, no traceback."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: &a [*a]\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "ascgen", "validate", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "ASCGEN_TRACEBACK": ""},
    )
    assert proc.returncode == EXIT_USER_ERROR
    assert proc.stderr == f"{bad}:1:7: error: an alias refers to a node that contains it\n1 error\n"
