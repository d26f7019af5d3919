"""vpc_letterbox: VPC resizes each decoded picture keeping its aspect ratio and pastes it,
centred, into the output, whose border is one constant gray (as YOLO-style detectors expect).
In a V2 program (video through hi_mpi_vdec_*) the canvases are painted once at set-up (a video's
pictures all have the decoder's size: one paste area) and each picture is one
hi_mpi_vpc_crop_resize_paste task the host awaits.

Per frame: two aclrtMemsetAsync paint the canvas (luma = border, chroma neutral), then
acldvppVpcCropResizePasteAsync (ACL_FACTS 3.3: the output buffer is the canvas and is not
cleared) writes the picture into the paste area worked out once per input size at start-up
(ascgen::letterbox_area: even left/top, odd right/bottom, at least 10x6, ACL_FACTS 4; the
left offset a multiple of the profile's align.vpc_paste_left, 16 on the 310: ACL_FACTS 8).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ascgen.dsl.diagnostics import Diagnostic
from ascgen.dsl.dsl_base import Size
from ascgen.plan.geometry import Geometry
from ascgen.plan.model import Plan, StagePlan
from ascgen.stages import dvpp_rules
from ascgen.stages.base import Constant, Sizes, StageContext, const
from ascgen.stages.vpc_output import VpcOutputKind, VpcOutputStage

CHROMA_NEUTRAL = 128


class VpcLetterboxStage(VpcOutputStage):
    kind: Literal["vpc_letterbox"]
    border: int = Field(default=114, ge=0, le=255, description="gray level of the border (luma; chroma neutral)")


class VpcLetterbox(VpcOutputKind):
    kind = "vpc_letterbox"
    schema = VpcLetterboxStage
    v2_lowering = True  # hi_mpi_vpc_crop_resize_paste on a canvas painted once at set-up

    def check(self, ctx: StageContext) -> list[Diagnostic]:
        stage = ctx.stage
        assert isinstance(stage, VpcLetterboxStage)
        out = super().check(ctx)
        src = dvpp_rules.decoded_size(ctx)
        if src is not None:  # the larger side scales by the ratio, the other by less
            scale = min(stage.out.width / src.width, stage.out.height / src.height)
            fitted = Size(width=max(int(src.width * scale), 1), height=max(int(src.height * scale), 1))
            out += dvpp_rules.check_ratio(ctx, src, fitted, ctx.prof)
        return out

    def service_us(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None, sizes: Sizes) -> float:
        # VPC writes at most the whole output; the two canvas fills run on the copy engine (V2: once,
        # at set-up, as every picture of a video lands in the same paste area).
        fill = 0.0 if self.host_awaited(ctx) else ctx.prof.engines.d2d.service_us(gout.bytes if gout else 0)
        return super().service_us(ctx, gin, gout, sizes) + fill

    def object_part(self, sp: StagePlan, plan: Plan) -> dict[str, str]:
        return self.detector_input(sp, plan, letterboxed=True)

    def constants(self, sp: StagePlan, plan: Plan) -> list[Constant]:
        stage, out = sp.stage, sp.output
        assert isinstance(stage, VpcLetterboxStage) and out is not None
        return [
            *super().constants(sp, plan),
            const("int32_t", "kBorderLuma", stage.border),
            const("int32_t", "kBorderChroma", CHROMA_NEUTRAL),
            const("uint32_t", "kPasteLeftAlign", plan.device.align.vpc_paste_left),
        ]
