"""vpc_crop: each object a detections stage found is cut out of a decoded picture and resized
(or letterboxed) into the next model's input, many regions a call
(acldvppVpcBatchCropResizePasteAsync, ACL_FACTS 8).

A crop reads two stages: `rois`, the detections (by default the stage just before), and `image`,
the picture the boxes are cut out of (a jpeg_decode or VPC stage above it; always written).

The device's rules for the regions of one call (ACL_FACTS 4 and 8, HA 800 aclcppdevg_03_0344..0347;
900 aclcppdevg_03_1528): at most 256 regions, and as many as the output batch holds; a crop or
paste ROI is 10x6 .. 4096x4096 with left/top even and right/bottom odd (the 310 and 910; the
310P does not ask it, and takes it); a paste area's left offset a multiple of the profile's
align.vpc_paste_left (16). A resize stays within the profile's resize ratio.

How a box becomes a crop region (templates/stages/vpc_crop.h, `snap_roi`, which says it in full):
mapped from the detector input's pixels to the picture's, grown about its centre by `expand`,
grown to the smallest region the output can be resized from (at least 10x6, and the output size
over the largest resize ratio), shrunk to the largest (4096, and the output times the smallest
ratio), moved inside the picture, then its left/top rounded down to even and its width/height
up to even (right/bottom odd), still inside the picture.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import Field

from ascgen.dsl.diagnostics import Diagnostic
from ascgen.dsl.dsl_base import Name, Size, StageBase
from ascgen.dsl.profile import Profile
from ascgen.plan.geometry import Geometry, align_up, allocation_bytes
from ascgen.plan.model import Plan, PoolRef, StagePlan
from ascgen.stages.base import PoolRequest, Port, Sizes, StageContext
from ascgen.stages.vpc_output import VpcOutputKind, VpcOutputStage

MAX_REGIONS = 256  # regions one batch crop call takes (ACL_FACTS 8, aclcppdevg_03_0344..0347)
MIN_ROI = Size(width=10, height=6)  # crop/paste ROI (ACL_FACTS 4, aclpythondevg_01_0221)
MAX_ROI = Size(width=4096, height=4096)

ROIS = Port(
    "rois",
    "rois",
    consumes=("boxes",),
    hint="a crop cuts out the boxes of a detections stage: put one before it, or name it in 'rois:'",
)
IMAGE = Port(
    "image",
    "image",
    consumes=("decoded", "frame"),
    needs_flow="image",
    branch=True,
    required=True,
    hint="the decoded picture its boxes are cut out of (a jpeg_decode or VPC stage above it, e.g. 'image: decode')",
)


class VpcCropStage(VpcOutputStage):
    kind: Literal["vpc_crop"]
    image: Name | None = Field(default=None, description="the stage whose picture the boxes are cut out of")
    rois: Name | None = Field(
        default=None, description="the detections stage whose boxes are cropped (default: the stage before)"
    )
    fit: Literal["resize", "letterbox"] = Field(
        default="resize",
        description="resize: each crop stretched to `out`; letterbox: aspect ratio kept, pasted centred on `border`",
    )
    border: int = Field(default=114, ge=0, le=255, description="letterbox: gray level of the border")
    expand: float = Field(
        default=1.0, ge=1.0, le=4.0, description="each box grown about its centre by this ratio before it is cut"
    )


def crop_limits(out: Size, prof: Profile) -> tuple[Size, Size]:
    """(the smallest, the largest) region that VPC crops and resizes into ``out``: the ROI range,
    narrowed by the resize ratio range; even sizes (a region's right/bottom is odd)."""
    lo, hi = prof.limits.resize_ratio.min, prof.limits.resize_ratio.max

    def even_up(v: float) -> int:
        return math.ceil(v / 2) * 2

    smallest = Size(
        width=max(MIN_ROI.width, even_up(out.width / hi)), height=max(MIN_ROI.height, even_up(out.height / hi))
    )
    largest = Size(
        width=min(MAX_ROI.width, int(out.width / lo) // 2 * 2),
        height=min(MAX_ROI.height, int(out.height / lo) // 2 * 2),
    )
    return smallest, largest


def crop_stage(stage: StageBase) -> VpcCropStage:
    assert isinstance(stage, VpcCropStage)
    return stage


def objects_model(ctx: StageContext) -> int | None:
    """The index of the model that reads this crop's regions (the stage after it), if any."""
    nxt = ctx.next_kind
    return ctx.index + 1 if nxt is not None and nxt.takes_batches else None


class VpcCrop(VpcOutputKind):
    kind = "vpc_crop"
    schema = VpcCropStage
    consumes = ("boxes",)
    produces = "crops"  # pictures of objects: what a model of objects reads (not a picture to crop again)
    ports = (ROIS, IMAGE)
    fans_out = True

    def check(self, ctx: StageContext) -> list[Diagnostic]:
        stage = crop_stage(ctx.stage)
        out = super().check(ctx)
        if stage.from_ is not None:
            message = "a vpc_crop stage reads 'rois:' (its boxes) and 'image:' (its picture), not 'from:'"
            out.append(ctx.error("from", message + f"; write 'rois: {stage.from_}'"))
        at = objects_model(ctx)
        if at is not None:
            regions = regions_per_call(ctx.spec.stages[at], ctx.spec.batch)
            if regions > MAX_REGIONS:
                message = (
                    f"model '{ctx.spec.stages[at].name}' takes {regions} crops an execution, but one batch crop call "
                    f"(acldvppVpcBatchCropResizePasteAsync) cuts at most {MAX_REGIONS} regions; give the model "
                    f"'batch: {MAX_REGIONS}' or fewer"
                )
                out.append(ctx.error("out", message))
        return out

    def check_planned(self, ctx: StageContext, plan: Plan) -> list[Diagnostic]:
        """per_stage holds each decoded picture until its batch is detected and its crops were
        submitted (templates/runtime/ascgen_objects.h), so a worker needs the batch + 1 frames in
        flight: a depth written lower is refused (left out, it is raised: planner.graph_depth);
        per_thread holds none (its window's crops are done before the next window)."""
        out = super().check_planned(ctx, plan)
        if ctx.smap is None or plan.streams != "per_stage" or plan.depth >= plan.batch + 1:
            return out
        message = (
            f"stage '{ctx.stage.name}': the program holds each decoded picture until its batch of {plan.batch} frames "
            f"is detected and its crops submitted, so frames in flight must be at least the batch + 1 = "
            f"{plan.batch + 1}, not buffers.depth {plan.depth}; set 'buffers: {{depth: {plan.batch + 1}}}' or more "
            f"(or leave depth out: a graph's default is the batch + 1)"
        )
        out.append(ctx.smap.error(("buffers", "depth"), message))
        return out

    def pools(
        self, ctx: StageContext, gin: Geometry | None, out: Geometry | None, batch_level: bool, copy_batches: bool
    ) -> list[PoolRequest]:
        """One call's regions: each written to its own DVPP picture, carved out of one block at the
        sub-buffer stride (ALIGN_UP(len, granule) + padding, starts dvpp_addr-aligned: ACL_FACTS
        4), then copied into the model's input, where they lie back to back."""
        assert out is not None
        at = objects_model(ctx)
        regions = regions_per_call(ctx.spec.stages[at], ctx.spec.batch) if at is not None else 1
        align = ctx.prof.align
        stride = align_up(allocation_bytes(out.bytes, align.alloc_granule, align.alloc_padding), align.dvpp_addr)
        pools = [PoolRequest("out", "dvpp", "batch", stride * regions)]
        if at is not None:
            pools.append(PoolRequest("batch", "device", "batch", out.bytes * regions))
        return pools

    def object_part(self, sp: StagePlan, plan: Plan) -> dict[str, str]:
        """The crop's fields: the regions' picture and where they lie, the channel, the snapping."""
        stage = crop_stage(sp.stage)
        model = plan.objects_model
        if stage.fit != "resize":
            return {"refusal": "fit: letterbox is not generated yet; crops are resized ('fit: resize')"}
        if model is None:
            return {"refusal": "a generated graph needs a model after the crop (the model of objects)"}
        smallest, largest = crop_limits(self.out_size(stage), plan.device)
        rules = f"{{{smallest.width}, {smallest.height}, {largest.width}, {largest.height}, {stage.expand!r}f}}"
        return {
            "crop": f"{sp.name}::kName",
            "region": f"{sp.name}::kFrame",
            "region_stride": str(plan.pool(PoolRef(sp.name, "out")).slot_bytes // model.batch),
            "channel_modes": self.dvpp_mode if plan.device.features.channel_modes else "0",
            "interpolation": f"{sp.name}::kInterpolation",
            "rules": rules,
            "pools": f"{PoolRef(sp.name, 'out').member}, {PoolRef(sp.name, 'batch').member}",
        }

    def fanout_us(self, ctx: StageContext, regions_per_call: list[int]) -> float:
        """A batch crop call costs base_us, per_roi_us for each region after its first, and its
        regions' output pixels (as the simulator times it: VpcEngine.batch_service_us,
        simulator/docs/vpc_batch_time.md)."""
        out = self.out_size(ctx.stage)
        vpc = ctx.prof.engines.vpc
        return sum(vpc.batch_service_us(r, r * out.width * out.height) for r in regions_per_call)

    def service_us(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None, sizes: Sizes) -> float:
        """One region (the planner counts the regions of a frame)."""
        out = self.out_size(ctx.stage)
        return ctx.prof.engines.vpc.service_us(out.width * out.height)


def regions_per_call(model: StageBase, spec_batch: int) -> int:
    """The regions one batch crop call cuts: as many as the model after it takes an execution."""
    batch = getattr(model, "batch", None)
    return batch if isinstance(batch, int) else spec_batch
