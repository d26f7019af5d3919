"""The stream layouts, as IR drivers: which stream each stage's work goes to, and which C++
policy of ascgen_layouts.h submits and completes frames. The events between streams are the
Plan's (plan_dataflow.py): per_thread has none."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Layout:
    name: str
    driver: str  # the C++ policy in ascgen_layouts.h

    def stream_of(self, stage: str) -> str:
        raise NotImplementedError

    def channel_of(self, owner: str) -> str:
        """The DVPP channel of the stream whose first stage is ``owner``."""
        raise NotImplementedError


class PerStage(Layout):
    """One stream per device stage of each worker, chained by events."""

    def stream_of(self, stage: str) -> str:
        return f"{stage}_stream"

    def channel_of(self, owner: str) -> str:
        return f"{owner}_channel"


class PerThread(Layout):
    """One stream per worker carries every step; the worker syncs it once per window."""

    def stream_of(self, stage: str) -> str:
        return "stream"

    def channel_of(self, owner: str) -> str:
        return "channel"


LAYOUTS: dict[tuple[str, str], Layout] = {  # by (streams, submit)
    ("per_stage", "by_frame"): PerStage("per_stage", "ascgen::PerStageLayout"),
    ("per_thread", "by_frame"): PerThread("per_thread", "ascgen::PerThreadLayout"),
    ("per_thread", "by_step"): PerThread("per_thread", "ascgen::PerThreadByStepLayout"),
}
