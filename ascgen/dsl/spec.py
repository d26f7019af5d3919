"""The pipeline DSL: what the user writes, as pydantic models.

Every model forbids unknown keys. Sizes are logical (what the user means); strides and
bytes are derived by the planner. Defaults are documented in README.md ("DSL reference").
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ascgen.dsl.batching import Batching
from ascgen.dsl.dsl_base import DslModel, Name, Streams
from ascgen.dsl.expect import Expect
from ascgen.dsl.sections import Buffers, Device, Host, Slo, Source
from ascgen.stages.registry import STAGE_KINDS, Stage

__all__ = ["STAGE_KINDS", "Batching", "Buffers", "Device", "Host", "Slo", "Source", "Spec", "Stage", "Streams"]


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
    expect: Expect | None = Field(
        default=None, description="graphs: the objects a frame holds, for the planner (docs/graphs.md)"
    )
    batching: Batching | None = Field(
        default=None, description="source kind requests: how requests are merged into batches (Triton's rule)"
    )

    @model_validator(mode="after")
    def _one_pipeline_per_stream(self) -> Spec:
        """A video source runs one pipeline (worker thread) per stream: threads = source.streams
        unless the spec says otherwise (the checks refuse a different number)."""
        if self.source.kind == "video" and "threads" not in self.model_fields_set:
            self.threads = self.source.streams or 1
            self.model_fields_set.discard("threads")
        return self

    @property
    def serving(self) -> bool:
        return self.source.kind == "requests"

    @property
    def frames_per_sync(self) -> int:
        return self.sync_every if self.sync_every is not None else 64
