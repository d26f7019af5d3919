"""``ascgen tune --ray ADDRESS|auto``: each measurement as a Ray task that asks for one device
(``{"NPU": 1}`` on Ascend hosts; ``{"ascgen_sim_device": 1}``, a custom resource standing for
a simulated device, otherwise), builds the program on its node (its own build cache, at the
same --build-dir), runs it and returns the program's JSON with the node's host name. A task
lost with its node is retried elsewhere by Ray. Every node needs the same checkout (the spec,
its inputs and models at the same paths). Ray is optional: ``pip install 'ascgen[ray]'``.
"""

from __future__ import annotations

import importlib
import json
import socket
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from ascgen.bench import session, stats
from ascgen.bench.roofline import Planner, variant_config
from ascgen.bench.schema import Config, ProgramReport
from ascgen.common.errors import AscgenError, UserError
from ascgen.common.fileio import write_atomic
from ascgen.dsl.spec import Spec
from ascgen.plan.model import Plan
from ascgen.tune.goal import Measurement
from ascgen.tune.measure import BenchMeasurer
from ascgen.tune.search import PointFailed

INSTALL = "pip install 'ascgen[ray]'"
SIM_DEVICE = "ascgen_sim_device"
RETRIES = 3  # a task whose node is lost is run again on another


def import_ray() -> ModuleType:
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise UserError(f"--ray needs Ray, which is not installed; install it: {INSTALL}") from None


def device_resource(backend: str) -> str:
    return "NPU" if backend == "cann" else SIM_DEVICE


def measure_on_node(
    spec_path: str, config: dict[str, Any], options: dict[str, Any], repeat: int, backend: str, build_root: str
) -> dict[str, Any]:
    """Runs on a Ray worker: build the variant there, run it ``repeat`` times; the reports, or
    the one-line error, with the node's host name."""
    from ascgen.bench.runner import RunOptions, run_program
    from ascgen.codegen.build import build_variant

    host = socket.gethostname()
    point = Config.model_validate(config)
    try:
        spec = Planner(Path(spec_path)).spec
        variant = variant_config(spec, point).settings()
        built = build_variant(Path(spec_path), variant, backend=backend, build_root=Path(build_root))
        reports = []
        with tempfile.TemporaryDirectory(prefix="ascgen-tune-") as tmp:
            for r in range(1, repeat + 1):
                report = run_program(built.binary, point, RunOptions(**options), Path(tmp) / f"run{r}.json")
                reports.append(report.model_dump(mode="json"))
    except AscgenError as exc:
        return {"host": host, "error": str(exc)}
    return {"host": host, "reports": reports}


def _builds_on_the_nodes(spec_path: Path, spec: Spec, plan: Plan) -> session.Built:
    raise AssertionError("with --ray, programs are built by the tasks, on their nodes")


class RayMeasurer(BenchMeasurer):
    """A BenchMeasurer whose runs happen on a Ray cluster (the planning stays here)."""

    def __init__(self, request: session.Request, planner: Planner, monitor: session.Monitor, address: str,
                 backend: str, build_root: Path) -> None:  # fmt: skip
        super().__init__(request, planner, _builds_on_the_nodes, monitor)
        self.ray = import_ray()
        if not self.ray.is_initialized():
            self.ray.init(address=address, log_to_driver=False)
        self.task = self.ray.remote(measure_on_node).options(
            resources={device_resource(backend): 1}, num_cpus=1, max_retries=RETRIES
        )
        self.backend_flag, self.build_root = backend, build_root
        self.slots = max(1, int(self.ray.cluster_resources().get(device_resource(backend), 1)))

    def measure(self, config: Config) -> Measurement:
        return self._collect(config, self._submit(config))

    def measure_many(self, configs: list[Config]) -> list[Measurement | PointFailed]:
        """One task per point, all at once (``slots`` devices in the cluster)."""
        refs = [self._submit(config) for config in configs]
        out: list[Measurement | PointFailed] = []
        for config, ref in zip(configs, refs, strict=True):
            try:
                out.append(self._collect(config, ref))
            except PointFailed as exc:
                out.append(exc)
            except KeyboardInterrupt:
                for other in refs:
                    self.ray.cancel(other, force=True)
                raise
        return out

    def _submit(self, config: Config) -> Any:
        self.monitor.run_started(config, 1, self.request.repeat)
        options = self.request.options
        opts = {"duration_s": options.duration_s, "warmup_s": options.warmup_s, "pin": options.pin}
        opts["input"] = str(options.input.resolve()) if options.input else None
        spec = str(self.request.spec_path.resolve())
        return self.task.remote(
            spec, config.model_dump(), opts, self.request.repeat, self.backend_flag, str(self.build_root)
        )

    def _collect(self, config: Config, ref: Any) -> Measurement:
        try:
            done = self.ray.get(ref)
        except KeyboardInterrupt:
            self.ray.cancel(ref, force=True)
            raise
        except self.ray.exceptions.RayError as exc:
            raise PointFailed(f"Ray task failed: {str(exc).splitlines()[0]}") from None
        if "error" in done:
            raise PointFailed(f"on {done['host']}: {done['error']}")
        return self._record(config, done["host"], [ProgramReport.model_validate(d) for d in done["reports"]])

    def _record(self, config: Config, host: str, reports: list[ProgramReport]) -> Measurement:
        plan = self.planner.plan(config)
        mine = []
        for repeat, report in enumerate(reports, 1):
            mismatch = session.disagreement(config, report)
            if mismatch:
                raise PointFailed(f"run {config.label()} on {host} is not what was asked: {mismatch}")
            raw = Path("raw") / session.raw_name(config, repeat)
            write_atomic(self.request.out_dir / raw, json.dumps(report.model_dump(mode="json"), indent=2) + "\n")
            record = stats.record(config, repeat, report, plan, raw.as_posix())
            self.backend = self.backend or report.backend
            self.runs.append(record)
            mine.append(record)
            self.monitor.run_done(record)
        summary = stats.summarize(mine)[0]
        return Measurement(qps=summary.qps_median, p99_ms=summary.latency_ms.p99, host=host)
