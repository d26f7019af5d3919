"""jpeg_decode: JPEGD decodes each uploaded JPEG into a YUV420SP picture in DVPP memory."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ascgen.dsl.diagnostics import Diagnostic
from ascgen.dsl.dsl_base import Size, StageBase
from ascgen.plan.geometry import Geometry, yuv420sp
from ascgen.plan.model import Plan, PoolPlan, PoolRef, StagePlan
from ascgen.stages import dvpp_rules
from ascgen.stages.base import Constant, PoolRequest, Sizes, StageContext, StageKind, const

# JPEGD zeroes the 8 bytes after the EOI marker in its input buffer, so the upload slot holds
# them beyond the largest file (HIA aclcppdevg_03_0169 5046 / 0227; the DVPP API of the Atlas
# 300: "actual data size + 8 bytes, a hardware restriction", atlasdvpp_07_0017).
JPEGD_EOI_MARGIN = 8


class JpegDecodeStage(StageBase):
    kind: Literal["jpeg_decode"]
    max: Size = Field(description="largest picture decoded; sizes the output buffers")
    format: Literal["nv12", "nv21"] = "nv12"


class JpegDecode(StageKind):
    kind = "jpeg_decode"
    schema = JpegDecodeStage
    consumes = ("uploaded",)
    produces = "decoded"
    flow = "image"
    engine = "jpegd"
    decodes = "jpeg_files"
    dvpp = True
    dvpp_mode = "DVPP_CHNMODE_JPEGD"
    reads_dvpp = True
    input_margin_bytes = JPEGD_EOI_MARGIN
    reports_status = True

    def inspects_inputs(self, sp: StagePlan, plan: Plan) -> bool:
        return True

    def check(self, ctx: StageContext) -> list[Diagnostic]:
        stage = ctx.stage
        assert isinstance(stage, JpegDecodeStage)
        prof = ctx.prof
        return dvpp_rules.check_align(ctx, prof.align.jpegd_out) + dvpp_rules.check_range(
            ctx, "max", "JPEGD input", stage.max, prof.limits.jpegd_in
        )

    def frame_picture(self, ctx: StageContext) -> Geometry | None:
        stage = ctx.stage
        assert isinstance(stage, JpegDecodeStage)
        aw, ah = dvpp_rules.alignment(stage, ctx.prof.align.jpegd_out)
        return yuv420sp(stage.format, stage.max.width, stage.max.height, aw, ah)

    def pools(
        self, ctx: StageContext, gin: Geometry | None, out: Geometry | None, batch_level: bool, copy_batches: bool
    ) -> list[PoolRequest]:
        assert out is not None
        return [PoolRequest("out", "dvpp", "frame", out.bytes)]

    def service_us(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None, sizes: Sizes) -> float:
        stage = ctx.stage
        assert isinstance(stage, JpegDecodeStage)
        return ctx.prof.engines.jpegd.service_us(stage.max.width * stage.max.height)

    def ddr_bytes(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None) -> float:
        source = ctx.spec.source
        bitstream = min(gin.bytes if gin else 0, source.typical_bytes or source.max_bytes or (gin.bytes if gin else 0))
        return float(bitstream + (gout.bytes if gout else 0))  # the JPEG read, the picture written

    def object_part(self, sp: StagePlan, plan: Plan) -> dict[str, str]:
        """The picture a graph's crops are cut out of: its descriptor per frame, its slots held."""
        if not any(e.port == "image" and e.src == sp.name for e in plan.graph.edges):
            return {}
        pool = PoolRef(sp.name, "out").member
        n = sp.name
        picture = (
            f"{{{n}::kPixelFormat, in.width, in.height, ascgen::align_up(in.width, {n}::kAlignWidth), "
            f"ascgen::align_up(in.height, {n}::kAlignHeight), {pool}.slot_bytes()}}"
        )
        return {"image": f"{pool}.slot(f)", "image_picture": picture, "image_pool": pool}

    def constants(self, sp: StagePlan, plan: Plan) -> list[Constant]:
        stage, out = sp.stage, sp.output
        assert isinstance(stage, JpegDecodeStage) and out is not None
        lim = plan.device.limits.jpegd_in
        align_w, align_h = dvpp_rules.alignment(stage, plan.device.align.jpegd_out)
        return [
            const("uint32_t", "kMaxWidth", out.width),
            const("uint32_t", "kMaxHeight", out.height),
            const("uint32_t", "kMinWidth", lim.min_width),
            const("uint32_t", "kMinHeight", lim.min_height),
            const("uint32_t", "kAlignWidth", align_w),
            const("uint32_t", "kAlignHeight", align_h),
            const("acldvppPixelFormat", "kPixelFormat", dvpp_rules.PIXEL_FORMAT[stage.format]),
        ]

    def dst_pool(self, sp: StagePlan, pools: list[PoolPlan]) -> PoolRef | None:
        return PoolRef(sp.name, "out")
