"""The tune's Measurer and Oracle on the bench's machinery: the bench's Planner
(ascgen.bench.roofline) plans a point; a build per program variant through the bench's
builder (ascgen.codegen.build's cache); runs with ascgen.bench.session.measure_point (the program's
JSON parsed by ascgen.bench.schema); the records assemble into an ordinary results file."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ascgen.bench import session, stats
from ascgen.bench.roofline import Planner, variant_config
from ascgen.bench.runner import run_program
from ascgen.bench.schema import BenchResults, Config, RunRecord
from ascgen.common.errors import AscgenError
from ascgen.tune.goal import Measurement
from ascgen.tune.search import PointFailed


class BenchMeasurer:
    def __init__(
        self,
        request: session.Request,
        planner: Planner,
        builder: session.Builder,
        monitor: session.Monitor,
        runner: session.Runner = run_program,
    ) -> None:
        self.request, self.planner, self.builder, self.monitor, self.runner = request, planner, builder, monitor, runner
        self.runs: list[RunRecord] = []
        self.backend: str | None = None
        self._binaries: dict[Config, Path] = {}

    def roofline(self, config: Config) -> float:
        """The planned roofline of the whole run (over several devices, the deployment's: the
        measured QPS is their total); PointDoesNotFit (a UserError) when the plan refuses the point."""
        return self.planner.plan(config).deployed_qps

    def measure(self, config: Config) -> Measurement:
        """``repeat`` runs of ``config``: their median QPS and the p99 of all their frames."""
        try:
            binary = self._binary(config)
        except AscgenError as exc:  # a build that failed, or a variant the planner refuses
            raise PointFailed(str(exc)) from None
        mine = []
        for repeat in range(1, self.request.repeat + 1):
            point = session.Point(binary, config, self.planner.plan(config))
            run = session.measure_point(self.request, self.runner, self.monitor, point, repeat)
            if isinstance(run, str):
                raise PointFailed(run)
            self.backend = self.backend or run.backend
            self.runs.append(run.record)
            mine.append(run.record)
            self.monitor.run_done(run.record)
        summary = stats.summarize(mine)[0]
        return Measurement(qps=summary.qps_median, p99_ms=summary.latency_ms.p99)

    def _binary(self, config: Config) -> Path:
        key = variant_config(self.planner.spec, config)
        if key not in self._binaries:
            label = session.variant_label(config)
            self.monitor.building(label)
            spec, plan = self.planner.variant(config)
            result = self.builder(self.request.spec_path, spec, plan)
            self.monitor.built(label, result.cached)
            self._binaries[key] = result.binary
        return self._binaries[key]

    def results(
        self, started: datetime, git: session.GitState, swept: list[str], interrupted: str | None
    ) -> BenchResults | None:
        """The runs so far as a bench results file (``ascgen compare`` reads it); None before any."""
        if not self.runs:
            return None
        return session.assemble(self.request, self.planner, started, git, self.backend, swept, self.runs, interrupted)
