"""The planner's view of one configuration: the spec with the configuration applied, planned
as ``ascgen plan`` would, so that a measured QPS can be set against its roofline."""

from __future__ import annotations

from pathlib import Path

from ascgen.analysis import analyze_data
from ascgen.bench.schema import Config
from ascgen.diagnostics import SpecError
from ascgen.errors import UserError
from ascgen.plan_model import Plan
from ascgen.spec import Spec
from ascgen.validate import parse_file
from ascgen.yaml_loader import SourceMap


class PointDoesNotFit(UserError):
    """The configuration fails the spec's checks (memory, streams, events); one line."""


def apply(spec: Spec, config: Config) -> Spec:
    """``spec`` with the configuration's threads, depth, batch, streams and sync_every."""
    data = spec.model_dump()
    data.update(threads=config.threads, batch=config.batch, streams=config.streams, sync_every=config.sync_every)
    data["buffers"] = {**data["buffers"], "depth": config.depth}
    return Spec.model_validate(data)


class Planner:
    """Plans configurations of one spec file (parsed once)."""

    def __init__(self, spec_path: Path) -> None:
        parsed: tuple[Spec, SourceMap] = parse_file(spec_path)
        self.spec, self._smap = parsed

    def plan(self, config: Config) -> Plan:
        try:
            return analyze_data(apply(self.spec, config), self._smap)
        except SpecError as exc:
            first = exc.sorted()[0].message
            more = len(exc.diagnostics) - 1
            extra = f" (and {more} more)" if more else ""
            raise PointDoesNotFit(f"{config.label()}: {first}{extra}") from None
