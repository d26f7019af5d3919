"""The pipeline DSL: what the user writes, as pydantic models.

Every model forbids unknown keys. Sizes are logical (what the user means); strides and
bytes are derived by the planner. Defaults are documented in README.md ("DSL reference").
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

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


Bytes = Annotated[int, BeforeValidator(_parse_bytes), Field(gt=0)]
Name = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=48)]


Streams = Literal["per_stage", "per_thread"]  # the stream layouts; the one definition


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=False, strict=True)


class Size(_Model):
    width: int = Field(gt=0, le=65536, description="pixels")
    height: int = Field(gt=0, le=65536, description="pixels")


class Align(_Model):
    """Tighter stride alignment than the profile's, in pixels (multiples of the profile's)."""

    width: int | None = Field(default=None, gt=0, le=4096)
    height: int | None = Field(default=None, gt=0, le=4096)


class Crop(_Model):
    left: int = Field(ge=0)
    top: int = Field(ge=0)
    width: int = Field(gt=0)
    height: int = Field(gt=0)


class Device(_Model):
    id: int = Field(default=0, ge=0, le=63)
    profile: str = "ascend310"


class Source(_Model):
    kind: Literal["jpeg_files", "tensor"] = Field(
        description="jpeg_files: JPEG images from a file or folder; tensor: raw input bytes"
    )
    path: str | None = Field(default=None, description="file or folder read by the program")
    max_bytes: Bytes | None = Field(default=None, description="largest input file; default 1MiB")
    bytes: Bytes | None = Field(default=None, description="tensor size (kind: tensor)")
    typical_bytes: Bytes | None = Field(
        default=None, description="usual input size, for throughput prediction; default max_bytes"
    )


class Buffers(_Model):
    depth: int = Field(default=4, ge=1, le=256, description="frames in flight per thread")
    per_stage: dict[str, Annotated[int, Field(ge=1, le=256)]] = Field(
        default_factory=dict, description="depth overrides by stage name"
    )


class Host(_Model):
    affinity: Literal["big", "little", "all"] | list[Annotated[int, Field(ge=0, le=4095)]] = "all"


class Slo(_Model):
    max_p99_ms: float | None = Field(default=None, gt=0)
    min_qps: float | None = Field(default=None, gt=0)


class _Stage(_Model):
    name: Name
    align: Align | None = None


class H2dStage(_Stage):
    kind: Literal["h2d"]
    bytes: Bytes | None = Field(default=None, description="bytes per copy; default from source")


class JpegDecodeStage(_Stage):
    kind: Literal["jpeg_decode"]
    max: Size = Field(description="largest picture decoded; sizes the output buffers")
    format: Literal["nv12", "nv21"] = "nv12"


class VpcResizeStage(_Stage):
    kind: Literal["vpc_resize"]
    out: Size
    crop: Crop | None = None
    format: Literal["nv12", "nv21"] = "nv12"
    interpolation: Literal["default", "bilinear", "nearest"] = "bilinear"


class ModelStage(_Stage):
    kind: Literal["model"]
    path: str = Field(description="the .om file (a descriptor is generated beside it for the simulator)")
    reference: str | None = Field(default=None, description="a model measured in the profile")
    latency_ms: Annotated[float, Field(gt=0)] | dict[int, Annotated[float, Field(gt=0)]] | None = Field(
        default=None, description="ms per execution at the spec's batch, or a table by batch"
    )
    input_bytes: Bytes | None = Field(default=None, description="whole input at the spec's batch")
    output_bytes: Bytes | None = Field(default=None, description="whole output at the spec's batch")
    memory_bytes: Bytes | None = Field(default=None, description="weights + workspace per instance")
    instances: Literal["per_thread", "shared"] = "per_thread"

    @model_validator(mode="after")
    def _timed(self) -> ModelStage:
        if self.reference is None and self.latency_ms is None:
            raise ValueError("give 'reference' (a model of the profile) or 'latency_ms'")
        return self


class D2hStage(_Stage):
    kind: Literal["d2h"]


class TopkStage(_Stage):
    kind: Literal["topk"]
    k: int = Field(default=5, ge=1, le=1000)


Stage = Annotated[
    H2dStage | JpegDecodeStage | VpcResizeStage | ModelStage | D2hStage | TopkStage,
    Field(discriminator="kind"),
]
STAGE_KINDS = ("h2d", "jpeg_decode", "vpc_resize", "model", "d2h", "topk")


class Spec(_Model):
    """An inference pipeline: stages run in order for every frame, on every thread."""

    name: Name
    device: Device = Field(default_factory=Device)
    source: Source
    threads: int = Field(default=1, ge=1, le=64, description="host threads, each its own pipeline")
    streams: Streams = "per_stage"
    sync_every: int | None = Field(
        default=None, ge=1, le=4096, description="frames per aclrtSynchronizeStream (per_thread)"
    )
    buffers: Buffers = Field(default_factory=Buffers)
    batch: int = Field(default=1, ge=1, le=1024)
    stages: list[Stage] = Field(min_length=1)
    host: Host = Field(default_factory=Host)
    slo: Slo | None = None

    @property
    def frames_per_sync(self) -> int:
        return self.sync_every if self.sync_every is not None else 64
