"""The planner's view of the configurations of one spec: the spec configured
(ascgen.dsl.configure) and planned as ``ascgen plan`` would, so that a measured QPS can be set
against its roofline. Each configuration is planned once; the bench and its builds share it."""

from __future__ import annotations

from pathlib import Path

from ascgen.bench.schema import DEVICE_KEYS, LOAD_KEYS, RUN_KEYS, Config
from ascgen.common.errors import UserError
from ascgen.dsl.configure import configure
from ascgen.dsl.diagnostics import SpecError
from ascgen.dsl.parse import parse_file
from ascgen.dsl.spec import Spec
from ascgen.dsl.yaml_loader import SourceMap
from ascgen.pipeline import analyze_data
from ascgen.plan.model import Plan


class PointDoesNotFit(UserError):
    """The configuration fails the spec's checks (memory, streams, events); one line."""


def variant_config(spec: Spec, config: Config) -> Config:
    """The configuration a build of ``config`` is generated with: what the program bakes in
    (batch, streams, sync_every) from ``config``; threads and depth, run-time flags whose
    defaults the program also holds, from the spec, so one build serves every point."""
    run_time = dict.fromkeys((*LOAD_KEYS, *DEVICE_KEYS, *RUN_KEYS))
    return config.model_copy(update={"threads": spec.threads, "depth": spec.buffers.depth, **run_time})


def roofline_of(plan: Plan) -> float:
    """What a run of ``plan`` can reach: over several devices the deployment's aggregate."""
    return plan.deployed_qps


class Planner:
    """Plans configurations of one spec file (parsed once, each configuration planned once)."""

    def __init__(self, spec_path: Path) -> None:
        parsed: tuple[Spec, SourceMap] = parse_file(spec_path)
        self.spec, self._smap = parsed
        self._planned: dict[Config, tuple[Spec, Plan]] = {}

    def configured(self, config: Config) -> tuple[Spec, Plan]:
        """The spec with ``config`` applied, and its plan."""
        if config not in self._planned:
            spec = configure(self.spec, config.settings())
            if config.devices is not None:  # the first n of the spec's devices
                ids = [int(d) for d in config.devices.split(",")]
                spec = spec.model_copy(update={"device": spec.device.model_copy(update={"ids": ids})})
            try:
                self._planned[config] = spec, analyze_data(spec, self._smap)
            except SpecError as exc:
                first = exc.sorted()[0].message
                more = len(exc.diagnostics) - 1
                extra = f" (and {more} more)" if more else ""
                raise PointDoesNotFit(f"{config.label()}: {first}{extra}") from None
        return self._planned[config]

    def plan(self, config: Config) -> Plan:
        return self.configured(config)[1]

    def variant(self, config: Config) -> tuple[Spec, Plan]:
        """The spec and plan of the program that runs ``config`` (see variant_config)."""
        return self.configured(variant_config(self.spec, config))
