"""Sweeps: parsing, the cartesian product, and what needs a build."""

from __future__ import annotations

import pytest
from bench_helpers import SPEC

from ascgen.bench.points import (
    BadSweep,
    Sweep,
    configurations,
    parse_sweep,
    swept_keys,
    whole_batches,
)
from ascgen.bench.roofline import variant_config
from ascgen.dsl.parse import parse_file

spec = parse_file(SPEC)[0]


def test_parse_sweep() -> None:
    assert parse_sweep("threads=1,2,4") == Sweep("threads", (1, 2, 4))
    assert parse_sweep("streams=per_thread,per_stage") == Sweep("streams", ("per_thread", "per_stage"))
    assert parse_sweep("sync-every= 32, 64") == Sweep("sync_every", (32, 64))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("threads", "expected KEY=V1,V2"),
        ("thread=1,2", r"'thread' cannot be swept \(did you mean 'threads'\?\); use one of "),
        ("dept=2,4", r"'dept' cannot be swept \(did you mean 'depth'\?\)"),
        ("threads=1,x", "threads=x: not a whole number"),
        ("threads=0,2", "threads=0: must be 1..64"),
        ("batch=2000", "batch=2000: must be 1..1024"),
        ("streams=per_frame", "use per_stage or per_thread"),
        ("depth=2,2", "listed twice"),
    ],
)
def test_parse_sweep_refuses(text: str, message: str) -> None:
    with pytest.raises(BadSweep, match=message):
        parse_sweep(text)


def test_no_sweep_is_the_spec_itself() -> None:
    (config,) = configurations(spec, [], {})
    assert (config.threads, config.depth, config.batch, config.streams, config.sync_every) == (
        2,
        4,
        16,
        "per_stage",
        None,
    )


def test_fixed_flags_override_the_spec() -> None:
    (config,) = configurations(spec, [], {"threads": 6, "depth": 2})
    assert (config.threads, config.depth) == (6, 2)


def test_cartesian_product_in_the_order_given() -> None:
    configs = configurations(spec, [parse_sweep("threads=1,2,4"), parse_sweep("streams=per_thread,per_stage")], {})
    assert [(c.threads, c.streams) for c in configs] == [
        (1, "per_thread"),
        (1, "per_stage"),
        (2, "per_thread"),
        (2, "per_stage"),
        (4, "per_thread"),
        (4, "per_stage"),
    ]
    # per_thread takes the spec's default sync_every (64); per_stage has none.
    assert {c.sync_every for c in configs if c.streams == "per_thread"} == {64}
    assert {c.sync_every for c in configs if c.streams == "per_stage"} == {None}
    assert len({variant_config(spec, c) for c in configs}) == 2  # threads are a run-time flag


def test_sync_every_collapses_for_per_stage() -> None:
    configs = configurations(spec, [parse_sweep("streams=per_stage,per_thread"), parse_sweep("sync_every=16,64")], {})
    assert [(c.streams, c.sync_every) for c in configs] == [("per_stage", None), ("per_thread", 16), ("per_thread", 64)]


def test_spec_sync_every_follows_a_swept_batch_in_whole_batches() -> None:
    configs = configurations(spec, [parse_sweep("streams=per_thread"), parse_sweep("batch=1,14,16,24,1024")], {})
    assert [(c.batch, c.sync_every) for c in configs] == [(1, 64), (14, 70), (16, 64), (24, 72), (1024, 1024)]
    # a sync_every the user swept is taken as written (the planner then refuses 64 at batch 14)
    configs = configurations(
        spec, [parse_sweep("streams=per_thread"), parse_sweep("batch=14"), parse_sweep("sync_every=64")], {}
    )
    assert [(c.batch, c.sync_every) for c in configs] == [(14, 64)]
    assert [whole_batches(256, b) for b in (1, 14, 18, 20, 64, 300, 4096)] == [256, 252, 252, 260, 256, 300, 4096]


def test_swept_and_fixed_conflict() -> None:
    with pytest.raises(BadSweep, match="both fixed"):
        configurations(spec, [parse_sweep("threads=1,2")], {"threads": 4})
    with pytest.raises(BadSweep, match="swept twice"):
        configurations(spec, [parse_sweep("threads=1,2"), parse_sweep("threads=4")], {})


def test_a_variant_takes_the_built_in_keys_from_the_point_and_the_rest_from_the_spec() -> None:
    configs = configurations(spec, [parse_sweep("streams=per_thread"), parse_sweep("batch=1,16")], {"threads": 6})
    no_load = {"clients": None, "rate": None, "devices": None, "deploy": None, "arrival": None, "time_scale": None}
    assert [variant_config(spec, c).model_dump() for c in configs] == [
        {"threads": 2, "depth": 4, "batch": 1, "streams": "per_thread", "sync_every": 64, **no_load},
        {"threads": 2, "depth": 4, "batch": 16, "streams": "per_thread", "sync_every": 64, **no_load},
    ]


def test_swept_keys_only_those_that_vary() -> None:
    sweeps = [parse_sweep("depth=4"), parse_sweep("threads=1,2")]
    assert swept_keys(sweeps, configurations(spec, sweeps, {})) == ["threads"]
