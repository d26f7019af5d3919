"""detections: a detector's output turned into at most max_objects boxes on the host, after the
results are back: box decode, score threshold, class filter, NMS (templates/stages/detections.h,
which also says both layouts and the rules).

It reads a model's output (through d2h). The formats, float32 as ATC writes them with
--output_type=FP32:
- yolov3_detection_output: the model ends in ATC's YoloV3DetectionOutput operator (CANN operator
  list, "YoloV3DetectionOutput"): its first output is box_out, [batch, 6 x capacity] (capacity:
  the operator's post_nms_topn), its second box_out_num, [batch, 8] int32 (the box count first);
- yolo_raw: a raw YOLO head, [batch, candidates, 5 + classes].

Generated for both (templates/stages/detections.j2: a host stage on each frame's fetched output,
folded into the worker's checksum); for yolov3_detection_output its frame function also reads the
frame's box count in the model's second output, which the d2h returns with the first.
On the simulator the model feeding it is a detector (detector(): the arguments of
ascgen/codegen/model_descriptor.detector_lines), which finds pipelines/data/make_shapes.py's shapes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ascgen.dsl.diagnostics import Diagnostic
from ascgen.dsl.dsl_base import StageBase
from ascgen.plan.geometry import Geometry
from ascgen.plan.model import Plan, StagePlan
from ascgen.stages.base import Constant, Sizes, StageContext, StageKind, const
from ascgen.stages.topk import HOST_SCAN_BYTES_PER_US

FLOAT = 4
COUNT_BYTES = 8 * 4  # box_out_num: 8 int32 a frame


class DetectionsStage(StageBase):
    kind: Literal["detections"]
    format: Literal["yolov3_detection_output", "yolo_raw"] = Field(
        description="the model's output: ATC's YoloV3DetectionOutput (box count + boxes) or a raw YOLO head"
    )
    score: float = Field(default=0.5, ge=0, le=1, description="keep a box whose score is at least this")
    nms_iou: float = Field(default=0.45, ge=0, le=1, description="drop a box overlapping a better one by more")
    max_objects: int = Field(default=32, ge=1, le=1024, description="objects kept per frame at most, best first")
    classes: int | None = Field(default=None, ge=1, le=1024, description="the model's class count (yolo_raw: required)")
    keep_classes: list[int] | None = Field(
        default=None, min_length=1, max_length=1024, description="class ids to keep (default: every class)"
    )
    agnostic: bool = Field(default=False, description="NMS across classes (default: within each class)")
    capacity: int = Field(
        default=1024, ge=1, le=1024, description="yolov3_detection_output: boxes box_out holds (post_nms_topn)"
    )


def _rows(stage: DetectionsStage, sp: StagePlan, plan: Plan) -> int:
    """The boxes one frame's output holds: yolo_raw's candidate rows, box_out's capacity."""
    if stage.format == "yolov3_detection_output":
        return stage.capacity
    item = (plan.model.output_bytes if plan.model else 0) // plan.batch
    return item // ((5 + (stage.classes or 0)) * FLOAT)


def _stage(ctx: StageContext) -> DetectionsStage:
    stage = ctx.stage
    assert isinstance(stage, DetectionsStage)
    return stage


def _stage_of(sp: StagePlan) -> DetectionsStage:
    assert isinstance(sp.stage, DetectionsStage)
    return sp.stage


class Detections(StageKind):
    kind = "detections"
    schema = DetectionsStage
    consumes = ("host",)
    produces = "boxes"
    flow = "boxes"
    needs_flow = "tensor"
    engine = "host"
    host_postprocess = True
    describes = True

    def check(self, ctx: StageContext) -> list[Diagnostic]:
        stage = _stage(ctx)
        out = []
        if stage.format == "yolo_raw" and stage.classes is None:
            out.append(ctx.error("format", "a yolo_raw head needs 'classes' (its rows are 5 + classes floats)"))
        keep = stage.keep_classes or []
        if len(set(keep)) != len(keep):
            out.append(ctx.error("keep_classes", "keep_classes names a class twice"))
        outside = [c for c in keep if c < 0 or (stage.classes is not None and c >= stage.classes)]
        if outside:
            top = f"0..{stage.classes - 1}" if stage.classes is not None else "0 or more"
            out.append(ctx.error("keep_classes", f"keep_classes {outside} outside the class ids {top}"))
        if stage.max_objects > stage.capacity and stage.format == "yolov3_detection_output":
            message = f"max_objects {stage.max_objects} is more than the {stage.capacity} boxes box_out holds"
            out.append(ctx.error("max_objects", message))
        return out

    def check_planned(self, ctx: StageContext, plan: Plan) -> list[Diagnostic]:
        stage = _stage(ctx)
        model = plan.model
        # it reads a tensor (needs_flow, checked with the graph), and only a model makes one on the device
        assert model is not None
        item = model.output_bytes // plan.batch
        if stage.format == "yolo_raw":
            row = (5 + (stage.classes or 0)) * FLOAT
            if model.output_bytes % (plan.batch * row):
                message = (
                    f"a yolo_raw head of {stage.classes} classes has rows of {row} bytes, but model '{model.stage}' "
                    f"gives {item} bytes a frame ({model.output_bytes} at batch {plan.batch}); set its output_bytes "
                    f"to batch x candidates x {row}, or 'classes' to the model's"
                )
                return [ctx.error("classes", message)]
            return []
        boxes = 6 * stage.capacity * FLOAT
        out = []
        if item != boxes or model.output_bytes % plan.batch:
            message = (
                f"YoloV3DetectionOutput's box_out holds 6 x capacity {stage.capacity} float32 = {boxes} bytes a "
                f"frame, but model '{model.stage}' gives {model.output_bytes} bytes at batch {plan.batch}; set its "
                f"output_bytes to {boxes * plan.batch}, or capacity to the operator's post_nms_topn"
            )
            out.append(ctx.error("capacity", message))
        counts = model.extra_output_bytes[:1]
        if counts != [COUNT_BYTES * plan.batch]:
            message = (
                f"YoloV3DetectionOutput's box_out_num is the model's second output, 8 int32 a frame: model "
                f"'{model.stage}' needs extra_outputs: [{COUNT_BYTES * plan.batch}] (batch {plan.batch}), "
                f"not {counts or 'none'}"
            )
            out.append(ctx.error("format", message))
        return out

    def host_outputs(self, sp: StagePlan, plan: Plan) -> int:
        """YoloV3DetectionOutput: box_out and box_out_num (check_planned: the model's first two)."""
        stage = sp.stage
        assert isinstance(stage, DetectionsStage)
        return 2 if stage.format == "yolov3_detection_output" else 1

    def object_part(self, sp: StagePlan, plan: Plan) -> dict[str, str]:
        """The boxes the crops cut out: at most max_objects a frame."""
        stage = _stage_of(sp)
        if not plan.object_stages:
            return {}
        return {"max_objects": str(stage.max_objects), "boxes": sp.name, "post_process": f"{sp.name}::kName"}

    def constants(self, sp: StagePlan, plan: Plan) -> list[Constant]:
        stage = sp.stage
        assert isinstance(stage, DetectionsStage)
        keep = stage.keep_classes or []
        out = [
            const("int", "kRows", _rows(stage, sp, plan)),
            const("int", "kClasses", stage.classes or 0),
            const("float", "kScore", f"{stage.score!r}f"),
            const("float", "kNmsIou", f"{stage.nms_iou!r}f"),
            const("int", "kMaxObjects", stage.max_objects),
            const("bool", "kAgnostic", stage.agnostic),
            const("int", "kKeepCount", len(keep)),
        ]
        if keep:
            out.append(const("int", "kKeep[]", "{" + ", ".join(str(c) for c in keep) + "}"))
        rules = f"{{kScore, kNmsIou, kMaxObjects, {'kKeep' if keep else 'nullptr'}, kKeepCount, kAgnostic}}"
        return [*out, const("ascgen::detections::Rules", "kRules", rules)]

    def template_flags(self, sp: StagePlan, plan: Plan) -> dict[str, bool]:
        stage = sp.stage
        assert isinstance(stage, DetectionsStage)
        return {"yolov3": stage.format == "yolov3_detection_output"}

    def detector(self, sp: StagePlan, plan: Plan) -> dict[str, str | int] | None:
        """The simulated model finds shapes in the pictures it is given, in this stage's layout."""
        stage = sp.stage
        assert isinstance(stage, DetectionsStage) and plan.model is not None
        at = next(s.index for s in plan.stages if s.name == plan.model.stage)
        picture = plan.stages[at - 1].output if at > 0 else None
        if picture is None or not picture.is_picture:
            return None  # a model fed tensors: no pictures to find shapes in
        return {
            "layout": stage.format, "classes": stage.classes or 1, "width": picture.width, "height": picture.height,
            "max_boxes": _rows(stage, sp, plan),
            "width_stride": picture.width_stride, "height_stride": picture.height_stride,
        }  # fmt: skip

    def max_objects(self, ctx: StageContext) -> int | None:
        return _stage(ctx).max_objects

    def service_us(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None, sizes: Sizes) -> float:
        # decoding scans the output once; NMS over the few boxes that pass is not counted
        return (gin.bytes if gin else 0) / HOST_SCAN_BYTES_PER_US
