"""The planner's prediction of a service under a closed-loop load: QPS and latency at N clients.

A small discrete-event model with no fitted parameter: every figure comes from the plan.
- Clients: N, each sends its next request when its previous one completes (no think time).
- The batcher: Triton's rule as ascgen_batcher.h applies it (max_batch, the largest preferred
  size reachable now, else wait until the oldest request is max_queue_delay_us old, then
  send what is there), forming a batch only while one of the executor slots is free.
- The pipeline: each stage an engine with as many units as the plan's capacity implies
  (capacity_qps x service time per frame), serving in the order work arrives, and each host
  thread's stream of a stage runs one task at a time (a shared stage: one stream for all).
  A batch goes to a thread with a free slot (in turn); its requests go through the frame
  stages one by one, then the batch-level stages (the model at the executed batch: the
  compiled one when partial batches are padded) once.
What it leaves out: the host's own CPU time, queue timeouts and the DDR contention the
roofline's bandwidth bound models (the services here run well below it).
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import statistics
from dataclasses import dataclass, field

from ascgen.plan_model import Plan, StagePlan
from ascgen.stages.model import ModelStage, gear_for, latency_ms

CLIENTS = (1, 8, 32, 70)  # the seed's experiment's points (Paddle Serving's, issue 16)


@dataclass(frozen=True)
class Prediction:
    clients: int
    qps: float
    p50_ms: float
    p99_ms: float
    mean_batch: float


@dataclass
class _Engine:
    """One stage's engine: its units' busy intervals, and per host thread (one for a shared
    stage) the stream that feeds it, free from its time on (a stream runs in order)."""

    service_s: float
    units: list[list[tuple[float, float]]] = field(default_factory=list)
    streams: list[float] = field(default_factory=list)

    def serve(self, ready: float, thread: int, now: float, service_s: float | None = None) -> float:
        """Work of `thread` ready at `ready` starts when its stream is free and a unit has a
        gap long enough (work booked ahead leaves gaps that later work may fill)."""
        service = self.service_s if service_s is None else service_s
        stream = thread % len(self.streams)
        ready = max(ready, self.streams[stream])
        best, best_unit = float("inf"), 0
        for u, busy in enumerate(self.units):
            busy[:] = [b for b in busy if b[1] > now]  # the past cannot be booked
            t = ready
            for start, end in busy:
                if t + service <= start:
                    break
                t = max(t, end)
            if t < best:
                best, best_unit = t, u
        bisect.insort(self.units[best_unit], (best, best + service))
        self.streams[stream] = best + service
        return best + service


def _engine(stage: StagePlan, plan: Plan) -> _Engine:
    service_s = stage.service_us / 1e6
    per_unit_qps = stage.frames_per_task / service_s
    units = max(1, round(stage.capacity_qps / per_unit_qps))
    streams = 1 if stage.name in plan.shared_stages else plan.threads
    return _Engine(service_s, [[] for _ in range(units)], [0.0] * streams)


def _batch_size(queued: int, waited_s: float, plan: Plan) -> int:
    """How many requests the rule sends now (0: wait)."""
    s = plan.serving
    assert s is not None
    if queued >= s.max_batch:
        return s.max_batch
    reachable = [p for p in s.preferred if p <= queued]
    if reachable:
        return max(reachable)
    if queued and waited_s >= s.max_queue_delay_us / 1e6 - 1e-12:
        return queued
    return 0


def predict(plan: Plan, clients: int, requests: int = 3000, warmup: int = 300) -> Prediction:
    """The steady state of `clients` closed-loop clients: the requests after the first
    `warmup` completed ones, `requests` of them."""
    s = plan.serving
    assert s is not None, "a service's plan (source kind requests)"
    frame_stages = [st for st in plan.stages if not st.batch_level and st.service_us > 0]
    batch_stages = [st for st in plan.stages if st.batch_level and st.service_us > 0]
    frames = [_engine(st, plan) for st in frame_stages]
    batches = [_engine(st, plan) for st in batch_stages]
    model = [plan.model is not None and st.name == plan.model.stage for st in batch_stages]
    model_s = {n: executed_ms(plan, n) / 1e3 for n in range(1, s.max_batch + 1)}
    slots = [s.slots_per_thread] * plan.threads  # free batch slots per host thread
    turn = itertools.cycle(range(plan.threads))
    queue: list[float] = []  # arrival times, oldest first
    events: list[tuple[float, int, int]] = []  # (time, order, requests completing; 0: a timer)
    order = itertools.count()
    done: list[tuple[float, float]] = []  # (completion, latency)
    sizes: list[int] = []
    in_batch: dict[int, tuple[int, list[float]]] = {}
    for _ in range(clients):
        queue.append(0.0)
    now = 0.0
    while len(done) < warmup + requests:
        while any(slots) and queue:
            n = _batch_size(len(queue), now - queue[0], plan)
            if n == 0:
                heapq.heappush(events, (queue[0] + s.max_queue_delay_us / 1e6, next(order), 0))
                break
            thread = next(w for w in turn if slots[w] > 0)
            taken, queue = queue[:n], queue[n:]
            slots[thread] -= 1
            sizes.append(n)
            ready = now
            for _ in range(n):  # each request through the frame stages
                t = now
                for e in frames:
                    t = e.serve(t, thread, now)
                ready = max(ready, t)
            for e, is_model in zip(batches, model, strict=True):  # the model and what follows it
                ready = e.serve(ready, thread, now, model_s[n] if is_model else None)
            key = next(order)
            in_batch[key] = (thread, taken)
            heapq.heappush(events, (ready, key, n))
        if not events:
            break
        now, key, n = heapq.heappop(events)
        if n == 0:
            continue
        thread, taken = in_batch.pop(key)
        for arrived in taken:
            done.append((now, now - arrived))
            queue.append(now)  # the client sends its next request at once
        slots[thread] += 1
    measured = done[warmup:]
    if len(measured) < 2:
        return Prediction(clients, 0.0, 0.0, 0.0, 0.0)
    span = measured[-1][0] - done[warmup - 1][0] if warmup else measured[-1][0]
    latencies = sorted(lat for _, lat in measured)
    return Prediction(
        clients=clients,
        qps=len(measured) / span if span > 0 else 0.0,
        p50_ms=statistics.median(latencies) * 1e3,
        p99_ms=latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] * 1e3,
        mean_batch=statistics.fmean(sizes[len(sizes) // 10 :]) if sizes else 0.0,
    )


def executed_ms(plan: Plan, n: int) -> float:
    """The model's time for a batch of ``n`` requests: at the smallest gear that holds them,
    or at the compiled batch (padded)."""
    assert plan.model is not None and plan.serving is not None
    if not plan.serving.gears:
        return plan.model.latency_ms
    stage = next(s.stage for s in plan.stages if s.name == plan.model.stage)
    assert isinstance(stage, ModelStage)
    return latency_ms(stage, plan.device, gear_for(plan.serving.gears, n))


def predictions(plan: Plan, clients: tuple[int, ...] = CLIENTS) -> list[Prediction]:
    return [predict(plan, n) for n in clients]


def padding_cost(plan: Plan) -> list[tuple[int, int, float]]:
    """(requests in a batch, the batch it runs at, the share of that execution that is padding)
    for the batch sizes worth showing that are not full; empty when every execution is full."""
    s = plan.serving
    if s is None or s.executed_batch <= 1:
        return []
    sizes = sorted({1, 3, *s.preferred, s.max_batch // 2, s.max_batch - 1, s.max_batch})
    out = []
    for n in sizes:
        runs = gear_for(s.gears, n) if s.gears else s.executed_batch
        if 0 < n < runs:
            out.append((n, runs, 1 - n / runs))
    return out
