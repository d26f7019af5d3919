"""Hostile results files for `ascgen compare` that a schema check alone let through: loads that
cannot be compared, a frame pipeline against a server, and corrupt configurations. A gate that
compares nothing must fail (exit 1); a corrupt file is refused on load (exit 2, one line)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from harness import ROOT, Case, run_and_check, with_processes

BASE: dict[str, Any] = json.loads((ROOT / "tests/fixtures/bench/compare/base.json").read_text())
OLD = "{root}/tests/fixtures/bench/compare/base.json"


def every_config(**fields: Any) -> str:
    """base.json with ``fields`` set in every run and summary (a configuration's keys)."""
    doc = copy.deepcopy(BASE)
    for record in (*doc["runs"], *doc["summary"]):
        record.update(fields)
    return json.dumps(doc)


def token(field: str, text: str) -> str:
    """base.json with ``field`` set to the raw JSON ``text`` (NaN, Infinity) everywhere."""
    return every_config(**{field: 424242.5}).replace("424242.5", text)


def case(id: str, old: str | None, new: str, code: int, says: str) -> Case:
    files = {"new.json": new} if old is None else {"old.json": old, "new.json": new}
    return Case(f"compare-{id}", ("compare", OLD if old is None else "old.json", "new.json"), code, says, files=files)


CASES = [
    # nothing in common: exit 1, never "0 compared" and exit 0
    case("other-clients", every_config(clients=4), every_config(clients=8), 1, "nothing compared"),
    case("other-rate", every_config(rate=100.0), every_config(rate=200.0), 1, "nothing compared"),
    case("frames-vs-server", None, every_config(clients=4), 1, "nothing compared"),
    case("server-vs-frames", every_config(clients=4), json.dumps(BASE), 1, "clients=4"),
    case("closed-vs-open-loop", every_config(clients=4), every_config(rate=50.0), 1, "rate=50"),
    case("other-devices", every_config(devices="0"), every_config(devices="0,1"), 1, "nothing compared"),
    case("other-deploy", every_config(deploy="threads"), every_config(deploy="processes"), 1, "nothing compared"),
    case("other-batch", None, every_config(batch=8), 1, "nothing compared"),
    # corrupt configurations: refused on load
    case("nan-rate", None, token("rate", "NaN"), 2, "finite number"),
    case("inf-rate", None, token("rate", "Infinity"), 2, "finite number"),
    case("zero-rate", None, every_config(rate=0), 2, "greater than 0"),
    case("negative-rate", None, every_config(rate=-5.0), 2, "greater than 0"),
    case("negative-clients", None, every_config(clients=-4), 2, "greater than or equal to 1"),
    case("zero-clients", None, every_config(clients=0), 2, "greater than or equal to 1"),
    case("fraction-clients", None, every_config(clients=2.5), 2, "clients"),
    case("clients-and-rate", None, every_config(clients=4, rate=100.0), 2, "one load, not both"),
    case("unknown-deploy", None, every_config(deploy="cluster"), 2, "'processes' or 'threads'"),
    case("devices-garbage", None, every_config(devices="0;rm -rf"), 2, "devices"),
    case("devices-empty", None, every_config(devices=""), 2, "devices"),
    case("zero-threads", None, every_config(threads=0), 2, "greater than or equal to 1"),
    case("negative-depth", None, every_config(depth=-8), 2, "greater than or equal to 1"),
    case("zero-sync-every", None, every_config(streams="per_thread", sync_every=0), 2, "greater than or equal to 1"),
    case("unknown-streams", None, every_config(streams="per_frame"), 2, "streams"),
]
CASES = with_processes(CASES, {"compare-other-clients", "compare-clients-and-rate"})


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_hostile_compare(c: Case, tmp_path: Path) -> None:
    run_and_check(c, tmp_path)
