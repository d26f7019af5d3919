"""The points of a tune: every combination of the space's values over the spec's own, and
the neighbours of a point (one key moved one step along its values).

As in ``ascgen bench --sweep``: ``sync_every`` means nothing to per_stage streams (None);
a per_thread point whose ``sync_every`` is not tuned takes the spec's, rounded to whole
batches (ascgen.bench.points.whole_batches).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from ascgen.bench.points import whole_batches
from ascgen.bench.schema import Config
from ascgen.common.errors import UserError
from ascgen.dsl.spec import Spec
from ascgen.tune.space import KEYS, Space

MAX_POINTS = 5000  # each is planned (about 10 ms) before anything is measured

Value = int | str


@dataclass(frozen=True)
class Grid:
    axes: dict[str, tuple[Value, ...]]  # every key; sync_every: the per_thread values
    spec_sync: int  # the spec's frames per sync, for per_thread points when sync_every is not tuned
    sync_tuned: bool
    home: dict[str, Value | None]  # the spec's own values
    time_scale: float | None = None  # every point's runs on a simulated clock this many times slower

    def point(self, values: dict[str, Value | None]) -> Config:
        """A Config from raw values, with sync_every made consistent with the streams."""
        v: dict[str, Value | float | None] = {"time_scale": self.time_scale, **values}
        if v["streams"] == "per_stage":
            v["sync_every"] = None
        elif not self.sync_tuned:
            v["sync_every"] = whole_batches(self.spec_sync, int(v["batch"] or 1))
        elif v["sync_every"] is None:
            v["sync_every"] = min(self.axes["sync_every"], key=lambda s: abs(int(s) - self.spec_sync))
        return Config.model_validate(v)

    def points(self) -> list[Config]:
        out = dict.fromkeys(
            self.point(dict(zip(KEYS, combo, strict=True))) for combo in itertools.product(*self.axes.values())
        )
        return list(out)

    def distance_home(self, config: Config) -> int:
        """Steps from the spec's own values, summed over the keys (a tie-break for guesses)."""
        return sum(abs(self._position(key, getattr(config, key)) - self._position(key, self.home[key])) for key in KEYS)

    def _position(self, key: str, value: Value | None) -> int:
        values = self.axes[key]
        if value in values:
            return values.index(value)
        if value is None or isinstance(value, str):
            return 0
        return min(range(len(values)), key=lambda i: abs(int(values[i]) - value))

    def neighbours(self, config: Config) -> list[tuple[Config, str]]:
        """The points one step away along one key, with what changed ("depth 8->16")."""
        out: list[tuple[Config, str]] = []
        for key, values in self.axes.items():
            now = getattr(config, key)
            if len(values) < 2 or (key == "sync_every" and now is None):
                continue
            i = values.index(now) if now in values else None
            steps = [values[j] for j in (i - 1, i + 1) if 0 <= j < len(values)] if i is not None else values
            for value in steps:
                moved = self.point({**config.model_dump(), key: value})
                if moved != config:
                    out.append((moved, f"{key} {now}->{value}"))
        return out


def make_grid(spec: Spec, space: Space, time_scale: float | None = None) -> Grid:
    """The spec's own value for each key the space leaves out; the space's otherwise; every
    point run on the simulator's clock slowed by ``time_scale`` (ascgen.bench's Config)."""
    own: dict[str, Value | None] = {
        "threads": spec.threads,
        "depth": spec.buffers.depth,
        "batch": spec.batch,
        "streams": spec.streams,
        "sync_every": spec.sync_every,
    }
    axes: dict[str, tuple[Value, ...]] = {}
    for key in KEYS:
        given = space.values.get(key)
        value = own[key]
        axes[key] = given if given else ((value,) if value is not None else (spec.frames_per_sync,))
    grid = Grid(axes, spec.frames_per_sync, "sync_every" in space.values, own, time_scale)
    count = 1
    for values in axes.values():
        count *= len(values)
    if count > MAX_POINTS:
        raise UserError(f"the space holds {count:,} points; at most {MAX_POINTS:,}: give fewer values in --space")
    return grid
