"""The simulator's stand-in for a compiled model (.om): a small key=value descriptor.

The simulator's aclmdlLoadFromFile reads it: one input and one output of the given sizes,
the batch, the latency per batch size, and the device memory one loaded instance takes.
"""

from __future__ import annotations

from ascgen.plan.model import ModelPlan


def descriptor_text(model: ModelPlan, header: list[str]) -> str:
    table = {**model.latency_table, model.batch: model.latency_ms}
    lines = [f"# {line}" for line in header]
    lines += [
        "# ascgen simulated model: what aclmdlLoadFromFile loads on the simulator backend",
        "format=acl_sim_model",
        "version=1",
        f"name={model.stage}",
        f"batch={model.batch}",
        f"inputs={1 + len(model.extra_input_bytes)}",
        *(f"input.{k}.bytes={b}" for k, b in enumerate([model.input_bytes, *model.extra_input_bytes])),
        f"outputs={1 + len(model.extra_output_bytes)}",
        *(f"output.{k}.bytes={b}" for k, b in enumerate([model.output_bytes, *model.extra_output_bytes])),
        f"memory_bytes={model.memory_bytes}",
    ]
    if model.traffic_bytes:  # DDR bytes per execution besides input and output (else: the weights)
        lines.append(f"traffic_bytes={model.traffic_bytes}")
    lines += [f"latency_ms.{b}={table[b]!r}" for b in sorted(table)]
    if model.gears:  # a dynamic batch model: one more input, ascend_mbatch_shape_data
        lines.append("gears=" + ",".join(str(g) for g in model.gears))
        if model.traffic_bytes_per_item:  # a smaller gear moves fewer items' activations
            lines.append(f"traffic_bytes_per_item={model.traffic_bytes_per_item}")
    if model.hw_gears:  # dynamic height/width gears: the same extra input; time scales with elements
        lines.append("hw_gears=" + ",".join(f"{h}x{w}" for h, w in model.hw_gears))
        if model.hw_scaled_output:  # output 0 follows the gear: its elements' share, packed
            lines.append("output.0.hw_scaled=1")
        if model.traffic_bytes_per_item:
            lines.append(f"traffic_bytes_per_item={model.traffic_bytes_per_item}")
    return "\n".join(lines) + "\n"


DETECTOR_LAYOUTS = ("yolov3_detection_output", "yolo_raw")  # the detections kind's formats


def detector_lines(
    layout: str,
    classes: int,
    width: int,
    height: int,
    max_boxes: int,
    width_stride: int | None = None,
    height_stride: int | None = None,
) -> list[str]:
    """The keys that make a simulated model a detector (simulator/src/model/model_detector.h).

    Its input 0 is then `batch` NV12 pictures of width x height on the strides (default VPC's:
    ALIGN(width, 16) x ALIGN(height, 2)), and its outputs are the detections of the coloured
    shapes of pipelines/data/make_shapes.py in them: for yolov3_detection_output box_out
    (batch x 6 x max_boxes float32) and box_out_num (batch x 8 int32), for yolo_raw one output of
    batch x max_boxes x (5 + classes) float32 (templates/stages/detections.h reads both). Append
    them to descriptor_text's lines; the simulator refuses a descriptor whose sizes disagree.
    """
    if layout not in DETECTOR_LAYOUTS:
        raise ValueError(f"detector layout {layout!r}: want one of {', '.join(DETECTOR_LAYOUTS)}")
    lines = [
        f"detector={layout}",
        f"detector.classes={classes}",
        f"detector.width={width}",
        f"detector.height={height}",
        f"detector.max_boxes={max_boxes}",
    ]
    if width_stride is not None:
        lines.append(f"detector.width_stride={width_stride}")
    if height_stride is not None:
        lines.append(f"detector.height_stride={height_stride}")
    return lines
