"""The plan of a service (source kind requests): the batcher's configuration from the spec's
``batching`` and how a partial batch runs: at the smallest of the model's dynamic batch gears
that holds it (the model stage's ``gears``), else padded to the model's compiled batch; requests
of their own width run at the smallest of the model's ``hw_gears`` holding the batch's widest."""

from __future__ import annotations

from ascgen.dsl import spec as dsl
from ascgen.plan.model import ModelPlan, ServingPlan, SlotRule


def serving_plan(spec: dsl.Spec, batch_slots: SlotRule, window: int, model: ModelPlan | None) -> ServingPlan | None:
    if not spec.serving:
        return None
    gears = model.gears if model else []
    hw_gears = model.hw_gears if model else []
    b = spec.batching or dsl.Batching(max_batch=1)
    per_thread = batch_slots.slots(window)
    return ServingPlan(
        max_batch=b.max_batch,
        preferred=sorted(set(b.preferred)),
        max_queue_delay_us=b.max_queue_delay_us,
        priorities=b.priorities,
        queue_max_size=b.queue.max_size,
        queue_timeout_us=b.queue.timeout_us,
        queue_action=b.queue.action,
        partial="gears" if gears else "pad",
        executed_batch=spec.batch,
        gears=gears,
        hw_gears=hw_gears,
        hw_gear_ms=model.hw_gear_ms if model else [],
        slots_per_thread=per_thread,
        slots=per_thread * spec.threads,
        default_clients=min(64, 2 * b.max_batch),
    )
