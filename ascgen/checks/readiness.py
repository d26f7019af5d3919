"""What a valid spec needs around it to run as written, reported by `validate`: its input
(source.path) on disk relative to the spec, its model file when it is to run on a real device,
and an SLO that the plan's roofline can meet.

A missing input is a warning (`--input` overrides it at run time); an SLO above the roofline is
a warning (the roofline is a prediction); a missing model is an error for the cann backend and
not reported for the simulator, which runs from a generated descriptor."""

from __future__ import annotations

from pathlib import Path

from ascgen.dsl import spec as dsl
from ascgen.dsl.diagnostics import Diagnostic
from ascgen.dsl.yaml_loader import SourceMap
from ascgen.plan.model import Plan
from ascgen.stages.registry import kind_of


def _warning(smap: SourceMap, loc: tuple[str | int, ...], message: str) -> Diagnostic:
    d = smap.error(loc, message)
    return Diagnostic(d.path, d.position, d.message, severity="warning")


def readiness_warnings(
    spec_path: Path, spec: dsl.Spec, plan: Plan, smap: SourceMap, backend: str = "sim"
) -> list[Diagnostic]:
    """Warnings, and for ``backend`` cann the errors of missing models."""
    base = spec_path.parent
    out: list[Diagnostic] = []
    files = spec.source.files
    if files is not None and not (base / files).exists():
        out.append(
            _warning(
                smap,
                ("source", spec.source.files_key),
                f"the input '{files}' does not exist next to the spec ({base / files}); "
                "the program's default run will fail: create it or run with --input",
            )
        )
    for i, stage in enumerate(spec.stages):
        model_path = getattr(stage, "path", None)
        missing = isinstance(model_path, str) and not (base / model_path).exists()
        if backend == "cann" and kind_of(stage).takes_batches and missing:
            message = (
                f"the model '{model_path}' does not exist next to the spec ({base / str(model_path)}); "
                "a real device loads it: put the .om file there or give the program --model"
            )
            out.append(smap.error(("stages", i, "path"), message))
    slo = spec.slo
    if slo is not None and slo.min_qps is not None and slo.min_qps > plan.deployed_qps:
        devices = len(plan.deployment.device_ids)
        over = f" over {devices} devices" if devices > 1 else ""
        out.append(
            _warning(
                smap,
                ("slo", "min_qps"),
                f"slo.min_qps {slo.min_qps:g} is above the plan's roofline of {plan.deployed_qps:,.0f} frames/s{over} "
                f"(bottleneck {plan.bottleneck}); no configuration can meet it: lower it or change the pipeline",
            )
        )
    return out
