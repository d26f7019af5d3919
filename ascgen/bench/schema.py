"""The results file: versioned JSON with a ``context`` block, one record per run and one
summary per configuration. Also the program's own JSON document, parsed and checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ascgen.common.errors import UserError
from ascgen.common.fileio import FileRefused, read_bounded
from ascgen.dsl.spec import Streams

SCHEMA_VERSION = 1  # of the results file written by ``ascgen bench``
PROGRAM_SCHEMA_VERSION = 1  # of the document a generated program writes with --json
# A measured quantity: a finite number, never negative (NaN, infinities and negative spreads
# in a results file would make a comparison pass or fail for no reason).
Measured = Annotated[float, Field(ge=0, allow_inf_nan=False)]
MAX_RESULTS_BYTES = 256 * 2**20  # a results file of a long sweep is a few MB
Count = Annotated[int, Field(ge=1)]  # threads, depth, batch, sync_every, clients of a configuration


def exact(value: float) -> str:
    """A number as a generated program's flag or a file name takes it, exactly: ``1000001`` and
    ``0.25``, never ``1e+06`` (``:g`` keeps six digits, so two rates could run as one)."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e16 else repr(float(value))


class BadResults(UserError):
    """A results or program document that cannot be read; the message is one line."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# A program's latency histogram: (upper bound in microseconds, frames) per non-empty bucket
# (ascgen.bench.histogram). None from programs and results files that predate it.
LatencyHistogram = list[tuple[Measured, Annotated[int, Field(ge=0)]]]
# One second of a run: the p99 and the max latency (ms) of the frames completed in it.
WindowLatency = tuple[Measured, Measured]


class Latency(_Model):
    """Per frame, submit to completion, in milliseconds."""

    p50: Measured
    p90: Measured
    p99: Measured
    max: Measured


class _Loose(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class ProgramPercentiles(_Loose):
    p50: Measured = 0.0
    p99: Measured = 0.0


class ProgramRejected(_Loose):
    queue_full: int = Field(default=0, ge=0)
    closed: int = Field(default=0, ge=0)
    timeout: int = Field(default=0, ge=0)


class ProgramTimedOut(_Loose):
    rejected: int = Field(default=0, ge=0)
    delayed: int = Field(default=0, ge=0)


class ProgramPadding(_Loose):
    gears: list[tuple[int, int, Annotated[int, Field(ge=0)]]] = Field(default_factory=list)  # height, width, batches


class ProgramGenerator(_Loose):
    """An open loop's generator: how many requests it sent late (beyond its tolerance), and how
    many were due but never sent when it stopped."""

    sent: int = Field(default=0, ge=0)
    late: int = Field(default=0, ge=0)
    missed: int = Field(default=0, ge=0)
    max_late_us: int = Field(default=0, ge=0)
    kept_up: bool = True


class ProgramServing(_Loose):
    """The part of a server's ``serving`` block (ascgen_loadgen.h's write_json) a bench reports."""

    submitted: int = Field(default=0, ge=0)
    rejected: ProgramRejected = ProgramRejected()
    timed_out: ProgramTimedOut = ProgramTimedOut()
    queue_ms: ProgramPercentiles = ProgramPercentiles()
    batch_stats: list[tuple[Annotated[int, Field(ge=1)], Annotated[int, Field(ge=0)]]] = Field(default_factory=list)
    batches: int = Field(default=0, ge=0)
    padding: ProgramPadding | None = None
    generator: ProgramGenerator | None = None  # an open loop's


class ProgramStream(_Loose):
    """One stream of a video program's ``video.per_stream`` (ascgen_video.h)."""

    fps: float = Field(default=0.0, ge=0)
    late: int = Field(default=0, ge=0)
    dropped: int = Field(default=0, ge=0)


class ProgramVideo(_Loose):
    """The part of a video program's ``video`` block (ascgen_video.h's fill) a bench reports."""

    fps_target: float = Field(gt=0)
    streams_held: int = Field(ge=0)
    streams_total: int = Field(ge=0)
    held: bool
    per_stream: list[ProgramStream] = Field(default_factory=list)


class ProgramObjectLatency(_Loose):
    """A graph program's objects: each one's latency from its crop call submitted, and from its
    frame's arrival, to its scores on the host."""

    objects: int = Field(ge=0)
    from_crop: ProgramPercentiles
    from_arrival: ProgramPercentiles


class ProgramReport(BaseModel):
    """What a generated program writes at exit (``--json PATH``). Unknown keys are kept out of
    the way (a newer program may add some); a different ``schema_version`` is refused."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    schema_version: int
    program: str
    backend: str
    profile: str
    streams: Streams
    threads: int
    depth: int
    batch: int
    sync_every: int | None = None
    frames: int = Field(ge=0)
    duration_s: Measured
    qps: Measured
    latency_ms: Latency
    stages: dict[str, int]
    host_cpu_s: float
    process_cpu_s: float | None = None
    device_memory_bytes: int
    windows_qps: list[Measured] = Field(default_factory=list)
    windows_latency_ms: list[WindowLatency] = Field(default_factory=list)
    latency_histogram_us: LatencyHistogram | None = None
    interrupted: bool = False
    verified: bool | None = None
    serving: ProgramServing | None = None  # a server's
    video: ProgramVideo | None = None  # a video program's (source kind video)
    # a graph program's: each frame's latency by part, mean ms (docs/graphs.md), and its objects'
    latency_breakdown_ms: dict[str, Measured] | None = None
    object_latency_ms: ProgramObjectLatency | None = None


class Context(_Model):
    """Where and how the numbers were measured (after google/benchmark's context block)."""

    host: str
    cpu_model: str
    cpu_count: int
    governor: str | None  # None where cpufreq is not exposed (containers, VMs)
    numa_balancing: int | None  # kernel.numa_balancing; None when unknown
    backend: str | None  # from the program: simulator or cann
    profile: str
    ascgen_version: str
    spec: str
    spec_sha256: str
    git_commit: str | None
    git_dirty: bool | None
    python: str
    started_at: str  # ISO 8601, UTC
    duration_s: float
    warmup_s: float
    repeat: int


class Config(_Model):
    """One measured configuration: the build variant and the runtime flags."""

    threads: Count
    depth: Count
    batch: Count
    streams: Streams
    sync_every: Count | None  # per_thread only
    clients: Count | None = None  # a server's closed-loop clients (--clients)
    rate: Annotated[float, Field(gt=0, allow_inf_nan=False)] | None = None  # a server's open-loop requests/s (--rate)
    # the devices run on (--devices "0,1"); None: the spec's
    devices: Annotated[str, Field(pattern=r"^[0-9]{1,2}(,[0-9]{1,2})*$")] | None = None
    deploy: Literal["processes", "threads"] | None = None  # several devices (--deploy); None: the spec's
    arrival: Literal["constant", "poisson"] | None = None  # an open loop's arrivals (--arrival); None: constant
    # the simulated device runs this many times slower than the host (ACL_SIM_TIME_SCALE); figures are model time
    time_scale: Annotated[float, Field(gt=0, le=1000, allow_inf_nan=False)] | None = None

    @model_validator(mode="after")
    def _one_load(self) -> Config:
        if self.clients is not None and self.rate is not None:
            raise ValueError(f"clients {self.clients} and rate {self.rate:g}: a run has one load, not both")
        return self

    def settings(self) -> dict[str, object]:
        """The spec keys this point sets (ascgen.dsl.configure); its load, if any, is run-time flags."""
        return self.model_dump(exclude={*LOAD_KEYS, *DEVICE_KEYS, *RUN_KEYS})

    def label(self) -> str:
        sync = f" sync_every={self.sync_every}" if self.sync_every is not None else ""
        load = f" clients={self.clients}" if self.clients is not None else ""
        load += f" rate={exact(self.rate)}" if self.rate is not None else ""
        load += f" devices={self.shown('devices')}" if self.devices is not None else ""
        load += f" deploy={self.deploy}" if self.deploy is not None else ""
        load += f" arrival={self.arrival}" if self.arrival is not None else ""
        load += f" time_scale={self.time_scale:g}" if self.time_scale is not None else ""
        return f"threads={self.threads} depth={self.depth} batch={self.batch} streams={self.streams}{sync}{load}"

    def shown(self, key: str) -> str:
        """A key's value as the user writes it: devices as how many (``--sweep devices=2``), not
        the ids they are (0,1); '-' where the point leaves the key to the spec."""
        value = getattr(self, key)
        if value is None:
            return "-"
        if key == "devices":
            return str(self.device_count)
        return exact(value) if isinstance(value, float) else str(value)

    @property
    def device_count(self) -> int | None:
        return None if self.devices is None else len(self.devices.split(","))


LOAD_KEYS = ("clients", "rate")  # a server's load: run-time flags of the Config, not spec keys
DEVICE_KEYS = ("devices", "deploy")  # where it runs: run-time flags (--devices, --deploy), one build
RUN_KEYS = ("arrival", "time_scale")  # how a run is driven: --arrival, ACL_SIM_TIME_SCALE; one build


class Serving(_Model):
    """A server's figures of one run, or the median over a configuration's repeats: the load
    offered and what became of it, in model time (requests/s; ms)."""

    # requests submitted per second (a closed loop's: what its clients sent), from the load's start
    offered_rps: Measured
    achieved_rps: Measured  # requests completed per second
    submitted: int = Field(ge=0)  # counted from the load's start, warm-up included, as the next two
    rejected: int = Field(ge=0)  # refused: queue full, server closing, or timed out in the queue
    timed_out: int = Field(ge=0)  # past the queue timeout (rejected or sent late)
    queue_p50_ms: Measured
    queue_p99_ms: Measured
    mean_batch: Measured
    gear_shares: tuple[tuple[str, Measured], ...] = ()  # ("HxW", share of batches)
    # the plan's prediction for this load (ascgen.serving.predict); None where there is none
    predicted_rps: Measured | None = None
    predicted_p99_ms: Measured | None = None
    predicted_mean_batch: Measured | None = None
    predicted_rejected: Annotated[float, Field(ge=0, le=1)] | None = None  # share of the requests sent
    late: int = Field(default=0, ge=0)  # an open loop's requests its generator sent late (could not keep up)

    @property
    def dropped(self) -> int:
        return self.rejected


class Video(_Model):
    """A video program's streams in one run, or over a configuration's repeats (model time): whether
    every stream held its fps with no frame dropped (ascgen/bench/video.py)."""

    streams: int = Field(ge=0)
    fps_target: Measured
    streams_held: int = Field(ge=0)
    min_fps: Measured  # the slowest stream's
    late: int = Field(ge=0)
    dropped: int = Field(ge=0)
    held: bool
    predicted_capacity: int | None = None  # the plan's: the most streams of this spec that hold


class ObjectLatency(_Model):
    """A graph's objects in one run, or over a configuration's repeats (the median of each
    percentile; objects summed): from each one's crop call submitted, and from its frame's arrival,
    to its scores on the host (ms)."""

    objects: int = Field(ge=0)
    from_crop_p50: Measured
    from_crop_p99: Measured
    from_arrival_p50: Measured
    from_arrival_p99: Measured


class Breakdown(_Model):
    """A graph program's frame latency by part (the program's order; a stage's name where the part
    is one), mean ms of a run's frames or of a configuration's repeats, and its objects'."""

    parts_ms: dict[str, Measured]
    objects: ObjectLatency | None = None


class RunRecord(Config):
    repeat: int  # 1-based
    qps: Measured
    frames: int = Field(ge=0)
    duration_s: Measured
    latency_ms: Latency
    stages: dict[str, int]
    host_cpu_s_per_1000_frames: float | None
    process_cpu_s_per_1000_frames: float | None
    device_memory_bytes: int
    roofline_qps: float
    bottleneck: str
    efficiency: float  # qps / roofline_qps
    windows_qps: list[Measured]
    window_cv: Measured | None  # coefficient of variation of the one-second windows
    windows_latency_ms: list[WindowLatency] = Field(default_factory=list)  # [p99, max] per second
    latency_histogram_us: LatencyHistogram | None = None  # the program's, when it exports one
    raw: str  # the program's own JSON, relative to the results file
    serving: Serving | None = None  # a server's
    video: Video | None = None  # a video program's
    breakdown: Breakdown | None = None  # a graph program's


class Summary(Config):
    repeats: int = Field(ge=1)
    qps_median: Measured
    qps_min: Measured
    qps_max: Measured
    qps_cv: Measured | None  # across repeats; None with one repeat
    # of all frames of every repeat when each run exported its histogram (latency_merged);
    # otherwise the median of each percentile across repeats
    latency_ms: Latency
    latency_merged: bool = False
    roofline_qps: float
    bottleneck: str
    efficiency: float  # qps_median / roofline_qps
    window_cv: Measured | None  # the worst run's
    host_cpu_s_per_1000_frames: float | None
    device_memory_bytes: int
    serving: Serving | None = None  # a server's, the median of its repeats (counts: summed)
    video: Video | None = None  # a video program's over its repeats (held only if every repeat held)
    breakdown: Breakdown | None = None  # a graph program's over its repeats

    @model_validator(mode="after")
    def _ordered(self) -> Summary:
        if not self.qps_min <= self.qps_median <= self.qps_max:
            raise ValueError(
                f"qps_min {self.qps_min}, qps_median {self.qps_median} and qps_max {self.qps_max} are not in order"
            )
        return self


class SloMiss(_Model):
    config: str
    what: str  # one line: "p99 51.2 ms > 50 ms"


class BenchResults(_Model):
    schema_version: int = SCHEMA_VERSION
    context: Context
    swept: list[str] = Field(default_factory=list)  # the swept keys, in the order given
    runs: list[RunRecord]
    summary: list[Summary]
    warnings: list[str] = Field(default_factory=list)
    slo: dict[str, float] = Field(default_factory=dict)  # the spec's gates, as written
    slo_misses: list[SloMiss] = Field(default_factory=list)
    interrupted: bool = False  # stopped (Ctrl-C) before its last run: what finished is here


def dumps(results: BenchResults) -> str:
    return json.dumps(results.model_dump(mode="json"), indent=2) + "\n"


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "document"
    return f"{where}: {err['msg']}"


def _json_document(text: str, source: str) -> object:
    """Parsed JSON, or one line saying why not (bad syntax, nesting no results file has)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadResults(f"{source}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None
    except RecursionError:
        raise BadResults(f"{source}: not a results document (JSON nested too deeply)") from None


def load_results(path: Path) -> BenchResults:
    """Read a results file written by ``ascgen bench``; one clear line when it is not one."""
    try:
        raw = read_bounded(path, MAX_RESULTS_BYTES)
    except FileRefused as exc:
        raise BadResults(f"{path}: {exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadResults(f"{path}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})") from None
    doc = _json_document(text, str(path))
    if not isinstance(doc, dict) or "runs" not in doc:
        raise BadResults(f"{path}: not an ascgen bench results file (no 'runs')")
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION:
        raise BadResults(f"{path}: results schema_version {version!r}; this ascgen reads {SCHEMA_VERSION}")
    try:
        return BenchResults.model_validate(doc)
    except ValidationError as exc:
        raise BadResults(f"{path}: {_first_error(exc)}") from None


def parse_program_report(text: str, source: str) -> ProgramReport:
    """The JSON a program printed at exit; ``source`` names it in errors."""
    doc = _json_document(text, source)
    if not isinstance(doc, dict):
        raise BadResults(f"{source}: expected a JSON object")
    version = doc.get("schema_version")
    if version != PROGRAM_SCHEMA_VERSION:
        raise BadResults(f"{source}: program schema_version {version!r}; this ascgen reads {PROGRAM_SCHEMA_VERSION}")
    try:
        return ProgramReport.model_validate(doc)
    except ValidationError as exc:
        raise BadResults(f"{source}: {_first_error(exc)}") from None
