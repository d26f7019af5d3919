"""Sweeps: ``--sweep threads=1,2,4`` options -> the configurations to measure. Values are
checked against the DSL's own limits (ascgen.spec.configure)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from ascgen.bench.schema import DEVICE_KEYS, LOAD_KEYS, Config
from ascgen.common.errors import UserError
from ascgen.deploy.plan import device_ids
from ascgen.spec import profile as profiles
from ascgen.spec.configure import KEYS, LIMITS, check_value
from ascgen.spec.diagnostics import did_you_mean
from ascgen.spec.dsl import Spec

SWEEPABLE = (*KEYS, *LOAD_KEYS, *DEVICE_KEYS)
MAX_CLIENTS = 4096  # the program's --clients limit (ascgen_options.h)
MAX_RATE = 1e7  # its --rate limit


class BadSweep(UserError):
    """A --sweep value that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Sweep:
    key: str
    values: tuple[int | float | str, ...]


def _load_value(key: str, item: str) -> int | float:
    """A --sweep clients=/rate= value: a whole number of clients, or requests per second."""
    try:
        value: int | float = int(item) if key == "clients" else float(item)
    except ValueError:
        raise BadSweep(f"{key}={item}: not a {'whole ' if key == 'clients' else ''}number") from None
    top = MAX_CLIENTS if key == "clients" else MAX_RATE
    if not 0 < value <= top or value != value:
        raise BadSweep(f"{key}={item}: must be {'1' if key == 'clients' else 'above 0'}..{top:g}")
    return value


def _device_value(key: str, item: str) -> int | str:
    """A --sweep devices= value (how many of the spec's devices) or deploy= (processes, threads)."""
    if key == "deploy":
        if item not in ("processes", "threads"):
            raise BadSweep(f"deploy={item}: use processes or threads")
        return item
    try:
        count = int(item)
    except ValueError:
        raise BadSweep(f"devices={item}: not a whole number of devices") from None
    if count < 1:
        raise BadSweep(f"devices={item}: must be 1 or more")
    return count


def _devices_of(spec: Spec, count: int) -> str:
    """The first ``count`` of the spec's devices, as --devices takes them."""
    ids = device_ids(spec, profiles.load(spec.device.profile))
    if count > len(ids):
        raise BadSweep(f"devices={count}: the spec runs on {len(ids)} device(s); give it more with device.ids")
    return ",".join(str(d) for d in ids[:count])


def parse_sweep(text: str) -> Sweep:
    """``threads=1,2,4`` -> Sweep('threads', (1, 2, 4)); ``streams=per_thread,per_stage``."""
    key, sep, rest = text.partition("=")
    key = key.strip().replace("-", "_")
    if not sep or not rest.strip():
        raise BadSweep(f"'{text}': expected KEY=V1,V2,... with KEY one of {', '.join(SWEEPABLE)}")
    if key not in SWEEPABLE:
        raise BadSweep(f"'{key}' cannot be swept{did_you_mean(key, SWEEPABLE)}; use one of {', '.join(SWEEPABLE)}")
    items = [v.strip() for v in rest.split(",") if v.strip()]
    values: list[int | float | str] = []
    for item in items:
        if key in LOAD_KEYS:
            values.append(_load_value(key, item))
            continue
        if key in DEVICE_KEYS:
            values.append(_device_value(key, item))
            continue
        value: int | str = item
        if key != "streams":
            try:
                value = int(item)
            except ValueError:
                raise BadSweep(f"{key}={item}: not a whole number") from None
        try:
            check_value(key, value)
        except UserError as exc:
            raise BadSweep(str(exc)) from None
        values.append(value)
    if len(set(values)) != len(values):
        raise BadSweep(f"{key}: a value is listed twice in '{rest}'")
    return Sweep(key, tuple(values))


def check_sweeps(sweeps: list[Sweep], fixed: dict[str, int], serving: bool = False) -> None:
    """One --sweep per key, and no key both swept and fixed (--threads with --sweep threads);
    a load (clients, rate) only for a server, and one kind of load."""
    loads = [s.key for s in sweeps if s.key in LOAD_KEYS]
    if loads and not serving:
        raise BadSweep(f"{loads[0]} is the load of a server: the spec needs source: {{kind: requests}}")
    if len(set(loads)) > 1:
        raise BadSweep("sweep clients (closed loop) or rate (open loop), not both")
    seen: set[str] = set()
    for sweep in sweeps:
        if sweep.key in seen:
            raise BadSweep(f"{sweep.key} is swept twice; give all its values in one --sweep")
        if sweep.key in fixed:
            raise BadSweep(f"{sweep.key} is both fixed (--{sweep.key}) and swept; drop one")
        seen.add(sweep.key)


def configurations(spec: Spec, sweeps: list[Sweep], fixed: dict[str, int]) -> list[Config]:
    """The cartesian product of the sweeps over the spec's own values (fixed flags win).

    ``sync_every`` means nothing to ``per_stage`` streams, so those points carry None and
    duplicates are dropped; the order is the order the sweeps were given in. A stream sync
    completes whole batches, so where ``batch`` is swept and ``sync_every`` comes from the
    spec, a per_thread point takes the nearest multiple of its batch (256 -> 252 at batch 14).
    """
    check_sweeps(sweeps, fixed, spec.serving)
    chosen = {s.key for s in sweeps} | set(fixed)
    base: dict[str, int | float | str | None] = {
        "clients": None,
        "rate": None,
        "devices": None,
        "deploy": None,
        "threads": spec.threads,
        "depth": spec.buffers.depth,
        "batch": spec.batch,
        "streams": spec.streams,
        "sync_every": spec.sync_every,
        **fixed,
    }
    out: list[Config] = []
    for combo in itertools.product(*(s.values for s in sweeps)):
        values = dict(base)
        values.update(zip((s.key for s in sweeps), combo, strict=True))
        if values["devices"] is not None:
            values["devices"] = _devices_of(spec, int(values["devices"]))
        if values["streams"] == "per_stage":
            values["sync_every"] = None
        elif values["sync_every"] is None:
            values["sync_every"] = spec.frames_per_sync
        if values["streams"] == "per_thread" and "sync_every" not in chosen:
            values["sync_every"] = whole_batches(int(values["sync_every"] or 0), int(values["batch"] or 1))
        config = Config.model_validate(values)
        if config not in out:
            out.append(config)
    return out


def whole_batches(frames: int, batch: int) -> int:
    """The multiple of ``batch`` nearest to ``frames`` (at least one batch, at most the limit)."""
    most = LIMITS["sync_every"] // batch * batch
    return min(max(batch, round(frames / batch) * batch), most)


def swept_keys(sweeps: list[Sweep], configs: list[Config]) -> list[str]:
    """The keys that take more than one value among the configurations, in the sweeps' order."""
    return [s.key for s in sweeps if len({getattr(c, s.key) for c in configs}) > 1]
