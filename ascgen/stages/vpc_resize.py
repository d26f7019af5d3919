"""vpc_resize: VPC resizes (optionally after a crop) each decoded picture to a fixed size: with
acldvppVpcResizeAsync / CropResizeAsync on a stream (V1), or, in a V2 program (video through
hi_mpi_vdec_*), with hi_mpi_vpc_resize / crop_resize on the thread's V2 channel, the task awaited
by hi_mpi_vpc_get_process_result before the frame's next step (HIA 900 aclcppdevg_03_0637)."""

from __future__ import annotations

from typing import Literal

from ascgen.dsl.diagnostics import Diagnostic
from ascgen.dsl.dsl_base import Crop, Size
from ascgen.plan.model import Plan, StagePlan
from ascgen.stages import dvpp_rules
from ascgen.stages.base import Constant, StageContext, const
from ascgen.stages.vpc_output import VpcOutputKind, VpcOutputStage


class VpcResizeStage(VpcOutputStage):
    kind: Literal["vpc_resize"]
    crop: Crop | None = None


class VpcResize(VpcOutputKind):
    kind = "vpc_resize"
    schema = VpcResizeStage
    v2_lowering = True

    def check(self, ctx: StageContext) -> list[Diagnostic]:
        stage = ctx.stage
        assert isinstance(stage, VpcResizeStage)
        out = super().check(ctx)
        src = dvpp_rules.decoded_size(ctx)
        if stage.crop is not None and src is not None:
            out += dvpp_rules.check_crop(ctx, stage.crop, src)
            src = Size(width=stage.crop.width, height=stage.crop.height)
        if src is not None:
            out += dvpp_rules.check_ratio(ctx, src, stage.out, ctx.prof)
        return out

    def template_flags(self, sp: StagePlan, plan: Plan) -> dict[str, bool]:
        stage = sp.stage
        assert isinstance(stage, VpcResizeStage)
        return {"has_crop": stage.crop is not None, **super().template_flags(sp, plan)}

    def object_part(self, sp: StagePlan, plan: Plan) -> dict[str, str]:
        return self.detector_input(sp, plan, letterboxed=False)

    def constants(self, sp: StagePlan, plan: Plan) -> list[Constant]:
        stage = sp.stage
        assert isinstance(stage, VpcResizeStage)
        consts = super().constants(sp, plan)
        if stage.crop is not None:
            c = stage.crop  # DVPP ROIs are inclusive: left/top even, right/bottom odd
            consts += [
                const("uint32_t", "kCropLeft", c.left),
                const("uint32_t", "kCropTop", c.top),
                const("uint32_t", "kCropRight", c.left + c.width - 1),
                const("uint32_t", "kCropBottom", c.top + c.height - 1),
            ]
        return consts
