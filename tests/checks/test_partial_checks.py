"""A spec that fails its schema still gets the semantic checks of its well-formed parts
(ascgen/checks/partial.py), and never a check that reads a broken part (no false errors)."""

from __future__ import annotations

import pytest
from test_checks import edit, without

from ascgen.dsl.diagnostics import SpecError
from ascgen.pipeline import analyze_text


def messages(text: str) -> list[str]:
    with pytest.raises(SpecError) as info:
        analyze_text(text)
    diags = info.value.sorted()
    lines = [f"{d.position.line}: {d.message}" for d in diags]
    assert len(set(lines)) == len(lines), "each diagnostic once"
    return lines


NO_FETCH = without("fetch")  # top5 straight after the model: a stage-order error at line 13


def test_unknown_top_level_key_with_stage_order_and_geometry_errors() -> None:
    text = edit("batch: 16\n", "batch: 16\nwarmup_s: 2\n", "width: 224, height", "width: 225, height", text=NO_FETCH)
    got = messages(text)
    assert any(m.startswith("8: unknown key 'warmup_s'") for m in got), got
    assert any(m.startswith("12: width 225 is not a multiple of 16") for m in got), got
    assert any(m.startswith("14: a topk stage cannot come after a model stage") for m in got), got


def test_a_broken_stage_keeps_its_kind_for_the_order_and_its_name_for_duplicates() -> None:
    text = edit("k: 5", "k: 0", "name: upload, kind: h2d", "name: resize, kind: h2d", text=NO_FETCH)
    got = messages(text)
    assert any(m.startswith("13: stage 'top5' k:") for m in got), got
    assert any(m.startswith("13: a topk stage cannot come after a model stage") for m in got), got
    assert any("duplicate stage name 'resize'" in m for m in got), got
    # a broken stage's own checks cannot be judged: no geometry check ran
    assert not any("multiple of" in m for m in got), got


def test_no_order_check_past_a_stage_of_unknown_kind() -> None:
    text = edit("kind: jpeg_decode", "kind: jpeg_decod", text=NO_FETCH)
    got = messages(text)
    assert len(got) == 1 and "unknown stage kind 'jpeg_decod'" in got[0], got


def test_order_is_still_judged_before_a_stage_of_unknown_kind() -> None:
    text = edit("kind: d2h}", "kind: d2x}", "name: resize, kind: vpc_resize", "name: resize, kind: topk, k: 5")
    text = text.replace(", out: {width: 224, height: 224}", "")
    got = messages(text)
    assert any(m.startswith("11: a topk stage cannot come after a jpeg_decode stage") for m in got), got
    assert any("unknown stage kind 'd2x'" in m for m in got), got


def test_checks_that_read_a_broken_key_do_not_run() -> None:
    # streams broken: its default (per_stage) would make sync_every an error; it must not be judged
    text = edit("streams: per_stage\n", "streams: per_thred\nsync_every: 32\n")
    got = messages(text)
    assert len(got) == 1 and "'per_thred' is not one of" in got[0], got
    # source broken: the stages' own checks (which read it) do not run, the structure's do
    text = edit("max_bytes: 1MiB", "max_bytes: lots", "width: 224, height", "width: 225, height", text=NO_FETCH)
    got = messages(text)
    assert any("'lots' is not a size" in m for m in got), got
    assert any("a topk stage cannot come after" in m for m in got), got
    assert not any("multiple of 16" in m for m in got), got


def test_an_unknown_profile_is_reported_with_the_schema_errors_and_stops_the_stage_checks() -> None:
    text = edit("profile: ascend310", "profile: ascend31", "threads: 4", "thread: 4", "height: 224}", "height: 225}")
    got = messages(text)
    assert any("unknown device profile 'ascend31'" in m for m in got), got
    assert any("unknown key 'thread'" in m for m in got), got
    assert not any("225" in m for m in got), got


def test_a_valid_spec_with_a_structure_error_still_gets_its_stages_checked() -> None:
    got = messages(edit("width: 224, height", "width: 225, height", text=NO_FETCH))
    assert any("a topk stage cannot come after a model stage" in m for m in got), got
    assert any("width 225 is not a multiple of 16" in m for m in got), got
