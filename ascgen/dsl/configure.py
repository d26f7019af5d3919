"""A configuration applied to a spec: {threads, depth, batch, streams, sync_every} -> a new,
validated Spec. The one way ``ascgen bench`` (its points and their rooflines) and ``ascgen
build`` change a spec; the limits are the spec's own (ascgen.dsl.spec), read from its fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import get_args

import annotated_types
from pydantic import BaseModel, ValidationError

from ascgen.common.errors import UserError, shown
from ascgen.dsl.spec import Buffers, Spec, Streams

KEYS = ("threads", "depth", "batch", "streams", "sync_every", "submit")
STREAMS: tuple[str, ...] = get_args(Streams)
SUBMIT: tuple[str, ...] = get_args(Spec.model_fields["submit"].annotation)


def _maximum(model: type[BaseModel], field: str) -> int:
    """The ``le=`` bound of a numeric field of the DSL."""
    for bound in model.model_fields[field].metadata:
        if isinstance(bound, annotated_types.Le) and isinstance(bound.le, int):
            return bound.le
    raise LookupError(f"{model.__name__}.{field} has no upper bound")


# The largest value of each numeric key (the smallest is 1): the DSL's own limits.
LIMITS: dict[str, int] = {
    "threads": _maximum(Spec, "threads"),
    "depth": _maximum(Buffers, "depth"),
    "batch": _maximum(Spec, "batch"),
    "sync_every": _maximum(Spec, "sync_every"),
}


def check_value(key: str, value: object) -> None:
    """One line saying why ``key=value`` cannot configure a spec; nothing when it can."""
    if key not in KEYS:
        raise UserError(f"'{shown(key)}' is not a configuration key; use one of {', '.join(KEYS)}")
    if key == "streams":
        if value not in STREAMS:
            raise UserError(f"streams={shown(str(value))}: use {' or '.join(STREAMS)}")
        return
    if key == "submit":
        if value not in SUBMIT:
            raise UserError(f"submit={shown(str(value))}: use {' or '.join(SUBMIT)}")
        return
    if key == "sync_every" and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError(f"{key}={shown(str(value))}: not a whole number")
    if not 1 <= value <= LIMITS[key]:
        raise UserError(f"{key}={shown(str(value))}: must be 1..{LIMITS[key]}")


def configure(spec: Spec, overrides: Mapping[str, object]) -> Spec:
    """``spec`` with ``overrides`` applied and validated; ``sync_every`` is dropped where the
    streams are per_stage (it means nothing there)."""
    for key, value in overrides.items():
        check_value(key, value)
    data = spec.model_dump()
    for key, value in overrides.items():
        if key == "depth":
            data["buffers"] = {**data["buffers"], "depth": value}
        else:
            data[key] = value
    if data["source"]["kind"] == "video" and "threads" in overrides:
        data["source"]["streams"] = overrides["threads"]  # a video source runs a pipeline per stream
    if data["streams"] == "per_stage":
        data["sync_every"] = None
        data["submit"] = "by_frame"
    try:
        return Spec.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in err["loc"])
        raise UserError(f"the spec configured with {_label(overrides)} is not valid: {where}: {err['msg']}") from None


def _label(overrides: Mapping[str, object]) -> str:
    return " ".join(f"{key}={value}" for key, value in overrides.items())
