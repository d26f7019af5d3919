"""The spec's service-level objectives (``slo.max_p99_ms``, ``slo.min_qps``) as gates on every
measured configuration (its median over repeats)."""

from __future__ import annotations

from collections.abc import Sequence

from ascgen.bench.schema import SloMiss, Summary
from ascgen.dsl.spec import Slo


def gates(slo: Slo | None) -> dict[str, float]:
    if slo is None:
        return {}
    return {k: v for k, v in (("max_p99_ms", slo.max_p99_ms), ("min_qps", slo.min_qps)) if v is not None}


def misses(summaries: Sequence[Summary], slo: Slo | None) -> list[SloMiss]:
    out = []
    limits = gates(slo)
    for s in summaries:
        if "max_p99_ms" in limits and s.latency_ms.p99 > limits["max_p99_ms"]:
            out.append(
                SloMiss(
                    config=s.label(), what=f"p99 {s.latency_ms.p99:,.1f} ms > slo.max_p99_ms {limits['max_p99_ms']:g}"
                )
            )
        if "min_qps" in limits and s.qps_median < limits["min_qps"]:
            out.append(SloMiss(config=s.label(), what=f"QPS {s.qps_median:,.1f} < slo.min_qps {limits['min_qps']:g}"))
    return out
