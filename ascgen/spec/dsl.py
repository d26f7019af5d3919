"""The pipeline DSL: what the user writes, as pydantic models.

Every model forbids unknown keys. Sizes are logical (what the user means); strides and
bytes are derived by the planner. Defaults are documented in README.md ("DSL reference").
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ascgen.spec.batching import Batching
from ascgen.spec.dsl_base import Bytes, DslModel, Name, Streams
from ascgen.spec.names import ProfileName, SafePath
from ascgen.stages.registry import STAGE_KINDS, Stage

__all__ = ["STAGE_KINDS", "Batching", "Buffers", "Device", "Host", "Slo", "Source", "Spec", "Stage", "Streams"]


DeviceId = Annotated[int, Field(ge=0, le=63)]


class Device(DslModel):
    id: DeviceId = 0
    profile: ProfileName = "ascend310"
    ids: list[DeviceId] | Literal["all"] | None = Field(
        default=None,
        min_length=1,
        description="deploy over several devices: a list of ids, or all of the profile's topology",
    )
    deploy: Literal["processes", "threads"] = Field(
        default="processes",
        description="processes: one process per device (a parent starts them and merges their reports); "
        "threads: one process, a thread with its own context per device",
    )
    processes_per_device: int = Field(default=1, ge=1, le=16)


class Source(DslModel):
    kind: Literal["jpeg_files", "tensor", "requests"] = Field(
        description="jpeg_files: JPEG images from a file or folder; tensor: raw input bytes; requests: "
        "a service: clients send requests (JPEG images from `inputs`), see docs/serving.md"
    )
    path: SafePath | None = Field(default=None, description="file or folder read by the program")
    inputs: SafePath | None = Field(default=None, description="requests: the JPEG files the clients send")
    max_bytes: Bytes | None = Field(default=None, description="largest input file; default 1MiB")
    bytes: Bytes | None = Field(default=None, description="tensor size (kind: tensor)")
    typical_bytes: Bytes | None = Field(
        default=None, description="usual input size, for throughput prediction; default max_bytes"
    )
    format: Literal["jpeg", "raw"] = Field(
        default="jpeg",
        description="requests: what a request carries: a JPEG file, or (raw) a uint8 tensor of the model's "
        "hw_gears height and its own width, row after row (text lines; docs/serving.md)",
    )

    @property
    def data_kind(self) -> str:
        """What the first stage reads: a request carries a JPEG file, or a raw tensor."""
        if self.kind == "requests":
            return "tensor" if self.format == "raw" else "jpeg_files"
        return self.kind

    @property
    def files(self) -> str | None:
        """The file or folder the program reads its inputs from."""
        return self.inputs if self.kind == "requests" else self.path

    @property
    def files_key(self) -> str:
        return "inputs" if self.kind == "requests" else "path"


class Buffers(DslModel):
    depth: int = Field(default=4, ge=1, le=256, description="frames in flight per thread")
    per_stage: dict[str, Annotated[int, Field(ge=1, le=256)]] = Field(
        default_factory=dict, description="depth overrides by stage name"
    )


class Host(DslModel):
    affinity: Literal["big", "little", "all"] | list[Annotated[int, Field(ge=0, le=4095)]] = "all"
    numa: Literal["none", "device"] | Annotated[int, Field(ge=0, le=255)] = Field(
        default="none",
        description="bind each device's threads and pinned memory to its NUMA node (device), a node, or not",
    )


class Slo(DslModel):
    max_p99_ms: float | None = Field(default=None, gt=0)
    min_qps: float | None = Field(default=None, gt=0)


class Spec(DslModel):
    """An inference pipeline: stages run in order for every frame, on every thread."""

    name: Name
    device: Device = Field(default_factory=Device)
    source: Source
    threads: int = Field(default=1, ge=1, le=64, description="host threads, each its own pipeline")
    streams: Streams = "per_stage"
    submit: Literal["by_frame", "by_step"] = Field(
        default="by_frame",
        description="per_thread: submit each frame through every step (by_frame), or each step for "
        "the whole sync window (by_step: all copies, then all decodes, ..., as the study's program did)",
    )
    sync_every: int | None = Field(
        default=None, ge=1, le=4096, description="frames per aclrtSynchronizeStream (per_thread)"
    )
    buffers: Buffers = Field(default_factory=Buffers)
    batch: int = Field(default=1, ge=1, le=1024)
    stages: list[Stage] = Field(min_length=1)
    host: Host = Field(default_factory=Host)
    slo: Slo | None = None
    batching: Batching | None = Field(
        default=None, description="source kind requests: how requests are merged into batches (Triton's rule)"
    )

    @property
    def serving(self) -> bool:
        return self.source.kind == "requests"

    @property
    def frames_per_sync(self) -> int:
        return self.sync_every if self.sync_every is not None else 64
