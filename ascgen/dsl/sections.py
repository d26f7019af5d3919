"""The sections of a spec besides its stages: the device, the source, buffers, host, SLO.

They live apart from ascgen.dsl.spec (the Spec, whose `stages:` are the kinds' schemas) so that a
stage kind can read them without importing the list of kinds.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ascgen.dsl.dsl_base import Bytes, DslModel
from ascgen.dsl.names import ProfileName, SafePath

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


VIDEO_KEYS = ("codec", "streams", "fps", "loop", "pace", "late")
# What a video source is when the spec does not say (README, DSL reference)
VIDEO_DEFAULTS: dict[str, object] = {
    "codec": "h264",
    "streams": 1,
    "fps": 30.0,
    "loop": True,
    "pace": "realtime",
    "late": "drop",
}


class Source(DslModel):
    kind: Literal["jpeg_files", "tensor", "requests", "video"] = Field(
        description="jpeg_files: JPEG images from a file or folder; tensor: raw input bytes; requests: "
        "a service: clients send requests (JPEG images from `inputs`), see docs/serving.md; video: "
        "`streams` cameras playing an H.264/H.265 Annex-B elementary stream (docs/video.md)"
    )
    path: SafePath | None = Field(default=None, description="file or folder read by the program")
    inputs: SafePath | None = Field(default=None, description="requests: the JPEG files the clients send")
    max_bytes: Bytes | None = Field(default=None, description="largest input file; default 1MiB")
    bytes: Bytes | None = Field(default=None, description="tensor size (kind: tensor)")
    typical_bytes: Bytes | None = Field(
        default=None, description="usual input size, for throughput prediction; default max_bytes"
    )
    codec: Literal["h264", "h265"] | None = Field(default=None, description="video: the stream's codec")
    streams: int | None = Field(default=None, ge=1, le=256, description="video: cameras, one VDEC channel each")
    fps: float | None = Field(default=None, gt=0, le=240, description="video: frames per second of each stream")
    loop: bool | None = Field(default=None, description="video: replay the file when it ends (default true)")
    pace: Literal["realtime", "asap"] | None = Field(
        default=None,
        description="video: realtime sends each frame at its presentation time, as a camera does (default); "
        "asap sends as fast as the decoder takes them",
    )
    late: Literal["drop", "queue"] | None = Field(
        default=None,
        description="video, pace realtime: a frame whose time has passed before it could be sent is dropped "
        "(default, as a camera's), or queued and sent late",
    )
    format: Literal["jpeg", "raw"] = Field(
        default="jpeg",
        description="requests: what a request carries: a JPEG file, or (raw) a uint8 tensor of the model's "
        "hw_gears height and its own width, row after row (text lines; docs/serving.md)",
    )

    @property
    def video_keys(self) -> list[str]:
        """The keys of a video source given in the spec (for the checks: other sources refuse them)."""
        return [k for k in VIDEO_KEYS if getattr(self, k) is not None]

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
