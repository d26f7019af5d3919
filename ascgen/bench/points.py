"""Sweeps: ``--sweep threads=1,2,4`` options -> the configurations to measure. Values are
checked against the DSL's own limits (ascgen.dsl.configure)."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from ascgen.bench.schema import DEVICE_KEYS, LOAD_KEYS, RUN_KEYS, Config
from ascgen.common.errors import UserError, shown
from ascgen.deploy.plan import device_ids
from ascgen.dsl import profile as profiles
from ascgen.dsl.configure import KEYS, LIMITS, check_value
from ascgen.dsl.diagnostics import did_you_mean
from ascgen.dsl.spec import Spec

SWEEPABLE = (*KEYS, *LOAD_KEYS, *DEVICE_KEYS, *RUN_KEYS)
MAX_CLIENTS = 4096  # the program's --clients limit (ascgen_options.h)
MIN_RATE, MAX_RATE = 1e-3, 1e7  # its --rate limits
WHOLE = re.compile(r"^[+-]?[0-9]+$")
MAX_CHARS = 24  # of one swept value: longer is no number any limit allows (never converted, echoed cut)
MAX_TIME_SCALE = 1000.0  # Config.time_scale's limit
ARRIVALS = ("constant", "poisson")  # the program's --arrival


class BadSweep(UserError):
    """A --sweep value that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Sweep:
    key: str
    values: tuple[int | float | str, ...]
    alias: str = ""  # the key as written when it means another (streams=1,4,8 of a video: threads)


def _whole(key: str, item: str, what: str) -> int:
    """A whole number written in ASCII digits (and a sign), at most MAX_CHARS of them."""
    if not WHOLE.match(item):
        raise BadSweep(f"{key}={shown(item)}: not {what}")
    if len(item) > MAX_CHARS:
        raise BadSweep(f"{key}={shown(item)}: a number of more than {MAX_CHARS} digits is beyond every limit")
    return int(item)


def _load_value(key: str, item: str) -> int | float:
    """A --sweep clients=/rate= value: a whole number of clients, or requests per second, within
    the program's own limits (a value it would refuse is refused here, before the build)."""
    try:
        if len(item) > MAX_CHARS:
            raise ValueError(item)
        value: int | float = int(item) if key == "clients" else float(item)
    except ValueError:
        raise BadSweep(f"{key}={shown(item)}: not a {'whole ' if key == 'clients' else ''}number") from None
    low, top = (1, MAX_CLIENTS) if key == "clients" else (MIN_RATE, MAX_RATE)
    if not low <= value <= top:  # NaN too
        raise BadSweep(f"{key}={shown(item)}: must be {low:g}..{top:g}")
    return value


def _device_value(key: str, item: str) -> int | str:
    """A --sweep devices= value (how many of the spec's devices) or deploy= (processes, threads)."""
    if key == "deploy":
        if item not in ("processes", "threads"):
            raise BadSweep(f"deploy={shown(item)}: use processes or threads")
        return item
    count = _whole(key, item, "a whole number of devices")
    if count < 1:
        raise BadSweep(f"devices={shown(item)}: must be 1 or more")
    return count


def _run_value(key: str, item: str) -> float | str:
    """A --sweep arrival= value (constant, poisson) or time_scale= (how many times slower the
    simulated device runs than the host)."""
    if key == "arrival":
        if item not in ARRIVALS:
            raise BadSweep(f"arrival={shown(item)}: use {' or '.join(ARRIVALS)}")
        return item
    try:
        if len(item) > MAX_CHARS:
            raise ValueError(item)
        value = float(item)
    except ValueError:
        raise BadSweep(f"time_scale={shown(item)}: not a number") from None
    if not 0 < value <= MAX_TIME_SCALE:  # NaN too
        raise BadSweep(f"time_scale={shown(item)}: must be above 0, at most {MAX_TIME_SCALE:g}")
    return value


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
        raise BadSweep(f"'{shown(text)}': expected KEY=V1,V2,... with KEY one of {', '.join(SWEEPABLE)}")
    if key not in SWEEPABLE:
        raise BadSweep(
            f"'{shown(key)}' cannot be swept{did_you_mean(key, SWEEPABLE)}; use one of {', '.join(SWEEPABLE)}"
        )
    items = [v.strip() for v in rest.split(",") if v.strip()]
    if key == "streams" and items and all(WHOLE.match(item) for item in items):
        # a video source's camera streams: one pipeline (thread) each, so they sweep threads
        return Sweep("threads", parse_sweep("threads=" + rest).values, alias="streams")
    values: list[int | float | str] = []
    for item in items:
        if key in LOAD_KEYS:
            values.append(_load_value(key, item))
            continue
        if key in DEVICE_KEYS:
            values.append(_device_value(key, item))
            continue
        if key in RUN_KEYS:
            values.append(_run_value(key, item))
            continue
        value: int | str = item
        if key != "streams":
            value = _whole(key, item, "a whole number")
        try:
            check_value(key, value)
        except UserError as exc:
            raise BadSweep(str(exc)) from None
        values.append(value)
    if len(set(values)) != len(values):
        raise BadSweep(f"{key}: a value is listed twice in '{shown(rest)}'")
    return Sweep(key, tuple(values))


Fixed = dict[str, int | float | str]  # --threads, --depth, --arrival, --time-scale as given


def check_sweeps(sweeps: list[Sweep], fixed: Fixed, serving: bool = False) -> None:
    """One --sweep per key, and no key both swept and fixed (--threads with --sweep threads);
    a load (clients, rate) and its arrivals only for a server, and one kind of load."""
    loads = [s.key for s in sweeps if s.key in LOAD_KEYS]
    if not serving and (loads or any(s.key == "arrival" for s in sweeps) or "arrival" in fixed):
        what = loads[0] if loads else "arrival"
        raise BadSweep(f"{what} is the load of a server: the spec needs source: {{kind: requests}}")
    if len(set(loads)) > 1:
        raise BadSweep("sweep clients (closed loop) or rate (open loop), not both")
    seen: set[str] = set()
    for sweep in sweeps:
        if sweep.key in seen:
            raise BadSweep(f"{sweep.key} is swept twice; give all its values in one --sweep")
        if sweep.key in fixed:
            raise BadSweep(f"{sweep.key} is both fixed (--{sweep.key.replace('_', '-')}) and swept; drop one")
        seen.add(sweep.key)


def configurations(spec: Spec, sweeps: list[Sweep], fixed: Fixed) -> list[Config]:
    """The cartesian product of the sweeps over the spec's own values (fixed flags win).

    ``sync_every`` means nothing to ``per_stage`` streams, so those points carry None and
    duplicates are dropped; the order is the order the sweeps were given in. A stream sync
    completes whole batches, so where ``batch`` is swept and ``sync_every`` comes from the
    spec, a per_thread point takes the nearest multiple of its batch (256 -> 252 at batch 14).
    """
    check_sweeps(sweeps, fixed, spec.serving)
    if any(s.alias == "streams" for s in sweeps) and spec.source.kind != "video":
        raise BadSweep(
            "streams=N sweeps the camera streams of a video source (source kind video); this spec's streams "
            "are its stream layout: streams=per_stage,per_thread"
        )
    chosen = {s.key for s in sweeps} | set(fixed)
    base: dict[str, int | float | str | None] = {
        "clients": None,
        "rate": None,
        "devices": None,
        "deploy": None,
        "arrival": None,
        "time_scale": None,
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
        if values["arrival"] is not None and values["rate"] is None:
            raise BadSweep(f"arrival={values['arrival']}: arrivals are an open loop's; give a rate (--sweep rate=...)")
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
