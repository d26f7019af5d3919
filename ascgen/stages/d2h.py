"""d2h: copy each result from the device into pinned host memory (aclrtMemcpyAsync D2H)."""

from __future__ import annotations

from typing import Literal

from ascgen.dsl.dsl_base import StageBase
from ascgen.plan.geometry import Geometry, output_offsets, outputs_bytes, tensor
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
        # every output the stage before writes (a model's other heads after the first), as they lie in its slot
        extras = self._extras(ctx)
        return before, tensor(
            outputs_bytes([before.bytes, *extras]) if before and extras else before.bytes if before else 0
        )

    @staticmethod
    def _extras(ctx: StageContext) -> list[int]:
        prev = ctx.prev_kind
        return prev.extra_outputs(ctx.at(ctx.index - 1)) if prev is not None else []

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

    def object_part(self, sp: StagePlan, plan: Plan) -> dict[str, str]:
        """The copy of the model of objects' scores to the host."""
        if sp.name not in plan.object_stages:
            return {}
        return {"fetch": f"{sp.name}::kName", "pools": PoolRef(sp.name, "host").member}

    def constants(self, sp: StagePlan, plan: Plan) -> list[Constant]:
        first = sp.input.bytes if sp.input else 0  # the first output, which --verify compares
        per = plan.items_per_slot(sp.name) if sp.batch_level else 1
        out = [const("size_t", "kItemBytes", first // per)]  # one frame's result
        extras = plan.model.extra_output_bytes if plan.model and plan.model.stage == self._before(sp, plan) else []
        if extras:  # the model's other outputs follow the first in a slot: where, and one frame's share
            sizes = [first, *extras]
            out += [
                const("size_t", "kOutputOffsets[]", "{" + ", ".join(str(o) for o in output_offsets(sizes)) + "}"),
                const("size_t", "kOutputItemBytes[]", "{" + ", ".join(str(s // per) for s in sizes) + "}"),
            ]
        return out

    @staticmethod
    def _before(sp: StagePlan, plan: Plan) -> str:
        return plan.stages[sp.index - 1].name if sp.index > 0 else ""
