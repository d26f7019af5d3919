"""h2d: copy each input from pinned host memory to the device (aclrtMemcpyAsync H2D)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ascgen.dsl.dsl_base import Bytes, StageBase
from ascgen.plan.geometry import Geometry, tensor
from ascgen.plan.model import MemoryKind, Plan, PoolPlan, PoolRef, StagePlan
from ascgen.stages.base import (
    Constant,
    Per,
    PoolRequest,
    Sizes,
    StageContext,
    StageKind,
    const,
)


class H2dStage(StageBase):
    kind: Literal["h2d"]
    bytes: Bytes | None = Field(default=None, description="bytes per copy; default from source")


def copied_bytes(ctx: StageContext, gout: Geometry | None) -> int:
    """What one copy moves: the buffer, or a JPEG source's typical file."""
    stage = ctx.stage
    assert isinstance(stage, H2dStage)
    nbytes = gout.bytes if gout else 0
    source = ctx.spec.source
    if source.data_kind == "jpeg_files" and source.typical_bytes and not stage.bytes:
        nbytes = min(nbytes, source.typical_bytes)
    return nbytes


class H2d(StageKind):
    kind = "h2d"
    schema = H2dStage
    consumes = ("source",)
    produces = "uploaded"
    engine = "h2d"
    host_link = True
    moves_whole_batches = True

    def geometry(
        self, ctx: StageContext, before: Geometry | None, sizes: Sizes
    ) -> tuple[Geometry | None, Geometry | None]:
        stage = ctx.stage
        assert isinstance(stage, H2dStage)
        nbytes = stage.bytes or (before.bytes if before else sizes.source_bytes)
        if ctx.spec.source.data_kind == "tensor" and ctx.feeds_batches:
            nbytes = stage.bytes or sizes.model_input_bytes or nbytes
        return before, tensor(nbytes, before.kind if before else "tensor")

    def pools(
        self, ctx: StageContext, gin: Geometry | None, out: Geometry | None, batch_level: bool, copy_batches: bool
    ) -> list[PoolRequest]:
        assert out is not None
        per: Per = "batch" if batch_level else "frame"
        nxt = ctx.next_kind
        memory: MemoryKind = "dvpp" if nxt is not None and nxt.reads_dvpp else "device"
        margin = nxt.input_margin_bytes if nxt is not None else 0  # what the reader writes past the data
        return [PoolRequest("host", "host_pinned", per, out.bytes), PoolRequest("dev", memory, per, out.bytes + margin)]

    def service_us(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None, sizes: Sizes) -> float:
        return ctx.prof.engines.h2d.service_us(copied_bytes(ctx, gout))

    def ddr_bytes(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None) -> float:
        return float(copied_bytes(ctx, gout))  # written into device memory

    def dst_pool(self, sp: StagePlan, pools: list[PoolPlan]) -> PoolRef | None:
        return PoolRef(sp.name, "dev")

    def template_flags(self, sp: StagePlan, plan: Plan) -> dict[str, bool]:
        return {"pads_requests": self.pads_requests(sp, plan)}

    def constants(self, sp: StagePlan, plan: Plan) -> list[Constant]:
        if not self.pads_requests(sp, plan) or plan.model is None:
            return []
        gears = ", ".join(f"{{{h}, {w}}}" for h, w in plan.model.hw_gears)
        return [const("ascgen::serving::HwGear", "kHwGears[]", "{" + gears + "}")]

    def pads_requests(self, sp: StagePlan, plan: Plan) -> bool:
        """The upload of a server whose requests have their own width (source format raw): it packs
        each batch's requests, zero-padded to the width of the model's gear that the batch runs at."""
        return sp.index == 0 and plan.serving is not None and bool(plan.serving.hw_gears)
