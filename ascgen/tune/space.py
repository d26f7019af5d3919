"""``--space``: the values ``ascgen tune`` may give each configuration key.

    threads=1..16,depth=2..32,batch=1,2,4,8,16,32,streams=*,sync_every=16..256

``LO..HI`` is LO and its doublings up to HI (HI included: ``1..12`` is 1, 2, 4, 8, 12);
``LO..HI:STEP`` counts by STEP; ``streams=*`` is every stream layout. A comma separates
values; a new ``KEY=`` starts the next key. Keys not given keep the spec's own value.
Values are checked against the DSL's limits (ascgen.dsl.configure); errors are one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ascgen.bench.schema import DEVICE_KEYS, LOAD_KEYS, RUN_KEYS, Config
from ascgen.common.errors import UserError, shown
from ascgen.dsl.configure import LIMITS, STREAMS, check_value
from ascgen.dsl.diagnostics import did_you_mean

# What a bench point configures, threads .. sync_every. A server's load (clients, rate) is what
# the service is asked to carry and the devices are where it runs: `ascgen bench` sweeps them,
# they are not settings to tune.
KEYS: tuple[str, ...] = tuple(k for k in Config.model_fields if k not in (*LOAD_KEYS, *DEVICE_KEYS, *RUN_KEYS))
DEFAULT_SPACE = "threads=1..16,depth=2..32"
MAX_VALUES = 64  # per key: a range that expands further is almost surely a typo
RANGE = re.compile(r"^(?P<lo>[0-9]+)\.\.(?P<hi>[0-9]+)(?::(?P<step>[0-9]+))?$")
WHOLE = re.compile(r"^[0-9]+$")
MAX_DIGITS = 9  # of a number in --space: every limit (ascgen.dsl.configure.LIMITS) is far below


class BadSpace(UserError):
    """A --space that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Space:
    """The values of each key given, in ascending order (streams: as written)."""

    values: dict[str, tuple[int | str, ...]]

    def text(self) -> str:
        return ",".join(f"{key}={','.join(map(str, vals))}" for key, vals in self.values.items())


def _groups(text: str) -> list[tuple[str, list[str]]]:
    """``a=1,2,b=3`` -> [('a', ['1', '2']), ('b', ['3'])]."""
    groups: list[tuple[str, list[str]]] = []
    for raw in text.split(","):
        item = raw.strip()
        if "=" in item:
            key, _, first = item.partition("=")
            groups.append((key.strip().replace("-", "_"), [first.strip()] if first.strip() else []))
        elif not groups:
            raise BadSpace(f"--space '{shown(text)}': expected KEY=VALUES first, e.g. threads=1..16,depth=2..32")
        elif item:
            groups[-1][1].append(item)
    return groups


def _number(key: str, text: str, item: str) -> int:
    """A whole number of ``item`` within the DSL's limit of ``key``: checked on its digits first,
    so a 5,000-digit number is refused without being converted (and echoed cut)."""
    if len(text) > MAX_DIGITS:
        raise BadSpace(
            f"{key}={shown(item)}: a number of more than {MAX_DIGITS} digits; {key} is at most {LIMITS[key]}"
        )
    return int(text)


def _range(key: str, item: str) -> list[int]:
    """LO..HI (doubling) or LO..HI:STEP, bounded before it is expanded: both ends within the
    DSL's limit of ``key``, at most MAX_VALUES values."""
    m = RANGE.match(item)
    if not m:
        raise BadSpace(f"{key}={shown(item)}: expected a whole number, LO..HI (doubling) or LO..HI:STEP")
    lo, hi = _number(key, m["lo"], item), _number(key, m["hi"], item)
    step = None if m["step"] is None else _number(key, m["step"], item)
    if lo < 1 or lo > hi:
        raise BadSpace(f"{key}={shown(item)}: a range needs 1 <= LO <= HI")
    if step is not None and step < 1:
        raise BadSpace(f"{key}={shown(item)}: STEP must be at least 1")
    for end in (lo, hi):
        _check(key, end)
    if step is not None:
        count = (hi - lo) // step + 1
        if count > MAX_VALUES:
            raise BadSpace(
                f"{key}={shown(item)}: {count:,} values; at most {MAX_VALUES} (use a doubling range or a larger STEP)"
            )
        return list(range(lo, hi + 1, step))
    out = [lo]
    while out[-1] * 2 <= hi:
        out.append(out[-1] * 2)
    return out if out[-1] == hi else [*out, hi]


def _check(key: str, value: int | str) -> None:
    try:
        check_value(key, value)
    except UserError as exc:
        raise BadSpace(str(exc)) from None


def _values(key: str, items: list[str]) -> tuple[int | str, ...]:
    if key not in KEYS:
        raise BadSpace(f"'{shown(key)}' cannot be tuned{did_you_mean(key, KEYS)}; use {', '.join(KEYS)}")
    if not items:
        raise BadSpace(f"{key}=: give at least one value")
    values: list[int | str] = []
    for item in items:
        if key == "streams":
            values += list(STREAMS) if item == "*" else [item]
        elif WHOLE.match(item):
            values.append(_number(key, item, item))
        else:
            values += _range(key, item)
    for value in values:
        _check(key, value)
    unique = list(dict.fromkeys(values))
    if len(unique) > MAX_VALUES:
        raise BadSpace(f"{key}: {len(unique)} values; at most {MAX_VALUES} (use a doubling range or a larger STEP)")
    return tuple(unique) if key == "streams" else tuple(sorted(unique, key=int))


def parse_space(text: str) -> Space:
    """The --space text as a Space; one line naming the problem when it cannot be one."""
    out: dict[str, tuple[int | str, ...]] = {}
    for key, items in _groups(text):
        if key in out:
            raise BadSpace(f"{shown(key)} is given twice in --space; list all its values once")
        out[key] = _values(key, items)
    if not out:
        raise BadSpace("--space is empty; e.g. threads=1..16,depth=2..32")
    return Space(out)
