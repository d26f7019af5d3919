"""The winning spec is the user's text with the tuned values in place: comments and layout
kept, missing keys added, sync_every dropped for per_stage streams, and it reads back."""

from __future__ import annotations

import pytest
from specs import SEED_SPEC

from ascgen.bench.schema import Config
from ascgen.common.errors import InternalError
from ascgen.dsl.parse import parse_text
from ascgen.tune.spec_edit import tuned_text

SEED = (  # the seed spec as a user keeps it: comments to keep
    "# yaml-language-server: $schema=ascgen.schema.json\n# The seed workload.\n"
    + SEED_SPEC.replace("threads: 4\n", "threads: 4                         # host threads\n").replace(
        "buffers: {depth: 8}\n", "buffers: {depth: 8}                # frames in flight per thread\n"
    )
)


def tune(text: str, config: Config, note: tuple[str, ...] = ("found by a test",)) -> str:
    spec, smap = parse_text(text, "spec.yaml")
    return tuned_text(text, smap, spec, config, list(note))


def point(**values: object) -> Config:
    base: dict[str, object] = {"threads": 4, "depth": 8, "batch": 16, "streams": "per_stage", "sync_every": None}
    return Config.model_validate({**base, **values})


def test_values_are_replaced_in_place_keeping_comments() -> None:
    out = tune(SEED, point(threads=2, depth=16))
    assert "threads: 2                         # host threads\n" in out
    assert "buffers: {depth: 16}                # frames in flight per thread\n" in out
    assert out.startswith("# yaml-language-server: $schema=ascgen.schema.json\n# The seed workload.\n")
    assert "# ascgen tune: found by a test\nname: resnet50_b16\n" in out
    assert len(out.splitlines()) == len(SEED.splitlines()) + 1


def test_unchanged_config_changes_only_the_note() -> None:
    out = tune(SEED, point())
    assert out.replace("# ascgen tune: found by a test\n", "") == SEED


def test_tuning_again_replaces_the_earlier_note() -> None:
    once = tune(SEED, point(threads=2), ("first",))
    twice = tune(once, point(threads=3), ("second",))
    assert "first" not in twice and "# ascgen tune: second\n" in twice


def test_missing_keys_are_added_before_stages() -> None:
    text = SEED.replace("buffers: {depth: 8}                # frames in flight per thread\n", "")
    text = text.replace("threads: 4                         # host threads\n", "")
    out = tune(text, point(threads=3, depth=2, streams="per_thread", sync_every=64))
    assert "streams: per_thread\n" in out
    assert "threads: 3\nbuffers: {depth: 2}\nstages:\n" in out


def test_depth_is_added_to_an_existing_buffers_mapping() -> None:
    flow = SEED.replace("buffers: {depth: 8}", "buffers: {per_stage: {decode: 4}}")
    assert "buffers: {depth: 2, per_stage: {decode: 4}}" in tune(flow, point(depth=2))
    block = SEED.replace(
        "buffers: {depth: 8}                # frames in flight per thread\n", "buffers:\n  per_stage:\n    decode: 4\n"
    )
    assert "buffers:\n  depth: 2\n  per_stage:\n" in tune(block, point(depth=2))


def test_sync_every_is_written_for_per_thread_and_dropped_for_per_stage() -> None:
    out = tune(SEED, point(streams="per_thread", sync_every=32))
    assert "streams: per_thread\n" in out and "sync_every: 32\nstages:" in out
    back = tune(out, point(streams="per_stage"))
    assert "sync_every" not in back and "streams: per_stage\n" in back


def test_quoted_values_are_replaced_whole() -> None:
    out = tune(SEED.replace("streams: per_stage", 'streams: "per_stage"'), point(streams="per_thread", sync_every=64))
    assert "streams: per_thread\n" in out


def test_a_config_the_spec_refuses_is_never_written() -> None:
    with pytest.raises(InternalError):
        tune(SEED, point(batch=16, streams="per_thread", sync_every=24))  # not a multiple of the batch
