"""The planner's prediction of a service under a closed-loop load: QPS and latency at N clients.

A small discrete-event model with no fitted parameter: every figure comes from the plan.
- Clients: N, each sends its next request when its previous one completes (no think time);
  they start in turn, and the clients of a completed batch send their next requests in an
  order drawn from a seeded generator (the program leaves it to the OS scheduler).
- Requests of their own width (a model with hw_gears, serving_requests.py): client c's k-th
  request is the program's input (c + k) mod n, read from the spec's data.
- The batcher: Triton's rule as ascgen_batcher.h applies it (max_batch, the largest preferred
  size reachable now, else wait until the oldest request is max_queue_delay_us old, then
  send what is there), forming a batch only while one of the executor slots is free; with
  request widths, the candidates end before the first request the padding rule keeps out,
  and a batch so ended goes at once.
- The pipeline: each stage an engine with as many units as the plan's capacity implies
  (capacity_qps x service time per frame), serving in the order work arrives, and each host
  thread's stream of a stage runs one task at a time (a shared stage: one stream for all).
  A batch goes to a thread with a free slot (in turn); its requests go through the frame
  stages one by one, then the batch-level stages (the model at the executed batch: the
  compiled one when partial batches are padded; with request widths at the gear of the
  batch's widest, whose requests alone the upload copies) once.
- The device's own costs (device_costs.py): an execution takes at least its bytes at the
  memory bandwidth, and each step's event waits, resets and records are tasks on its stream
  that the task scheduler dispatches in turn.
What it leaves out: the host's own CPU time, queue timeouts, the DDR contention between
engines that run at once, which the roofline's bandwidth bound models (the services here run
well below it), and the other streams' tasks a stream's dispatches queue behind.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import random
import statistics
from dataclasses import dataclass, field

from ascgen.plan.model import Plan, StagePlan, gear_for, hw_share
from ascgen.serving.device_costs import StreamTasks, execution_s, stream_tasks
from ascgen.serving.requests import PaddedShape, Requests, hw_gear_index, read_requests
from ascgen.stages.registry import kind_of

CLIENTS = (1, 8, 32, 70)  # the seed's experiment's points (Paddle Serving's, issue 16)
SEEDS = 6  # runs whose mean predicts a service of requests of their own width
WARMUP = 300  # completed requests before the steady state a prediction measures


@dataclass(frozen=True)
class Prediction:
    clients: int
    qps: float
    p50_ms: float
    p99_ms: float
    mean_batch: float
    model_ms: float = 0.0  # the model's mean time per execution
    gear_share: tuple[float, ...] = ()  # of the executions, at each of the model's hw_gears
    requests: str = ""  # hw_gears: the requests the clients send, or why they could not be read
    rate: float = 0.0  # an open loop's requests/s (0: a closed loop of `clients`)
    rejected: float = 0.0  # an open loop's: the share of the requests sent that the queue refused


@dataclass
class _Engine:
    """One stage's engine: its units' busy intervals, and per host thread (one for a shared
    stage) the stream that feeds it, free from its time on (a stream runs in order): the step
    after its event waits, its records after it (device_costs.stream_tasks)."""

    service_s: float
    tasks: StreamTasks
    units: list[list[tuple[float, float]]] = field(default_factory=list)
    streams: list[float] = field(default_factory=list)

    def serve(self, ready: float, thread: int, now: float, service_s: float | None = None) -> float:
        """Work of `thread` ready at `ready` starts when its stream is free and a unit has a
        gap long enough (work booked ahead leaves gaps that later work may fill)."""
        service = self.service_s if service_s is None else service_s
        stream = thread % len(self.streams)
        ready = max(ready, self.streams[stream]) + self.tasks.before_s
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
        self.streams[stream] = best + service + self.tasks.after_s
        return self.streams[stream]


def _engine(stage: StagePlan, plan: Plan) -> _Engine:
    service_s = stage.service_us / 1e6
    per_unit_qps = stage.frames_per_task / service_s
    units = max(1, round(stage.capacity_qps / per_unit_qps))
    streams = 1 if stage.name in plan.shared_stages else plan.threads
    return _Engine(service_s, stream_tasks(plan, stage.name), [[] for _ in range(units)], [0.0] * streams)


@dataclass
class _Queued:
    arrived: float
    client: int
    sent: int  # the client's requests before this one
    width: int  # 0: the model's one shape


def _batch_size(queue: list[_Queued], now: float, plan: Plan, height: int) -> int:
    """How many requests the rule sends now (0: wait): ascgen_batcher.h's form_locked. The
    candidates are the first requests, up to max_batch, ending before the first the padding
    rule keeps out (requests of their own width); a batch the rule ended goes at once."""
    s = plan.serving
    assert s is not None
    shape = PaddedShape(height)
    reachable, shape_break = 0, False
    for q in queue[: s.max_batch]:
        if height and not shape.accepts(q.width):
            shape_break = True
            break
        shape.add(q.width)
        reachable += 1
    if reachable == s.max_batch:
        return s.max_batch
    preferred = [p for p in s.preferred if p <= reachable]
    if preferred:
        return max(preferred)
    if shape_break:
        return reachable
    if reachable and now - queue[0].arrived >= s.max_queue_delay_us / 1e6 - 1e-12:
        return reachable
    return 0


@dataclass
class _Service:
    """What a batch of requests costs at the model and the upload: at the gear of its widest
    request when the requests have their own width (requests), else at its size."""

    plan: Plan
    requests: Requests | None
    model_s: dict[int, float] = field(default_factory=dict)  # by the batch's requests
    hw_gear_s: list[float] = field(default_factory=list)  # at each hw gear (the compiled batch)

    def __post_init__(self) -> None:
        s, model = self.plan.serving, self.plan.model
        assert s is not None and model is not None
        self.model_s = {
            n: execution_s(self.plan, executed_ms(self.plan, n), executed_batch(self.plan, n))
            for n in range(1, s.max_batch + 1)
        }
        self.hw_gear_s = [
            execution_s(self.plan, ms, model.batch, hw_share(s.hw_gears, g))
            for g, ms in zip(s.hw_gears, s.hw_gear_ms, strict=True)
        ]

    def gear(self, taken: list[_Queued]) -> int:
        assert self.plan.serving is not None and self.requests is not None
        return hw_gear_index(self.plan.serving.hw_gears, self.requests.height, max(q.width for q in taken))

    def model(self, taken: list[_Queued]) -> float:
        """An execution: the batch's gear's time (a partial batch is padded to the compiled one),
        at least its bytes at the memory bandwidth (device_costs.execution_s)."""
        if self.requests is None:
            return self.model_s[len(taken)]
        return self.hw_gear_s[self.gear(taken)]

    def upload(self, stage: StagePlan, taken: list[_Queued]) -> float | None:
        """The upload that packs requests copies the batch's requests at its gear (pack_padded)."""
        if self.requests is None or not kind_of(stage.stage).pads_requests(stage, self.plan):
            return None
        assert self.plan.serving is not None
        h, w = self.plan.serving.hw_gears[self.gear(taken)]
        return self.plan.device.engines.h2d.service_us(len(taken) * h * w) / 1e6


@dataclass
class _OpenLoop:
    """An open loop's arrivals (the program's --rate, --arrival): request k at k / rate, or
    with Poisson arrivals after exponential gaps drawn from the run's seed."""

    rate: float
    poisson: bool
    rng: random.Random
    sent: int = 0
    at: float = 0.0

    def next(self) -> float:
        """The time of the next arrival (and counts it)."""
        gap = self.rng.expovariate(self.rate) if self.poisson else 1.0 / self.rate
        self.at = self.at + gap if self.sent else (gap if self.poisson else 0.0)
        self.sent += 1
        return self.at


def predict(
    plan: Plan,
    clients: int,
    requests: int | None = None,
    warmup: int | None = None,
    seed: int | None = None,
    *,
    rate: float | None = None,
    poisson: bool = False,
) -> Prediction:
    """The steady state of `clients` closed-loop clients, or of an open loop at `rate`
    requests/s (constant or Poisson arrivals; the queue's max_size and timeout refuse what does
    not fit, as the program's reject action does): the requests after the first `warmup`
    completed ones (default 300; an open loop's 300 + 4 x the queue's max_size, time for a load
    above capacity to fill the queue), `requests` of them (default 3,000). The clients of a completed batch send
    their next requests in an order the program leaves to the OS scheduler (each waits on its
    own condition variable): drawn at random from `seed`, so a prediction is deterministic.
    Requests of their own width form batches that depend on that order, and an arrangement
    lasts (as in the program, whose runs scatter): without a seed, the mean of SEEDS runs."""
    s = plan.serving
    assert s is not None, "a service's plan (source kind requests)"
    widths = read_requests(plan) if s.hw_gears else None
    sent = widths if isinstance(widths, Requests) else None
    note = sent.describe() if sent else (widths if isinstance(widths, str) else "")

    if warmup is None:
        warmup = WARMUP + (4 * s.queue_max_size if rate else 0)

    def one(k: int) -> Prediction:
        load = _OpenLoop(rate, poisson, random.Random(k)) if rate else None
        return _run(plan, clients, sent, note, requests or 3000, warmup, k, load)

    if (sent is None and not poisson) or seed is not None:
        return one(seed or 0)
    return _mean([one(k) for k in range(SEEDS)])


def _mean(runs: list[Prediction]) -> Prediction:
    return Prediction(
        clients=runs[0].clients,
        qps=statistics.fmean(r.qps for r in runs),
        p50_ms=statistics.fmean(r.p50_ms for r in runs),
        p99_ms=statistics.fmean(r.p99_ms for r in runs),
        mean_batch=statistics.fmean(r.mean_batch for r in runs),
        model_ms=statistics.fmean(r.model_ms for r in runs),
        gear_share=tuple(statistics.fmean(col) for col in zip(*(r.gear_share for r in runs), strict=True)),
        requests=runs[0].requests,
        rate=runs[0].rate,
        rejected=statistics.fmean(r.rejected for r in runs),
    )


def _run(
    plan: Plan,
    clients: int,
    sent: Requests | None,
    note: str,
    requests: int,
    warmup: int,
    seed: int,
    load: _OpenLoop | None = None,
) -> Prediction:
    """One run of the model, the clients of completed batches resubmitting in the order `seed`
    draws; with an open `load`, requests arrive on its schedule instead (events of -1)."""
    s = plan.serving
    assert s is not None
    height = sent.height if sent else 0
    service = _Service(plan, sent)
    frame_stages = [st for st in plan.stages if not st.batch_level and st.service_us > 0]
    batch_stages = [st for st in plan.stages if st.batch_level and st.service_us > 0]
    frames = [_engine(st, plan) for st in frame_stages]
    batches = [_engine(st, plan) for st in batch_stages]
    model = [plan.model is not None and st.name == plan.model.stage for st in batch_stages]
    slots = [s.slots_per_thread] * plan.threads  # free batch slots per host thread
    turn = itertools.cycle(range(plan.threads))
    events: list[tuple[float, int, int]] = []  # (time, order, requests completing; 0: a timer)
    order = itertools.count()
    done: list[tuple[float, float]] = []  # (completion, latency)
    sizes: list[int] = []
    executions: list[tuple[int, float]] = []  # (gear index, model seconds) per batch
    in_batch: dict[int, tuple[int, list[_Queued]]] = {}

    def send(client: int, k: int, at: float) -> _Queued:
        return _Queued(at, client, k, sent.of_client(client, k) if sent else 0)

    queue = [] if load else [send(c, 0, 0.0) for c in range(clients)]  # the clients start in turn
    if load:
        heapq.heappush(events, (load.next(), next(order), -1))
    rejected = 0
    warm: tuple[int, int] | None = None  # (rejected, sent) when the warm-up ended
    wake = random.Random(seed)
    now = 0.0
    while len(done) < warmup + requests:
        if load and s.queue_timeout_us and s.queue_action == "reject":  # too old to be served
            kept = [q for q in queue if now - q.arrived <= s.queue_timeout_us / 1e6]
            rejected, queue = rejected + len(queue) - len(kept), kept
        while any(slots) and queue:
            n = _batch_size(queue, now, plan, height)
            if n == 0:
                heapq.heappush(events, (queue[0].arrived + s.max_queue_delay_us / 1e6, next(order), 0))
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
            for e, st, is_model in zip(batches, batch_stages, model, strict=True):  # the model and the rest
                cost = service.model(taken) if is_model else service.upload(st, taken)
                ready = e.serve(ready, thread, now, cost)
            executions.append((service.gear(taken) if sent else len(s.hw_gear_ms) - 1, service.model(taken)))
            key = next(order)
            in_batch[key] = (thread, taken)
            heapq.heappush(events, (ready, key, n))
        if not events:
            break
        now, key, n = heapq.heappop(events)
        if n == 0:
            continue
        if n < 0 and load:  # an arrival: queued, or refused by a full queue
            full = s.queue_max_size and len(queue) >= s.queue_max_size
            rejected += 1 if full else 0
            queue += [] if full else [send(load.sent - 1, 0, now)]
            heapq.heappush(events, (load.next(), next(order), -1))
            continue
        thread, taken = in_batch.pop(key)
        for q in wake.sample(taken, len(taken)):  # each client sends its next request at once
            done.append((now, now - q.arrived))
            if not load:
                queue.append(send(q.client, q.sent + 1, now))
        if load and warm is None and len(done) >= warmup:
            warm = rejected, load.sent
        slots[thread] += 1
    measured = done[warmup:]
    if len(measured) < 2:
        return Prediction(clients, 0.0, 0.0, 0.0, 0.0)
    span = measured[-1][0] - done[warmup - 1][0] if warmup else measured[-1][0]
    latencies = sorted(lat for _, lat in measured)
    steady = executions[len(executions) // 10 :]
    gears = [g for g, _ in steady]
    return Prediction(
        clients=clients,
        qps=len(measured) / span if span > 0 else 0.0,
        p50_ms=statistics.median(latencies) * 1e3,
        p99_ms=latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))] * 1e3,
        mean_batch=statistics.fmean(sizes[len(sizes) // 10 :]) if sizes else 0.0,
        model_ms=statistics.fmean(ms for _, ms in steady) * 1e3 if steady else 0.0,
        gear_share=tuple(gears.count(k) / len(gears) for k in range(len(s.hw_gears))) if gears else (),
        requests=note,
        rate=load.rate if load else 0.0,
        rejected=_share(rejected, load.sent - 1, warm) if load else 0.0,
    )


def _share(rejected: int, arrived: int, warm: tuple[int, int] | None) -> float:
    """The share of the arrivals after the warm-up that the queue refused."""
    before, sent = warm or (0, 1)
    return (rejected - before) / max(1, arrived - sent + 1)


def executed_batch(plan: Plan, n: int) -> int:
    """The batch ``n`` requests execute at: the smallest gear that holds them, or the compiled
    batch (padded)."""
    s = plan.serving
    assert s is not None
    return gear_for(s.gears, n) if s.gears else s.executed_batch


def executed_ms(plan: Plan, n: int) -> float:
    """The model's time for a batch of ``n`` requests, at the batch it executes at."""
    assert plan.model is not None and plan.serving is not None
    if not plan.serving.gears:
        return plan.model.latency_ms
    return plan.model.gear_ms[executed_batch(plan, n)]


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
        runs = executed_batch(plan, n)
        if 0 < n < runs:
            out.append((n, runs, 1 - n / runs))
    return out
