"""What ``ascgen plan`` shows of a service: the batcher, how a partial batch runs and what its
padding costs, and the predicted QPS and latency under a closed-loop load
(ascgen/serving/predict.py)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ascgen.checks.serving import PADDING_ABSOLUTE_ELEMENTS
from ascgen.plan.model import Plan
from ascgen.serving.predict import SEEDS, executed_ms, padding_cost, predictions
from ascgen.serving.requests import Requests, read_requests


def print_serving(plan: Plan, console: Console) -> None:
    s = plan.serving
    if s is None:
        return
    preferred = f", preferred {s.preferred}" if s.preferred else ""
    delay = f", waits up to {s.max_queue_delay_us} us for more" if s.max_queue_delay_us else ""
    queue = f"queue of {s.queue_max_size}" if s.queue_max_size else "unbounded queue"
    timeout = f", timeout {s.queue_timeout_us} us ({s.queue_action})" if s.queue_timeout_us else ""
    console.print(
        f"[bold]serving:[/] requests, batches of up to {s.max_batch}{preferred}{delay}; {queue}{timeout}; "
        f"{s.priorities} priority level(s); {s.slots} batches in flight ({s.slots_per_thread} per thread)"
    )
    costs = ", ".join(f"{n} requests at {runs}: {share:.0%}" for n, runs, share in padding_cost(plan))
    if s.gears:
        times = ", ".join(f"{g}: {executed_ms(plan, g):.2f} ms" for g in s.gears)
        console.print(
            f"partial batches: at the smallest of the model's dynamic batch gears that holds them "
            f"(aclmdlSetDynamicBatchSize before each execute; {times}); padding's share: {costs or 'none'}"
        )
    elif s.executed_batch > 1:
        console.print(
            f"partial batches: padded to the model's batch of {s.executed_batch} (the model has no dynamic batch "
            f"gears): every execution costs the full batch's time; padding's share of the model's work: {costs}"
        )
    else:
        console.print("partial batches: none (one request per execution, the model's batch is 1)")
    if s.hw_gears:
        times = ", ".join(f"{h}x{w}: {ms:.2f} ms" for (h, w), ms in zip(s.hw_gears, s.hw_gear_ms, strict=True))
        console.print(
            f"requests of their own width: merged only under Paddle Serving's padding rule (padded elements at "
            f"most {PADDING_ABSOLUTE_ELEMENTS:,} more than a request's, or each request at least half of them), "
            f"zero-padded to the batch's widest, run at the smallest height x width gear that holds it "
            f"(aclmdlSetDynamicHWSize before each execute; a batch of {s.executed_batch} at {times}); a request "
            f"wider than {s.hw_gears[-1][1]} is refused at start-up; {what_is_predicted(plan)}"
        )
    predicted = predictions(plan)
    table = Table(title="Predicted service (closed loop)", title_justify="left")
    for col in ("clients", "QPS", "p50 ms", "p99 ms", "mean batch"):
        table.add_column(col, justify="right")
    if s.hw_gears:
        table.add_column("model ms per batch", justify="right")
        table.add_column("batches per gear", justify="left")
    for p in predicted:
        row = [str(p.clients), f"{p.qps:,.1f}", f"{p.p50_ms:,.1f}", f"{p.p99_ms:,.1f}", f"{p.mean_batch:.1f}"]
        if s.hw_gears:
            shares = zip(s.hw_gears, p.gear_share, strict=False)
            row += [f"{p.model_ms:.2f}", ", ".join(f"{h}x{w}: {x:.0%}" for (h, w), x in shares)]
        table.add_row(*row)
    console.print(table)
    if s.hw_gears and predicted and isinstance(read_requests(plan), Requests):
        top = max(predicted, key=lambda p: p.clients)
        console.print(
            f"the roofline above runs every batch full ({s.executed_batch} requests) at the largest gear; with these "
            f"requests the service saturates at about {top.qps:,.0f} requests/s (the prediction at {top.clients} "
            f"clients: batches of {top.mean_batch:.1f} requests that the padding rule keeps apart, "
            f"{top.model_ms:.2f} ms of model time each at the gears their widest requests need)"
        )


def what_is_predicted(plan: Plan) -> str:
    """What the predictions of a service with height/width gears serve: the spec's requests, or
    (they cannot be read) every batch at the largest gear."""
    requests = read_requests(plan)
    if isinstance(requests, str):
        return f"predictions below assume the largest gear ({requests})"
    n = len(requests.widths)
    return (
        f"predictions below serve the spec's {requests.describe()}, client c's k-th request being "
        f"input (c + k) mod {n} of {requests.folder.as_posix()} (sorted by name), each batch at its gear; the "
        f"clients of a completed batch resubmit in an order the OS scheduler decides: the mean of {SEEDS} seeded orders"
    )


def roofline_note(plan: Plan) -> str:
    """What the roofline means for a service whose requests pick the model's gear."""
    s = plan.serving
    if s is None or not s.hw_gears:
        return ""
    return "; every batch full at the largest gear, not this service's ceiling: see serving below"
