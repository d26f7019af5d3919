"""The plan of a service (source kind requests): the batcher's configuration from the spec's
``batching`` and how a partial batch runs: at the smallest of the model's dynamic batch gears
that holds it (the model stage's ``gears``), else padded to the model's compiled batch."""

from __future__ import annotations

from ascgen import spec as dsl
from ascgen.plan_model import ServingPlan, SlotRule


def serving_plan(spec: dsl.Spec, batch_slots: SlotRule, window: int, gears: list[int]) -> ServingPlan | None:
    if not spec.serving:
        return None
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
        slots_per_thread=per_thread,
        slots=per_thread * spec.threads,
        default_clients=min(64, 2 * b.max_batch),
    )
