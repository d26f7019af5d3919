"""The simulator's stand-in for a compiled model (.om): a small key=value descriptor.

The simulator's aclmdlLoadFromFile reads it: one input and one output of the given sizes,
the batch, the latency per batch size, and the device memory one loaded instance takes.
"""

from __future__ import annotations

from ascgen import profile as profiles
from ascgen import spec as dsl
from ascgen.plan_model import Plan
from ascgen.planner import model_latency_ms


def descriptor_text(plan: Plan, stage: dsl.ModelStage, header: list[str]) -> str:
    assert plan.model is not None
    prof = profiles.load(plan.profile)
    if isinstance(stage.latency_ms, dict):
        table = dict(stage.latency_ms)
    elif stage.reference is not None and stage.latency_ms is None:
        table = dict(prof.models[stage.reference].latency_ms)
    else:
        table = {}
    table[plan.batch] = model_latency_ms(stage, prof, plan.batch)
    lines = [f"# {line}" for line in header]
    lines += [
        "# ascgen simulated model: what aclmdlLoadFromFile loads on the simulator backend",
        "format=acl_sim_model",
        "version=1",
        f"name={stage.name}",
        f"batch={plan.batch}",
        "inputs=1",
        f"input.0.bytes={plan.model.input_bytes}",
        "outputs=1",
        f"output.0.bytes={plan.model.output_bytes}",
        f"memory_bytes={plan.model.memory_bytes}",
    ]
    lines += [f"latency_ms.{b}={table[b]!r}" for b in sorted(table)]
    return "\n".join(lines) + "\n"
