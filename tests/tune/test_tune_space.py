"""--space: ranges, lists, streams=*, and one-line errors; the grid and its neighbours."""

from __future__ import annotations

import pytest
from fakes import grid

from ascgen.bench.schema import Config
from ascgen.common.errors import UserError
from ascgen.tune.budget import parse_budget
from ascgen.tune.grid import Grid
from ascgen.tune.space import BadSpace, parse_space


def test_ranges_lists_and_star() -> None:
    space = parse_space("threads=1..16,depth=2..32,batch=1,2,4,streams=*,sync_every=16..64:16")
    assert space.values == {
        "threads": (1, 2, 4, 8, 16),
        "depth": (2, 4, 8, 16, 32),
        "batch": (1, 2, 4),
        "streams": ("per_stage", "per_thread"),
        "sync_every": (16, 32, 48, 64),
    }


def test_a_range_ends_at_its_top() -> None:
    assert parse_space("threads=1..12").values["threads"] == (1, 2, 4, 8, 12)
    assert parse_space("threads=3, 1 ,2").values["threads"] == (1, 2, 3)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1,2", "expected KEY=VALUES first"),
        (
            "thread=1..4",
            "'thread' cannot be tuned (did you mean 'threads'?); use threads, depth, batch, streams, sync_every",
        ),
        ("dept=2..8", "'dept' cannot be tuned (did you mean 'depth'?); use "),
        ("threads=", "threads=: give at least one value"),
        ("threads=8..2", "threads=8..2: a range needs 1 <= LO <= HI"),
        ("threads=1..x", "threads=1..x: expected a whole number, LO..HI (doubling) or LO..HI:STEP"),
        ("threads=0", "threads=0: must be 1..64"),
        ("threads=1..128", "threads=128: must be 1..64"),
        ("streams=sideways", "streams=sideways: use per_stage or per_thread"),
        ("threads=1,threads=2", "threads is given twice in --space"),
        ("depth=1..256:1", "depth=1..256:1: 256 values; at most 64"),
    ],
)
def test_errors_are_one_line(text: str, message: str) -> None:
    with pytest.raises(BadSpace) as err:
        parse_space(text)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_neighbours_move_one_key_one_step() -> None:
    g = grid(threads=(1, 2, 4), depth=(2, 4, 8))
    centre = Config(threads=2, depth=8, batch=16, streams="per_stage", sync_every=None)
    moves = {(c.threads, c.depth): why for c, why in g.neighbours(centre)}
    assert moves == {(1, 8): "threads 2->1", (4, 8): "threads 2->4", (2, 4): "depth 8->4"}
    assert len(g.points()) == 9


@pytest.mark.parametrize(("text", "seconds"), [("20m", 1200), ("90s", 90), ("1h30m", 5400), ("300", 300), ("1.5m", 90)])
def test_budget(text: str, seconds: float) -> None:
    assert parse_budget(text) == seconds


@pytest.mark.parametrize("text", ["", "ten minutes", "0s", "20x", "8d", "-5m"])
def test_bad_budget_is_one_line(text: str) -> None:
    with pytest.raises(UserError) as err:
        parse_budget(text)
    assert str(err.value).startswith(f"--budget {text}: ") and "\n" not in str(err.value)


def test_streams_and_sync_every_neighbours() -> None:
    g = Grid(
        {
            "threads": (2,),
            "depth": (8,),
            "batch": (16,),
            "streams": ("per_stage", "per_thread"),
            "sync_every": (32, 64, 128),
        },
        64,
        True,
        {"threads": 2, "depth": 8, "batch": 16, "streams": "per_stage", "sync_every": None},
    )
    assert len(g.points()) == 4  # per_stage once (sync_every means nothing there), per_thread x 3
    stage = Config(threads=2, depth=8, batch=16, streams="per_stage", sync_every=None)
    ((thread, why),) = g.neighbours(stage)
    assert (thread.streams, thread.sync_every, why) == ("per_thread", 64, "streams per_stage->per_thread")
    moves = {why for _, why in g.neighbours(thread)}
    assert moves == {"streams per_thread->per_stage", "sync_every 64->32", "sync_every 64->128"}


def test_untuned_sync_every_follows_the_batch() -> None:
    g = Grid(
        {"threads": (2,), "depth": (8,), "batch": (12, 16), "streams": ("per_thread",), "sync_every": (64,)},
        64,
        False,
        {"threads": 2, "depth": 8, "batch": 16, "streams": "per_thread", "sync_every": None},
    )
    assert sorted((c.batch, c.sync_every) for c in g.points()) == [(12, 60), (16, 64)]
