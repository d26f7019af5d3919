"""`expect:` what the planner cannot know from the spec alone: the objects a frame holds, which
sets a graph's fan-out (ascgen/plan/fanout.py). Without it, the planner counts them from the
inputs' ground truth where there is some, else takes the detections stage's max_objects."""

from __future__ import annotations

from pydantic import Field

from ascgen.dsl.dsl_base import DslModel


class Expect(DslModel):
    objects_per_frame: int = Field(
        ge=0, le=1024, description="objects a frame holds (a graph's crops and second-model work per frame)"
    )
