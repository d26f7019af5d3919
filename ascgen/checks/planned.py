"""Checks that need the plan: each stage kind's own (check_planned), batch assembly, streams
and events against the device's limits, and memory against its budgets (naming the largest
use and what would fit)."""

from __future__ import annotations

from ascgen.dsl import spec as dsl
from ascgen.dsl.diagnostics import Diagnostic
from ascgen.dsl.profile import Profile
from ascgen.dsl.yaml_loader import SourceMap
from ascgen.plan.model import Plan
from ascgen.plan.planner import largest_fitting, limits_missed
from ascgen.stages.registry import context, kind_of


def check_planned(spec: dsl.Spec, prof: Profile, plan: Plan, smap: SourceMap) -> list[Diagnostic]:
    """Checks that need the plan: the stages' own, batch assembly, streams and events, memory."""
    out: list[Diagnostic] = []
    for i, stage in enumerate(spec.stages):
        out += kind_of(stage).check_planned(context(spec, prof, i, smap), plan)
    copy_align = prof.align.memcpy_async_addr
    batching = plan.batching
    if batching.mode == "copy" and batching.frame_bytes % copy_align:
        i = next(s.index for s in plan.stages if s.name == batching.frame_stage)
        out.append(
            smap.error(
                ("stages", i, "out"),
                f"a frame is {batching.frame_bytes} bytes, not a multiple of {copy_align}, so frame i of a batch "
                f"cannot start at i x that offset (aclrtMemcpyAsync needs {copy_align}-byte aligned addresses); "
                f"choose an output whose width x height x 3/2 is a multiple of {copy_align}",
            )
        )
    if not limits_missed(plan, prof):
        return out
    fix = _fix(spec, prof)
    streams = plan.streams_per_thread * spec.threads + plan.shared_streams
    if streams > prof.limits.max_streams:
        out.append(smap.error(("threads",), f"{streams} streams exceed the device's {prof.limits.max_streams}{fix}"))
    events = plan.events_per_thread * spec.threads
    if events > prof.limits.max_events:
        knob = ("buffers", "depth") if spec.streams == "per_stage" else ("threads",)
        out.append(
            smap.error(
                knob,
                f"{events} events ({plan.events_per_thread} per thread "
                f"x {spec.threads} threads) exceed the device's {prof.limits.max_events}{fix}",
            )
        )
    out += _memory(spec, prof, plan, smap, fix)
    return out


def _fix(spec: dsl.Spec, prof: Profile) -> str:
    """One hint that meets every limit at once (memory, events, streams), with the numbers."""
    window, threads = largest_fitting(spec, prof)
    knob = "buffers.depth" if spec.streams == "per_stage" else "sync_every"
    fixes = []
    if window:
        fixes.append(f"{knob} <= {window}")
    if threads:
        fixes.append(f"threads <= {threads}")
    if not fixes:
        return "; no depth or thread count meets every limit (memory, events, streams)"
    return f"; every limit (memory, events, streams) is met with {' or '.join(fixes)}"


def _memory(spec: dsl.Spec, prof: Profile, plan: Plan, smap: SourceMap, fix: str) -> list[Diagnostic]:
    mem = plan.memory
    over: list[tuple[str, str | None, int, int]] = []
    if mem.dvpp_bytes > mem.dvpp_budget_bytes:
        over.append(("DVPP", "dvpp", mem.dvpp_bytes, mem.dvpp_budget_bytes))
    if mem.device_bytes > mem.device_budget_bytes:
        over.append(("device", None, mem.device_bytes, mem.device_budget_bytes))
    if not over:
        return []
    out = []
    for label, kind, need, budget in over:
        pools = [p for p in plan.pools if (kind is None and p.memory != "host_pinned") or p.memory == kind]
        big = max(pools, key=lambda p: p.total_bytes)
        model = plan.model
        if kind is None and model is not None and mem.model_bytes > big.total_bytes:
            # The loaded models, one instance per thread, are the largest consumer.
            culprit = model.stage
            how = "instance (shared)" if model.stage in plan.shared_stages else "instances (one per thread)"
            largest = (
                f"the largest use is model '{model.stage}': {model.memory_bytes:,} B x {model.instances} {how} "
                f"= {mem.model_bytes:,} B"
            )
        else:
            culprit = big.stage
            largest = (
                f"largest pool '{big.name}' is {big.alloc_bytes:,} B x {big.slots} slots x "
                f"{big.threads} threads = {big.total_bytes:,} B"
            )
        i = next(i for i, s in enumerate(spec.stages) if s.name == culprit)
        out.append(
            smap.error(
                ("stages", i),
                f"out of {label} memory on {prof.name}: the plan needs {need:,} bytes, the budget is "
                f"{budget:,}; {largest}{fix}",
            )
        )
    return out
