"""`ascgen plan` output: Rich tables for people, JSON for tools."""

from __future__ import annotations

import json
import math
from typing import Any

from rich.console import Console
from rich.table import Table

from ascgen.deploy.model import DeploymentPlan
from ascgen.plan.fanout import fanout_lines
from ascgen.plan.model import Plan
from ascgen.plan.video import video_lines
from ascgen.serving.report import print_serving, roofline_note


def _mib(n: int) -> str:
    return f"{n / 2**20:,.1f} MiB"


def _pct(used: int, budget: int) -> str:
    return f"{100.0 * used / budget:.1f} %" if budget else "-"


def print_plan(plan: Plan, console: Console) -> None:
    console.print(
        f"[bold]{plan.name}[/] on [bold]{plan.profile}[/]: {plan.threads} thread(s), "
        f"streams {plan.streams}, batch {plan.batch}, "
        + (f"depth {plan.depth}" if plan.streams == "per_stage" else f"sync every {plan.sync_every}")
    )

    print_graph(plan, console)
    edges = Table(title="Buffers between stages", title_justify="left")
    for col in ("stage", "line", "output", "width", "height", "width stride", "height stride", "bytes"):
        edges.add_column(col, justify="right" if col not in ("stage", "output") else "left")
    for s in plan.stages:
        g = s.output
        if g is None:
            edges.add_row(s.name, str(s.line), "host", "", "", "", "", "")
            continue
        pic = g.is_picture
        edges.add_row(
            s.name,
            str(s.line),
            g.kind,
            str(g.width) if pic else "",
            str(g.height) if pic else "",
            str(g.width_stride) if pic else "",
            str(g.height_stride) if pic else "",
            f"{g.bytes:,}",
        )
    console.print(edges)

    pools = Table(title="Buffer pools (one ring per thread)", title_justify="left")
    for col in ("pool", "memory", "per", "slot bytes", "allocated", "slots", "threads", "total"):
        pools.add_column(col, justify="left" if col in ("pool", "memory", "per") else "right")
    for p in plan.pools:
        pools.add_row(
            p.name,
            p.memory,
            p.per,
            f"{p.slot_bytes:,}",
            f"{p.alloc_bytes:,}",
            str(p.slots),
            str(p.threads),
            _mib(p.total_bytes),
        )
    console.print(pools)

    m = plan.memory
    mem = Table(title="Memory against the device budget", title_justify="left")
    for col in ("memory", "used", "budget", "used %"):
        mem.add_column(col, justify="left" if col == "memory" else "right")
    mem.add_row(
        "device (pools + DVPP + models)",
        _mib(m.device_bytes),
        _mib(m.device_budget_bytes),
        _pct(m.device_bytes, m.device_budget_bytes),
    )
    mem.add_row(
        "  of which DVPP", _mib(m.dvpp_bytes), _mib(m.dvpp_budget_bytes), _pct(m.dvpp_bytes, m.dvpp_budget_bytes)
    )
    mem.add_row("  of which models", _mib(m.model_bytes), "", "")
    mem.add_row("host pinned", _mib(m.host_pinned_bytes), "", "")
    console.print(mem)

    perf = Table(title="Predicted throughput (frames/s)", title_justify="left")
    for col in ("limit", "frames/s", "why"):
        perf.add_column(col, justify="right" if col == "frames/s" else "left")
    for b in sorted(plan.bounds, key=lambda b: b.qps):
        style = "bold red" if b.name == plan.bottleneck else ""
        perf.add_row(b.name, f"{b.qps:,.0f}", b.why, style=style)
    console.print(perf)
    console.print(f"batching: {plan.batching.mode} ({plan.batching.why})")
    if plan.model is not None:
        console.print(f"model instances: {model_instances(plan)}")
    console.print(
        f"streams per thread: {plan.streams_per_thread}, events per thread: "
        f"{plan.events_per_thread}, device tasks per frame: {plan.device_tasks_per_frame:.2f}"
    )
    console.print(
        f"[bold]roofline: {plan.roofline_qps:,.0f} frames/s, bottleneck: {plan.bottleneck}[/] "
        f"({plan.uncontended_qps:,.0f} frames/s if the engines did not share the device's memory bandwidth; "
        f"{plan.ddr_bytes_per_frame / 1e6:.2f} MB of memory traffic per frame{roofline_note(plan)})"
    )
    print_serving(plan, console)
    for line in fanout_lines(plan.fanout) if plan.fanout is not None else []:
        console.print(line)
    for line in video_lines(plan.video) if plan.video is not None else []:
        console.print(line)
    if len(plan.deployment.device_ids) > 1:
        print_deployment(plan.deployment, console)


def print_graph(plan: Plan, console: Console) -> None:
    """What each stage reads and what flows there: one row per edge of the graph."""
    table = Table(title="Graph (what each stage reads)", title_justify="left")
    for col in ("stage", "reads", "port", "flows", "named in the spec"):
        table.add_column(col, justify="left")
    for e in plan.graph.edges:
        table.add_row(e.dst, e.src or "the source", e.port, e.flow, "yes" if e.written else "no: the stage before")
    console.print(table)


def print_deployment(d: DeploymentPlan, console: Console) -> None:
    """Where scaling over several devices stops: each host link against its devices' demand."""
    n = len(d.device_ids)
    table = Table(title=f"Deployment: {n} devices of an {d.product}, {d.deploy}", title_justify="left")
    for col in ("host link", "devices", "demand GB/s", "link GB/s", "link frames/s", "devices frames/s"):
        table.add_column(col, justify="left" if col in ("host link", "devices") else "right")
    for lk in d.links:
        table.add_row(
            str(lk.link),
            ",".join(str(x) for x in lk.devices),
            f"{lk.demand_GBps:.2f}",
            f"{lk.bandwidth_GBps:g}",
            f"{lk.qps:,.0f}",
            f"{len(lk.devices) * d.per_device_qps:,.0f}",
        )
    console.print(table)
    console.print(
        f"[bold]aggregate roofline: {d.aggregate_qps:,.0f} frames/s on {n} devices "
        f"({100 * d.scaling:.1f} % of {n} x {d.per_device_qps:,.0f}), bottleneck: {d.bottleneck}[/] "
        f"({d.host_link_bytes_per_frame / 1e3:.1f} kB per frame cross the host link the busier way; "
        "its devices share it whether one process drives them or a process each, on the device and in the simulator)"
    )


def plan_json(plan: Plan) -> dict[str, Any]:
    data = plan.model_dump(mode="json")
    for stage in data["stages"]:
        stage["capacity_qps"] = round(stage["capacity_qps"], 3)
        stage["service_us"] = round(stage["service_us"], 3)
    data["roofline_qps"] = round(plan.roofline_qps, 3)
    return data


def strict(value: Any) -> Any:
    """``value`` with every infinite or NaN number replaced by None, so that it is strict JSON:
    an infinite capacity or roofline (nothing bounds it) is written as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: strict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strict(v) for v in value]
    return value


def dumps(plan: Plan) -> str:
    """The plan as strict JSON (RFC 8259: no Infinity or NaN; unbounded numbers are null)."""
    return json.dumps(strict(plan_json(plan)), indent=2, sort_keys=False, allow_nan=False) + "\n"


def model_instances(plan: Plan) -> str:
    """How many instances of the model (and of a graph's model of objects) run, and on which streams."""
    assert plan.model is not None
    objects = plan.objects_model
    if plan.model.stage not in plan.shared_stages:
        own = f"{plan.model.instances}, one per thread"
        return own if objects is None else f"{own}, and each thread's object part its own of '{objects.stage}'"
    if objects is None:
        return "one, on one stream every thread's batches take turns on: the AI Core never switches between instances"
    each = (
        "one each"
        if objects.stage in plan.shared_stages
        else f"one of '{plan.model.stage}', one per thread of '{objects.stage}'"
    )
    return (
        f"{each} ('{plan.model.stage}', '{objects.stage}'), on the AI Core's one stream every thread's batches and "
        "objects take turns on: the AI Core never switches streams, only models (each switch reloads the weights)"
    )
