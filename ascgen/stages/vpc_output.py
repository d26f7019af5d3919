"""What the VPC stage kinds share: they write one picture per frame into DVPP memory, which
the planner can assemble into a model's batch; their pools, engine time and sizes. In a V2 program
(video through hi_mpi_vdec_*, dvpp_rules.media_api) a kind needs a V2 lowering (hi_mpi_vpc_*,
`v2_lowering`): the host awaits its task, so it runs on no stream and no event links it."""

from __future__ import annotations

from typing import ClassVar, Literal

from ascgen.dsl.diagnostics import Diagnostic
from ascgen.dsl.dsl_base import Size, StageBase
from ascgen.plan.geometry import Geometry
from ascgen.plan.model import Plan, PoolPlan, PoolRef, StagePlan
from ascgen.stages import dvpp_rules
from ascgen.stages.base import Constant, PoolRequest, Sizes, StageContext, StageKind, const


class VpcOutputStage(StageBase):
    """What every VPC kind's schema has: the picture it writes."""

    out: Size
    format: Literal["nv12", "nv21"] = "nv12"
    interpolation: Literal["default", "bilinear", "nearest"] = "bilinear"


def v2_kinds() -> list[str]:
    """The VPC kinds that have a V2 lowering, for messages."""
    return sorted(k.kind for k in VpcOutputKind.__subclasses__() if k.v2_lowering)


class VpcOutputKind(StageKind):
    """A VPC kind: its schema is a VpcOutputStage."""

    consumes: ClassVar[tuple[str, ...]] = ("decoded",)
    produces = "frame"
    flow = "image"
    engine = "vpc"
    makes_frames = True
    dvpp = True
    dvpp_mode = "DVPP_CHNMODE_VPC"
    reads_dvpp = True
    v2_lowering: ClassVar[bool] = False  # its template has a hi_mpi_vpc_* form (flag `v2`)

    @staticmethod
    def vpc_stage(stage: StageBase) -> VpcOutputStage:
        assert isinstance(stage, VpcOutputStage)
        return stage

    @staticmethod
    def out_size(stage: StageBase) -> Size:
        return VpcOutputKind.vpc_stage(stage).out

    def check(self, ctx: StageContext) -> list[Diagnostic]:
        return dvpp_rules.check_output(ctx, self.out_size(ctx.stage), ctx.prof) + self.check_media_api(ctx)

    def check_media_api(self, ctx: StageContext) -> list[Diagnostic]:
        """In a V2 program: a kind with a V2 lowering, and an interpolation V2 has."""
        if dvpp_rules.media_api(ctx) != "v2":
            return []
        stage, prof = self.vpc_stage(ctx.stage), ctx.prof
        if not self.v2_lowering:
            return [
                ctx.error(
                    "kind",
                    f"a {self.kind} stage runs on the V1 VPC API (acldvppVpc*), but this program decodes its "
                    f"video with the V2 one (hi_mpi_vdec_*, the {prof.name} has features.dvpp_v2) and CANN "
                    f"refuses V1 and V2 media calls in one process ({dvpp_rules.MIX_SOURCE}); ascgen has no "
                    f"V2 lowering of {self.kind} yet: use {' or '.join(v2_kinds())}, or a device whose video is V1 "
                    "(ascend310)",
                )
            ]
        if stage.interpolation not in dvpp_rules.V2_INTERPOLATION:
            return [
                ctx.error(
                    "interpolation",
                    f"interpolation '{stage.interpolation}': the V2 VPC (hi_mpi_vpc_*, this program's: its video "
                    f"is V2) resizes bilinear or nearest only (HIA 900beta2 aclpythondevg_01_0712); use bilinear",
                )
            ]
        return []

    def check_planned(self, ctx: StageContext, plan: Plan) -> list[Diagnostic]:
        """A stage the host awaits frees its slots with the batch (the video feeder waits for the
        batch a slot last held): it keeps the spec's depth."""
        name = ctx.stage.name
        if name not in plan.host_awaited or ctx.smap is None or name not in ctx.spec.buffers.per_stage:
            return []
        return [
            ctx.smap.error(
                ("buffers", "per_stage", name),
                f"'{name}' runs on the V2 VPC API (hi_mpi_vpc_*): the host awaits each task and its slots are "
                f"freed with their batch, so it keeps buffers.depth; remove this entry",
            )
        ]

    def host_awaited(self, ctx: StageContext) -> bool:
        return dvpp_rules.media_api(ctx) == "v2"

    def frame_picture(self, ctx: StageContext) -> Geometry | None:
        vpc = self.vpc_stage(ctx.stage)
        return dvpp_rules.vpc_picture(vpc, vpc.out, vpc.format, ctx.prof)

    def pools(
        self, ctx: StageContext, gin: Geometry | None, out: Geometry | None, batch_level: bool, copy_batches: bool
    ) -> list[PoolRequest]:
        assert out is not None
        if not ctx.feeds_batches:
            return [PoolRequest("out", "dvpp", "frame", out.bytes)]
        batch = ctx.spec.batch
        if not copy_batches:  # the whole model input is this stage's one output picture
            return [PoolRequest("batch", "dvpp", "batch", out.bytes * batch)]
        return [
            PoolRequest("out", "dvpp", "frame", out.bytes),
            PoolRequest("batch", "device", "batch", out.bytes * batch),
        ]

    def service_us(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None, sizes: Sizes) -> float:
        out = self.out_size(ctx.stage)
        return ctx.prof.engines.vpc.service_us(out.width * out.height)

    def ddr_bytes(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None) -> float:
        return float((gin.bytes if gin else 0) + (gout.bytes if gout else 0))  # picture in, frame out

    def dst_pool(self, sp: StagePlan, pools: list[PoolPlan]) -> PoolRef | None:
        roles = {p.ref.role for p in pools if p.ref.stage == sp.name}
        return PoolRef(sp.name, "out" if "out" in roles else "batch")

    def detector_input(self, sp: StagePlan, plan: Plan, letterboxed: bool) -> dict[str, str]:
        """A graph's object part: the picture this stage makes is the detector's input (the stage
        right before the frames' model), so the detector's boxes are in its pixels."""
        at = next((s.index for s in plan.stages if plan.model and s.name == plan.model.stage), -1)
        if not plan.object_stages or sp.index != at - 1:
            return {}
        return {
            "net_width": f"{sp.name}::kFrame.width",
            "net_height": f"{sp.name}::kFrame.height",
            "letterboxed": "true" if letterboxed else "false",
            "paste_left_align": f"{sp.name}::kPasteLeftAlign" if letterboxed else "16",
        }

    def constants(self, sp: StagePlan, plan: Plan) -> list[Constant]:
        out = sp.output
        stage = self.vpc_stage(sp.stage)
        assert out is not None
        fmt = dvpp_rules.PIXEL_FORMAT[stage.format]
        frame = f"{{{fmt}, {out.width}, {out.height}, {out.width_stride}, {out.height_stride}, {out.bytes}}}"
        return [
            const("ascgen::Picture", "kFrame", frame),  # the picture it writes, as kSource the one it reads
            const("uint32_t", "kInterpolation", dvpp_rules.INTERPOLATION[stage.interpolation]),
            # frames per output slot: the whole batch where frames are assembled in place
            const("int", "kItemsPerSlot", plan.batch if plan.batching.mode == "in_place" else 1),
            *self.v2_constants(sp, plan),
        ]

    def v2_constants(self, sp: StagePlan, plan: Plan) -> list[Constant]:
        """In a V2 program: the picture it reads (its hi_vpc_pic_info), its interpolation's number."""
        if sp.name not in plan.host_awaited:
            return []
        src, stage = sp.input, self.vpc_stage(sp.stage)
        assert src is not None
        fmt = dvpp_rules.PIXEL_FORMAT[src.kind]
        picture = f"{{{fmt}, {src.width}, {src.height}, {src.width_stride}, {src.height_stride}, {src.bytes}}}"
        return [
            const("ascgen::Picture", "kSource", picture),
            const("hi_u32", "kV2Interpolation", dvpp_rules.V2_INTERPOLATION[stage.interpolation]),
        ]

    def template_flags(self, sp: StagePlan, plan: Plan) -> dict[str, bool]:
        return {"v2": sp.name in plan.host_awaited}
