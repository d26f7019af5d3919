"""The DSL's building blocks, shared by the Spec (spec.py) and the stage kinds (stages/).

Every model forbids unknown keys and takes strict types. Sizes are logical (what the user
means); strides and bytes are derived by the planner.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from ascgen.dsl.names import CppName

_UNITS = {"": 1, "b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "kib": 1024, "mib": 1024**2, "gib": 1024**3}
_SIZE = re.compile(r"^\s*(\d+)\s*([kmg]i?b|b)?\s*$", re.IGNORECASE)


def _parse_bytes(value: object) -> object:
    """Accept 1048576, '1MiB', '75 KiB', '2MB'; anything else is left for pydantic to reject."""
    if isinstance(value, str):
        m = _SIZE.match(value)
        if not m:
            raise ValueError(f"'{value}' is not a size; write bytes (1048576) or units (1MiB, 75KiB)")
        return int(m.group(1)) * _UNITS[(m.group(2) or "").lower()]
    return value


Bytes = Annotated[int, BeforeValidator(_parse_bytes), Field(gt=0, le=1 << 40)]
Streams = Literal["per_stage", "per_thread"]  # the stream layouts; the one definition
Name = CppName  # ascgen/dsl/names.py: a C identifier, no C++ keyword, no name the generated code uses


class DslModel(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=False, strict=True)


class ProfileModel(BaseModel):
    """A device profile's sections (profile.py, links.py): unknown keys refused, values frozen
    (profiles are shared, cached objects); numbers not strict, as YAML figures may be ints."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Size(DslModel):
    width: int = Field(gt=0, le=65536, description="pixels")
    height: int = Field(gt=0, le=65536, description="pixels")


class Align(DslModel):
    """Tighter stride alignment than the profile's, in pixels (multiples of the profile's)."""

    width: int | None = Field(default=None, gt=0, le=4096)
    height: int | None = Field(default=None, gt=0, le=4096)


class Crop(DslModel):
    left: int = Field(ge=0, le=65536)
    top: int = Field(ge=0, le=65536)
    width: int = Field(gt=0, le=65536)
    height: int = Field(gt=0, le=65536)


class StageBase(DslModel):
    """What every stage has: a name (a C++ identifier), the stage it reads (by default the one
    before it) and an optional tighter alignment."""

    # `from` in YAML; written back as `from`, so a dumped stage validates again
    model_config = ConfigDict(**DslModel.model_config, serialize_by_alias=True)

    name: Name
    from_: Name | None = Field(
        default=None,
        alias="from",
        description="the stage whose output this stage reads (default: the stage written before it)",
    )
    align: Align | None = None
