"""d2h: copy each result from the device into pinned host memory (aclrtMemcpyAsync D2H)."""

from __future__ import annotations

from typing import Literal

from ascgen.dsl.dsl_base import StageBase
from ascgen.plan.geometry import Geometry, tensor
from ascgen.plan.model import Plan, PoolPlan, PoolRef, StagePlan
from ascgen.stages.base import Constant, PoolRequest, Sizes, StageContext, StageKind, const


class D2hStage(StageBase):
    kind: Literal["d2h"]


class D2h(StageKind):
    kind = "d2h"
    schema = D2hStage
    consumes = ("scores", "frame", "decoded")
    produces = "host"
    engine = "d2h"
    host_link = True

    def geometry(
        self, ctx: StageContext, before: Geometry | None, sizes: Sizes
    ) -> tuple[Geometry | None, Geometry | None]:
        return before, tensor(before.bytes if before else 0)

    def pools(
        self, ctx: StageContext, gin: Geometry | None, out: Geometry | None, batch_level: bool, copy_batches: bool
    ) -> list[PoolRequest]:
        assert out is not None
        return [PoolRequest("host", "host_pinned", "batch" if batch_level else "frame", out.bytes)]

    def service_us(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None, sizes: Sizes) -> float:
        return ctx.prof.engines.d2h.service_us(gout.bytes if gout else 0)

    def ddr_bytes(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None) -> float:
        return float(gout.bytes if gout else 0)  # read from device memory

    def dst_pool(self, sp: StagePlan, pools: list[PoolPlan]) -> PoolRef | None:
        return PoolRef(sp.name, "host")

    def constants(self, sp: StagePlan, plan: Plan) -> list[Constant]:
        out = sp.output.bytes if sp.output else 0
        return [const("size_t", "kItemBytes", out // plan.batch if sp.batch_level else out)]  # one frame's result
