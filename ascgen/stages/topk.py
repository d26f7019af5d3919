"""topk: the k best scores of each frame, on the host, after the results are back."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ascgen.dsl.dsl_base import StageBase
from ascgen.plan.geometry import Geometry
from ascgen.plan.model import Plan, StagePlan
from ascgen.stages.base import Constant, Sizes, StageContext, StageKind, const

HOST_SCAN_BYTES_PER_US = 1000.0  # host postprocess scans scores at ~1 GB/s


class TopkStage(StageBase):
    kind: Literal["topk"]
    k: int = Field(default=5, ge=1, le=1000)


class Topk(StageKind):
    kind = "topk"
    schema = TopkStage
    consumes = ("host",)
    produces = "result"
    flow = "labels"
    engine = "host"
    host_postprocess = True

    def service_us(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None, sizes: Sizes) -> float:
        return (gin.bytes if gin else 0) / HOST_SCAN_BYTES_PER_US

    def object_part(self, sp: StagePlan, plan: Plan) -> dict[str, str]:
        """Each object's top-k."""
        return {"labels": f"{sp.name}::kName", "k": f"{sp.name}::kK"} if sp.name in plan.object_stages else {}

    def constants(self, sp: StagePlan, plan: Plan) -> list[Constant]:
        stage = sp.stage
        assert isinstance(stage, TopkStage)
        scores = (sp.input.bytes if sp.input else 0) // 4 // plan.items_per_slot(sp.name)
        return [const("int", "kK", min(stage.k, max(scores, 1))), const("int", "kScoresPerFrame", scores)]
