"""What the service's device work costs beyond the stages' own service times, for the
serving prediction (predict.py): the two device rules the plan's per-stage figures leave out
and a request service at the model's small gears meets.

- An execution moves its bytes through device memory (the weights it streams, its inputs and
  outputs), so it takes at least those bytes at the memory bandwidth: a small width gear
  that computes in 1.2 ms but streams 64 MiB of weights at 48 GB/s takes 1.4 ms. The
  simulator paces a task whose traffic outruns the bandwidth so (its processor sharing,
  simulator/docs/shared_bandwidth.md); on a device the weights come from DDR as well.
- A stream runs its tasks in order, and the device's one task scheduler dispatches each
  (engines.scheduler.per_task_us): a step's event waits and resets go before it, its records
  after it, on its stream (plan.events; ACL_FACTS 1.4, Events). On a stream that one engine
  waits on (the shared model's), they are time that engine stays idle between executions.
"""

from __future__ import annotations

from dataclasses import dataclass

from ascgen.plan.model import ModelPlan, Plan, default_weight_bytes


def execution_bytes(model: ModelPlan, batch: int, share: float = 1.0) -> float:
    """DDR bytes of one execution at ``batch`` items, at a width gear holding ``share`` of the
    largest gear's elements: as the simulator counts them (src/model/model_api.cpp): its
    traffic (the default weights when the plan knows none), fewer items' activations below the
    compiled batch or at a smaller gear, and its inputs and outputs at that batch (the data
    input, and outputs that follow the gear, at the gear's share)."""
    per_item = model.traffic_bytes_per_item
    if model.traffic_bytes:
        fewer = (model.batch - batch) * per_item + batch * per_item * (1.0 - share)
        traffic = max(0.0, model.traffic_bytes - fewer)
    else:
        traffic = float(default_weight_bytes(model.memory_bytes))
    items = batch / model.batch
    inputs = model.input_bytes * share + sum(model.extra_input_bytes)
    outputs = model.output_bytes * (share if model.hw_scaled_output else 1.0) + sum(model.extra_output_bytes)
    return traffic + (inputs + outputs) * items


def execution_s(plan: Plan, compute_ms: float, batch: int, share: float = 1.0) -> float:
    """An execution's time: its compute, or its bytes at the memory bandwidth if longer."""
    assert plan.model is not None
    streamed_ms = execution_bytes(plan.model, batch, share) / (plan.device.memory.bandwidth_GBps * 1e6)
    return max(compute_ms, streamed_ms) / 1e3


@dataclass(frozen=True)
class StreamTasks:
    """A step's tasks on its stream besides the step itself: before it (its waits and their
    resets), after it (its records, and the reset of an event a host thread synchronised on)."""

    before_s: float
    after_s: float


def stream_tasks(plan: Plan, stage: str) -> StreamTasks:
    """``stage``'s step's event tasks, each one dispatch of the task scheduler; an event of
    every frame counts ``batch`` times on a step of a batch, an event of every batch
    1 / ``batch`` times on a step of a frame."""
    dispatch = plan.device.engines.scheduler.per_task_us / 1e6
    index = next((i for i, s in enumerate(plan.steps) if s.stage == stage), None)
    if index is None or dispatch == 0:
        return StreamTasks(0.0, 0.0)
    batch_level = plan.steps[index].batch_level
    before, after = 1.0, 0.0  # the step's own dispatch
    for e in plan.events:
        times = 1.0
        if e.index == "f" and batch_level:
            times = plan.batch
        elif e.index == "b" and not batch_level:
            times = 1.0 / plan.batch
        if e.waiter == index:
            before += 2 * times  # wait, reset
        if e.recorder == index:
            after += (2 if e.waiter < 0 else 1) * times  # record (and reset after a host sync)
    return StreamTasks(before * dispatch, after * dispatch)
