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
