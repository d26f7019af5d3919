"""The front end in one call: load a spec file, check it, plan it, check the plan; every problem
of a step is reported at once (ascgen/checks/ holds the checks)."""

from __future__ import annotations

from pathlib import Path

from ascgen.checks import spec as checks
from ascgen.checks.deployment import check_deployment
from ascgen.checks.partial import unique
from ascgen.checks.planned import check_planned
from ascgen.dsl import profile as profiles
from ascgen.dsl import spec as dsl
from ascgen.dsl.diagnostics import SpecError
from ascgen.dsl.parse import parse_file, parse_text
from ascgen.dsl.yaml_loader import SourceMap
from ascgen.plan.model import Plan
from ascgen.plan.planner import make_plan


def analyze_data(spec: dsl.Spec, smap: SourceMap) -> Plan:
    profile_errors = checks.check_profile(spec, smap)
    diags = profile_errors + checks.check_structure(spec, smap)
    if not profile_errors:  # each stage's own checks do not wait for the structure's to pass
        diags += checks.check_stages(spec, profiles.load(spec.device.profile), smap)
        diags += check_deployment(spec, profiles.load(spec.device.profile), smap)
    if diags:
        raise SpecError(unique(diags))
    prof = profiles.load(spec.device.profile)
    lines = [smap.find(("stages", i)).line for i in range(len(spec.stages))]
    plan = make_plan(spec, prof, lines, smap.path)
    diags = check_planned(spec, prof, plan, smap)
    if diags:
        raise SpecError(diags)
    return plan


def analyze_file(path: Path) -> tuple[dsl.Spec, Plan]:
    spec, smap = parse_file(path)
    return spec, analyze_data(spec, smap)


def analyze_text(text: str, path: str = "spec.yaml") -> tuple[dsl.Spec, Plan]:
    spec, smap = parse_text(text, path)
    return spec, analyze_data(spec, smap)
