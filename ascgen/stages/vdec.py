"""vdec: the video decoder (VDEC) turns each stream's access units into NV12 pictures in DVPP memory,
one channel per stream: V1 (acldvpp aclvdec*) on the 310, V2 (hi_mpi_vdec_*) where the profile has
the media API (310P, 910B, A3); a program uses one of them, never both (HIA zh 800alpha003
aclpythondevg_01_0219; HA 900 acldevg aclcppdevg_000062; ACL_FACTS 3.4, 8)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ascgen.dsl.diagnostics import Diagnostic
from ascgen.dsl.dsl_base import Size, StageBase
from ascgen.dsl.profile import Profile
from ascgen.dsl.sections import VIDEO_DEFAULTS
from ascgen.plan.geometry import Geometry, align_up
from ascgen.plan.model import Plan, PoolPlan, PoolRef, StagePlan, VideoPlan, holds
from ascgen.stages import dvpp_rules
from ascgen.stages.base import Constant, PoolRequest, Sizes, StageContext, StageKind, const

# VDEC output: NV12/NV21, widthStride = ALIGN(width, 16) and at least 32, heightStride =
# ALIGN(height, 2), buffer >= widthStride x heightStride x 3 / 2 (HA 850 aclcppdevg_03_0373;
# aclpythondevg_01_0345; ACL_FACTS 4 and 8).
OUT_ALIGN_WIDTH = 16
OUT_MIN_WIDTH_STRIDE = 32
OUT_ALIGN_HEIGHT = 2
# The acldvppStreamFormat / hi_payload_type of each codec (H.264 high profile covers baseline and
# main streams: HA 850 aclcppdevg_03_0373).
STREAM_FORMAT = {"h264": "H264_HIGH_LEVEL", "h265": "H265_MAIN_LEVEL"}
PAYLOAD_TYPE = {"h264": "HI_PT_H264", "h265": "HI_PT_H265"}
V2_PIXEL_FORMAT = {"nv12": "HI_PIXEL_FORMAT_YUV_SEMIPLANAR_420", "nv21": "HI_PIXEL_FORMAT_YVU_SEMIPLANAR_420"}


class VdecStage(StageBase):
    kind: Literal["vdec"]
    size: Size = Field(description="the stream's picture size (every stream of the source has it)")
    format: Literal["nv12", "nv21"] = "nv12"


def api(prof: Profile) -> Literal["v1", "v2"]:
    """The VDEC API a program for this device uses: V2 (hi_mpi) where the device has it (the
    recommended path; V1 no longer evolves), else V1 (ACL_FACTS 3.4)."""
    return "v2" if prof.features.dvpp_v2 else "v1"


def picture(width: int, height: int, fmt: str) -> Geometry:
    """One decoded picture on VDEC's output strides."""
    ws = max(align_up(width, OUT_ALIGN_WIDTH), OUT_MIN_WIDTH_STRIDE)
    hs = align_up(height, OUT_ALIGN_HEIGHT)
    return Geometry(kind=fmt, width=width, height=height, width_stride=ws, height_stride=hs, bytes=ws * hs * 3 // 2)


def channel_bytes(prof: Profile, width: int, height: int) -> int:
    """DVPP memory one channel's decoder holds (the simulator's vdec_timing.cpp, the same formula):
    fixed + frames x one NV12 frame on the engine's tiles."""
    vdec = prof.engines.vdec
    if vdec is None:
        return 0
    tile = vdec.block
    frame = align_up(width, tile) * align_up(height, tile) * 1.5
    return int(vdec.channel_fixed_bytes + vdec.channel_frames * frame)


class Vdec(StageKind):
    kind = "vdec"
    schema = VdecStage
    consumes = ("source",)
    produces = "decoded"
    flow = "image"
    engine = "vdec"
    decodes = "video"
    reads_dvpp = True
    fed_by_source = True
    reports_status = True

    def check(self, ctx: StageContext) -> list[Diagnostic]:
        stage, prof = ctx.stage, ctx.prof
        assert isinstance(stage, VdecStage)
        if prof.engines.vdec is None or prof.limits.vdec_channels == 0:
            return [
                ctx.error("kind", f"the {prof.name} profile has no video decoder (engines.vdec, limits.vdec_channels)")
            ]
        out: list[Diagnostic] = []
        if prof.limits.vdec_in is not None:
            out += dvpp_rules.check_range(ctx, "size", "VDEC input", stage.size, prof.limits.vdec_in)
        streams = ctx.spec.source.streams or 1
        channels = prof.limits.vdec_channels
        if streams > channels:
            shared = " (shared with JPEGD)" if api(prof) == "v2" else ""
            assert ctx.smap is not None
            out.append(
                ctx.smap.error(
                    ("source", "streams"),
                    f"{streams} streams need {streams} VDEC channels, but the {prof.name} has {channels}{shared}, "
                    f"ids 0..{channels - 1} (HA 850 aclcppdevg_03_0373); use at most {channels} streams per device",
                )
            )
        return out

    def check_planned(self, ctx: StageContext, plan: Plan) -> list[Diagnostic]:
        """Every stream's channel and pictures within the device's DVPP memory (the generic memory
        check names the largest pool; this one names the channels, which the pools do not show)."""
        mem, streams = plan.memory, plan.threads
        if mem.dvpp_bytes <= mem.dvpp_budget_bytes or ctx.smap is None:
            return []
        per_stream = mem.dvpp_bytes / streams
        fit = int(mem.dvpp_budget_bytes // per_stream)
        channel = self.dvpp_fixed_bytes(ctx)
        return [
            ctx.smap.error(
                ("source", "streams"),
                f"{streams} streams need {mem.dvpp_bytes / 2**20:,.0f} MiB of DVPP memory, the {ctx.prof.name} has "
                f"{mem.dvpp_budget_bytes / 2**20:,.0f}: each stream's VDEC channel holds {channel / 2**20:.1f} MiB "
                f"(reference frames: HA 5046 aclcppdevg_03_0184, ~56 MB per 1080p H.265 channel) besides its "
                f"pictures; {fit} streams fit",
            )
        ]

    def frame_picture(self, ctx: StageContext) -> Geometry | None:
        stage = ctx.stage
        assert isinstance(stage, VdecStage)
        return picture(stage.size.width, stage.size.height, stage.format)

    def geometry(
        self, ctx: StageContext, before: Geometry | None, sizes: Sizes
    ) -> tuple[Geometry | None, Geometry | None]:
        return before, self.frame_picture(ctx)

    def pools(
        self, ctx: StageContext, gin: Geometry | None, out: Geometry | None, batch_level: bool, copy_batches: bool
    ) -> list[PoolRequest]:
        assert out is not None
        return [PoolRequest("out", "dvpp", "frame", out.bytes)]

    def service_us(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None, sizes: Sizes) -> float:
        stage, vdec = ctx.stage, ctx.prof.engines.vdec
        assert isinstance(stage, VdecStage)
        return vdec.service_us(stage.size.width, stage.size.height) if vdec is not None else 0.0

    def ddr_bytes(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None) -> float:
        # the access unit read, the picture written and a reference picture read (the simulator's
        # VDEC task, vdec_api.cpp)
        unit = ctx.spec.source.typical_bytes or 0
        return float(unit + 2 * (gout.bytes if gout else 0))

    def dvpp_fixed_bytes(self, ctx: StageContext) -> int:
        stage = ctx.stage
        assert isinstance(stage, VdecStage)
        return channel_bytes(ctx.prof, stage.size.width, stage.size.height)

    def video_plan(self, ctx: StageContext, roofline_qps: float) -> VideoPlan | None:
        stage, source, engine = ctx.stage, ctx.spec.source, ctx.prof.engines.vdec
        assert isinstance(stage, VdecStage)
        if engine is None:
            return None
        width, height = stage.size.width, stage.size.height
        svc = engine.service_us(width, height)
        streams = source.streams or int(str(VIDEO_DEFAULTS["streams"]))
        fps = source.fps or float(str(VIDEO_DEFAULTS["fps"]))
        return VideoPlan(
            api=api(ctx.prof), codec=source.codec or VIDEO_DEFAULTS["codec"], streams=streams, fps=fps,
            width=width, height=height, loop=VIDEO_DEFAULTS["loop"] if source.loop is None else source.loop,
            pace=source.pace or VIDEO_DEFAULTS["pace"], late=source.late or VIDEO_DEFAULTS["late"],
            channel_bytes=channel_bytes(ctx.prof, width, height), vdec_service_us=svc, vdec_units=engine.units,
            vdec_fps=engine.units * 1e6 / svc if svc > 0 else float("inf"), demand_fps=streams * fps,
            pipeline_fps=roofline_qps, holds=holds(streams * fps, roofline_qps),
        )  # fmt: skip

    def constants(self, sp: StagePlan, plan: Plan) -> list[Constant]:
        stage, out = sp.stage, sp.output
        assert isinstance(stage, VdecStage) and out is not None
        codec = plan.video.codec if plan.video is not None else "h264"
        fmt = dvpp_rules.PIXEL_FORMAT[stage.format]
        picture = f"{{{fmt}, {out.width}, {out.height}, {out.width_stride}, {out.height_stride}, {out.bytes}}}"
        return [
            const("ascgen::Picture", "kPicture", picture),  # the picture it decodes each frame into
            const("acldvppStreamFormat", "kStreamFormat", STREAM_FORMAT[codec]),
            const("bool", "kH265", codec == "h265"),
            *(
                [
                    const("hi_payload_type", "kPayloadType", PAYLOAD_TYPE[codec]),
                    const("hi_pixel_format", "kV2PixelFormat", V2_PIXEL_FORMAT[stage.format]),
                ]
                if plan.video is not None and plan.video.api == "v2"
                else []
            ),
        ]

    def inspects_inputs(self, sp: StagePlan, plan: Plan) -> bool:
        return True

    def dst_pool(self, sp: StagePlan, pools: list[PoolPlan]) -> PoolRef | None:
        return PoolRef(sp.name, "out")
