"""Checks and geometry shared by the DVPP stage kinds (JPEGD and VPC): stride alignment,
resolution ranges, crop areas and resize ratios, with the profile's figures."""

from __future__ import annotations

from ascgen.dsl.diagnostics import Diagnostic
from ascgen.dsl.dsl_base import Crop, Size, StageBase
from ascgen.dsl.profile import Profile, Resolution, StrideAlign
from ascgen.plan.geometry import Geometry, nice_multiples, yuv420sp
from ascgen.stages.base import StageContext

PIXEL_FORMAT = {"nv12": "PIXEL_FORMAT_YUV_SEMIPLANAR_420", "nv21": "PIXEL_FORMAT_YVU_SEMIPLANAR_420"}
INTERPOLATION = {"default": 0, "bilinear": 1, "nearest": 2}
# hi_vpc_resize_info.interpolation (V2): 0 bilinear, 1 nearest neighbour; no "default" (HIA 900beta2
# aclpythondevg_01_0712; 81RC1 aclcppdevg_03_1057)
V2_INTERPOLATION = {"bilinear": 0, "nearest": 1}
# V1 and V2 media calls never meet in one process: the DVPP refuses the second generation (HA 900
# maintenref troubleshooting_0161; HA 850 aclpythondevg_01_0410; ACL_FACTS 3.4, 8).
MIX_SOURCE = "HA 900 troubleshooting_0161: V1 and V2 media calls are not mixed in one process"


def media_api(ctx: StageContext) -> str:
    """The DVPP media API generation the spec's program uses: "v2" where it decodes video with the
    V2 API (hi_mpi_vdec_*: the profile's features.dvpp_v2, as the vdec kind chooses), else "v1"
    (JPEG programs keep V1 on every device)."""
    return "v2" if ctx.spec.source.kind == "video" and ctx.prof.features.dvpp_v2 else "v1"


def use(value: int, alignment: int) -> str:
    """A hint naming the aligned values next to ``value``."""
    lo, hi = nice_multiples(value, alignment)
    return f"use {lo}" if lo == hi else f"use {lo} or {hi}"


def alignment(stage: StageBase, base: StrideAlign) -> tuple[int, int]:
    """The stage's stride alignment: the profile's, tightened by the stage's `align` where that
    is a multiple of the profile's (else check_align reports it)."""
    want = stage.align
    w = want.width if want and want.width and want.width % base.width == 0 else base.width
    h = want.height if want and want.height and want.height % base.height == 0 else base.height
    return w, h


def check_align(ctx: StageContext, base: StrideAlign) -> list[Diagnostic]:
    """A stage's `align` must be a multiple of the device's."""
    stage, out = ctx.stage, []
    if stage.align is None:
        return []
    for key, device, value in (("width", base.width, stage.align.width), ("height", base.height, stage.align.height)):
        if value is not None and value % device:
            out.append(
                ctx.error(
                    ("align", key),
                    f"align.{key} {value} must be a multiple of the device's {device}; {use(value, device)}",
                )
            )
    return out


def check_range(
    ctx: StageContext, key: str, what: str, size: Size, lim: Resolution, *, even: bool = True
) -> list[Diagnostic]:
    """Resolution limits; ``even`` also asks for even sizes (VPC output checks its alignment instead)."""
    out = []
    for axis, value, lo, hi in (
        ("width", size.width, lim.min_width, lim.max_width),
        ("height", size.height, lim.min_height, lim.max_height),
    ):
        if not lo <= value <= hi:
            out.append(ctx.error((key, axis), f"{what} {axis} {value} is outside the device's range {lo}..{hi}"))
        elif even and value % 2:
            out.append(
                ctx.error(
                    (key, axis), f"{what} {axis} {value} must be even for YUV420SP; use {value - 1} or {value + 1}"
                )
            )
    return out


def check_output(ctx: StageContext, out: Size, prof: Profile) -> list[Diagnostic]:
    """A VPC output: within the device's range, on its stride alignment."""
    aw, ah = alignment(ctx.stage, prof.align.vpc_out)
    lim = prof.limits.vpc_out
    diags = check_align(ctx, prof.align.vpc_out) + check_range(ctx, "out", "VPC output", out, lim, even=False)
    for axis, value, align, lo, hi in (
        ("width", out.width, aw, lim.min_width, lim.max_width),
        ("height", out.height, ah, lim.min_height, lim.max_height),
    ):
        if lo <= value <= hi and value % align:  # else the range is the problem
            diags.append(
                ctx.error(
                    ("out", axis), f"{axis} {value} is not a multiple of {align} for VPC output; {use(value, align)}"
                )
            )
    return diags


def check_crop(ctx: StageContext, crop: Crop, decoded: Size) -> list[Diagnostic]:
    out = []
    for key, value in (("left", crop.left), ("top", crop.top), ("width", crop.width), ("height", crop.height)):
        if value % 2:
            out.append(
                ctx.error(
                    ("crop", key),
                    f"crop {key} {value} must be even (DVPP crops on 2x2 chroma blocks); "
                    f"use {value - 1} or {value + 1}",
                )
            )
    if crop.left + crop.width > decoded.width or crop.top + crop.height > decoded.height:
        out.append(
            ctx.error(
                "crop",
                f"crop {crop.width}x{crop.height} at ({crop.left},{crop.top}) lies outside the decoded "
                f"{decoded.width}x{decoded.height} picture",
            )
        )
    if crop.width < 10 or crop.height < 6:
        out.append(ctx.error("crop", "crop area must be at least 10x6"))
    return out


def check_ratio(ctx: StageContext, src: Size, dst: Size, prof: Profile) -> list[Diagnostic]:
    lo, hi = prof.limits.resize_ratio.min, prof.limits.resize_ratio.max
    for key, a, b in (("width", src.width, dst.width), ("height", src.height, dst.height)):
        ratio = b / a
        if not lo <= ratio <= hi:
            return [
                ctx.error(
                    ("out", key),
                    f"resize {key} {a} -> {b} (ratio {ratio:.4f}) is outside VPC's {lo:g}..{hi:g}; "
                    "crop first or resize in two stages",
                )
            ]
    return []


def decoded_size(ctx: StageContext) -> Size | None:
    """The largest picture the stage before a VPC stage hands it."""
    prev = ctx.prev_kind
    if prev is None:
        return None
    picture = prev.frame_picture(ctx.at(ctx.index - 1))
    return Size(width=picture.width, height=picture.height) if picture else None


def vpc_picture(stage: StageBase, out: Size, fmt: str, prof: Profile) -> Geometry:
    aw, ah = alignment(stage, prof.align.vpc_out)
    return yuv420sp(fmt, out.width, out.height, aw, ah)
