"""One way to apply a configuration to a spec (ascgen.dsl.configure), used by build and bench."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ascgen.bench import points
from ascgen.common.errors import UserError
from ascgen.dsl.configure import LIMITS, configure
from ascgen.dsl.parse import parse_file
from ascgen.dsl.spec import Spec

SEED = Path(__file__).resolve().parents[2] / "pipelines" / "resnet50_b16.yaml"
spec = parse_file(SEED)[0]


def test_each_key_lands_where_the_spec_keeps_it() -> None:
    out = configure(spec, {"threads": 1, "depth": 2, "batch": 8, "streams": "per_thread", "sync_every": 32})
    assert (out.threads, out.buffers.depth, out.batch, out.streams, out.sync_every) == (1, 2, 8, "per_thread", 32)
    assert out.stages == spec.stages and out.buffers.per_stage == spec.buffers.per_stage
    assert (spec.threads, spec.batch) == (4, 16)  # the spec itself is left as it was


def test_sync_every_means_nothing_to_per_stage_streams() -> None:
    per_thread = configure(spec, {"streams": "per_thread", "sync_every": 32})
    assert configure(per_thread, {"streams": "per_stage"}).sync_every is None


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"threads": 0}, "threads=0: must be 1..64"),
        ({"depth": 257}, "depth=257: must be 1..256"),
        ({"batch": "8"}, "batch=8: not a whole number"),
        ({"streams": "per_frame"}, "streams=per_frame: use per_stage or per_thread"),
        (
            {"thread": 2},
            "'thread' is not a configuration key; use one of threads, depth, batch, streams, sync_every, submit",
        ),
    ],
)
def test_a_bad_value_is_one_clear_user_error(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(UserError) as err:
        configure(spec, overrides)
    assert str(err.value) == message


def test_the_limits_are_the_dsl_s_own() -> None:
    fields = Spec.model_json_schema()
    assert LIMITS["threads"] == fields["properties"]["threads"]["maximum"]
    assert LIMITS["batch"] == fields["properties"]["batch"]["maximum"]
    assert LIMITS["depth"] == fields["$defs"]["Buffers"]["properties"]["depth"]["maximum"]
    assert points.LIMITS is LIMITS  # sweeps check the same numbers


def test_the_program_s_flags_take_the_same_limits() -> None:
    """The generated program's --threads and --depth (templates/runtime/ascgen_options.cpp) refuse
    what the DSL refuses; the DSL is the one definition, this keeps the C++ copy honest."""
    host = (SEED.parents[1] / "templates" / "runtime" / "ascgen_options.cpp").read_text(encoding="utf-8")
    for flag in ("threads", "depth"):
        line = next(line for line in host.splitlines() if f'"--{flag}"' in line and re.search(r"\b1, \d+", line))
        assert int(re.search(r"\b1, (\d+)", line)[1]) == LIMITS[flag], line  # type: ignore[index]
