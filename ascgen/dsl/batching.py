"""The DSL of a service's dynamic batching: Triton's ``dynamic_batching`` and
``ModelQueuePolicy`` in ascgen's words (docs/serving.md has the rule)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ascgen.dsl.dsl_base import DslModel

MAX_DURATION_US = 10**12  # templates/runtime/ascgen_batcher.h: kMaxDurationUs


class QueuePolicy(DslModel):
    """Triton's ModelQueuePolicy, for every priority level."""

    max_size: int = Field(default=0, ge=0, le=1 << 24, description="queued requests per level; 0: unbounded")
    timeout_us: int = Field(default=0, ge=0, le=MAX_DURATION_US, description="0: no timeout")
    action: Literal["reject", "delay"] = Field(
        default="reject", description="a timed-out request: rejected, or served after its level's live requests"
    )


class Batching(DslModel):
    """How queued requests become batches: the largest preferred size reachable now, else wait
    while the oldest is younger than max_queue_delay_us, then send what is there."""

    max_batch: int = Field(ge=1, le=1024, description="requests per batch at most (the model's batch pads the rest)")
    preferred: list[Annotated[int, Field(ge=1, le=1024)]] = Field(
        default_factory=list, description="batch sizes sent as soon as they are reachable"
    )
    max_queue_delay_us: int = Field(default=0, ge=0, le=MAX_DURATION_US, description="0: never wait for more")
    queue: QueuePolicy = Field(default_factory=QueuePolicy)
    priorities: int = Field(default=1, ge=1, le=16, description="priority levels (level 0 first)")
