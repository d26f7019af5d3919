"""A graph's fan-out: a crop of each object a frame's detections hold, and the model of objects
that classifies them (docs/graphs.md). What it costs per frame depends on the data, so the
planner takes the objects a frame holds from the spec (`expect: {objects_per_frame: N}`), else
counts them in the inputs' ground truth (NAME.json beside NAME.jpg, as pipelines/data/make_shapes.py
writes it), else takes the most the detections stage keeps.

Objects are batched across frames (templates/runtime/ascgen_objects.h, the object queue): a
detector batch's objects fill executions of the model of objects at its batch, and the rest waits
for the next batches' objects until the oldest waited the model's max_queue_delay_us, then runs at
the smallest gear that holds it (the whole batch without gears); a frame without objects runs no
per-object work. How many detector batches join is planned at the roofline: a worker's detector
batches come every `batch x threads / frames per second`, and the wait lets in as many as come
within the delay, at most the frames in flight allow (a queued frame keeps its picture: the
worker needs it back after `depth` frames). The roofline depends on it, so the two are iterated
to a fixed point. One batch crop call cuts the regions of one execution
(acldvppVpcBatchCropResizePasteAsync: base_us a call, per_roi_us each region after the first,
per_mpixel_us per output pixel, as the simulator times it: VpcEngine.batch_service_us,
simulator/docs/vpc_batch_time.md).

The engines are shared: DVPP's VPC by the frame's resize and the crops, the AI Core by the two
models. The AI Core alternates between them: the first execution of each model after the other's
reloads its weights (model_switch_weight_share x its weights at the memory bandwidth, as the
simulator does: simulator/docs/shared_bandwidth.md section 2), once each time the queue's
executions run after the detector's. Under per_stage both models execute on the AI Core's one
stream (the detector's, shared by the threads: templates/runtime/ascgen_objects.h), so that is all
a switch costs; under per_thread each thread's stream carries both, and the first execution after
another stream's also pays the stream switch (engines.aicore: switch_fraction x its latency +
switch_us). The plan counts two switches per group of detector batches whose objects share
executions (one to the model of objects, one back), the most there can be: where detector batches
queue back to back on the one stream (several threads, or frames in flight for more than one
batch) their executions of one model follow one another and the AI Core switches less, so a run
can measure above the plan (docs/graphs.md). Each engine's bound is its units over its busy time
per frame; the smallest bound, of these and of the frame pipeline's others (memory bandwidth,
scheduler, host submit), is the roofline.
"""

from __future__ import annotations

import json
import math
from itertools import islice
from math import gcd
from pathlib import Path

from ascgen.common.fileio import FileRefused, read_bounded
from ascgen.dsl import spec as dsl
from ascgen.dsl.profile import Profile
from ascgen.plan import throughput
from ascgen.plan.graph import per_object
from ascgen.plan.model import BatchingPlan, Bound, FanoutPlan, StagePlan
from ascgen.stages.base import StageContext
from ascgen.stages.registry import context, kind_of

MAX_TRUTH_BYTES = 1 << 20  # a ground-truth file read at plan time, at most
MAX_TRUTH_INPUTS = 4096  # inputs counted at most (as the program reads at most 4096 a folder)


def _objects_in(truth: Path) -> int | None:
    """The objects a ground-truth file lists, or None: not a regular file, larger than
    MAX_TRUTH_BYTES (read_bounded: never blocks, never reads past the limit), not JSON, or
    without an `objects` list (docs/threat_model.md: no input makes ascgen hang or exhaust memory)."""
    try:
        doc = json.loads(read_bounded(truth, MAX_TRUTH_BYTES))
    except (FileRefused, ValueError, RecursionError):
        return None
    objects = doc.get("objects") if isinstance(doc, dict) else None
    return len(objects) if isinstance(objects, list) else None


def _ground_truth(spec: dsl.Spec, spec_path: str) -> list[int] | None:
    """Each input's object count from its NAME.json (make_shapes.py's `objects`), if every JPEG
    input (at most MAX_TRUTH_INPUTS) has one; None otherwise."""
    files = spec.source.files
    if not files or not spec_path:
        return None
    root = Path(files) if Path(files).is_absolute() else Path(spec_path).parent / files
    try:
        jpegs = sorted(islice(root.glob("*.jpg"), MAX_TRUTH_INPUTS + 1)) if root.is_dir() else [root]
    except OSError:
        return None
    if len(jpegs) > MAX_TRUTH_INPUTS:
        return None
    counts = [_objects_in(jpeg.with_suffix(".json")) for jpeg in jpegs]
    known = [n for n in counts if n is not None]
    return known if known and len(known) == len(counts) else None


def objects_per_frame(spec: dsl.Spec, prof: Profile, crop: int, spec_path: str) -> tuple[list[int], str]:
    """(the objects a frame holds, one count per input, and where they come from)."""
    if spec.expect is not None:
        return [spec.expect.objects_per_frame], "expect.objects_per_frame"
    counted = _ground_truth(spec, spec_path)
    if counted is not None:
        return counted, f"counted in the ground truth of {len(counted)} input(s) ({spec.source.files})"
    at, most = next(
        (i, n) for i in reversed(range(crop)) if (n := kind_of(spec.stages[i]).max_objects(context(spec, prof, i)))
    )
    said = f"'{spec.stages[at].name}' max_objects (no expect and no ground truth beside the inputs): the most it keeps"
    return [most], said


MAX_JOIN_ROUNDS = 8  # rounds to the fixed point of the joined batches and the roofline (each joins more)
COPY_BOUND = "d2d (batch assembly)"  # the frames' batch copies (throughput.bounds): the d2d bound here holds them


def _executions(n: int, batch: int, gears: list[int]) -> list[int]:
    """The batch sizes a frame of ``n`` objects runs at: full batches, then the rest at the
    smallest gear holding it (the whole batch without gears)."""
    full, rest = divmod(n, batch)
    tail = [] if rest == 0 else [next((g for g in gears if g >= rest), batch)]
    return [batch] * full + tail


class _Fanout:
    def __init__(
        self, spec: dsl.Spec, prof: Profile, stages: list[StagePlan], batching: BatchingPlan, spec_path: str,
        window: int,
    ) -> None:  # fmt: skip
        self.spec, self.prof, self.stages, self.batching = spec, prof, stages, batching
        self.objects = per_object(spec)
        self.crop = next(i for i, s in enumerate(spec.stages) if kind_of(s).fans_out)
        self.counts, self.source = objects_per_frame(spec, prof, self.crop, spec_path)
        model = next((i for i in range(self.crop + 1, len(spec.stages)) if kind_of(spec.stages[i]).takes_batches), None)
        self.model = model
        ctx = context(spec, prof, model) if model is not None else None
        self.batch, self.gears = kind_of(ctx.stage).object_batches(ctx) if ctx is not None else (1, [])
        self.model_ctx: StageContext | None = ctx
        self.delay_us = int(getattr(ctx.stage, "max_queue_delay_us", None) or 0) if ctx is not None else 0
        self.most_batches = max(1, window // spec.batch)  # detector batches whose frames can wait at once
        # both models on the AI Core's one stream (per_stage, the detector's shared: ascgen_objects.h),
        # so a switch between them reloads weights but changes no stream
        detector = next((i for i in range(self.crop) if kind_of(spec.stages[i]).takes_batches), None)
        self.one_stream = (
            spec.streams == "per_stage"
            and detector is not None
            and kind_of(spec.stages[detector]).shared_by_threads(context(spec, prof, detector))
        )
        self.joined = 1  # detector batches whose objects may share an execution (set by join)

    def join(self, qps: float) -> int:
        """Detector batches that join in the queue at ``qps`` frames/s: those that come within the delay."""
        if self.delay_us <= 0 or qps <= 0 or math.isinf(qps):
            return 1
        every_us = self.spec.batch * self.spec.threads * 1e6 / qps  # a worker's detector batches
        return max(1, min(self.most_batches, 1 + int(self.delay_us // every_us)))

    def wait_us(self, qps: float) -> float:
        """The longest an object waits in the queue at ``qps``: until the joined batches came."""
        if self.joined <= 1 or qps <= 0:
            return 0.0
        return min(float(self.delay_us), (self.joined - 1) * self.spec.batch * self.spec.threads * 1e6 / qps)

    def _group(self, n: int) -> tuple[list[int], list[int], int, int]:
        """How frames of ``n`` objects run, in a group of detector batches: (each execution's gear,
        each batch crop call's regions, the group's frames, the times the AI Core switches to the
        model of objects in it). With the next batches joining and enough objects to fill an
        execution, every execution is full (the rest waits for the next batch's objects);
        otherwise the joined batches' objects run together, the last execution at its gear."""
        frames, per_batch = self.spec.batch, n * self.spec.batch
        if per_batch == 0:
            return [], [], frames, 0
        if self.joined >= 2 and per_batch * self.joined >= self.batch:
            group = self.batch // gcd(per_batch, self.batch)  # batches whose objects fill whole executions
            full = per_batch * group // self.batch
            return [self.batch] * full, [self.batch] * full, frames * group, min(group, full)
        objects = per_batch * self.joined
        whole, rest = divmod(objects, self.batch)
        calls = [self.batch] * whole + ([rest] if rest else [])
        return _executions(objects, self.batch, self.gears), calls, frames * self.joined, 1

    def _runs(self, n: int) -> float:
        """Executions of the model of objects a frame of ``n`` objects needs (a share of its group's)."""
        runs, _, frames, _ = self._group(n)
        return len(runs) / frames

    def _mean(self, per_frame: list[float]) -> float:
        return sum(per_frame) / len(per_frame)

    def crop_us(self, n: int) -> float:
        """VPC time of one frame's crops (its share of its group's calls)."""
        ctx = context(self.spec, self.prof, self.crop)
        _, calls, frames, _ = self._group(n)
        return kind_of(ctx.stage).fanout_us(ctx, calls) / frames

    def stream_switch_us(self, run_us: float) -> float:
        """What an execution of ``run_us`` adds after another stream's on the AI Core (none on its one stream)."""
        if self.one_stream:
            return 0.0
        aicore = self.prof.engines.aicore
        return aicore.switch_fraction * run_us + aicore.switch_us

    def model_us(self, n: int) -> float:
        """AI Core time of one frame's objects (its share of its group's): the executions, the first
        after the detector's reloading its weights (once per switch) and, on another stream than the
        detector's, paying the stream switch."""
        ctx = self.model_ctx
        if ctx is None or n == 0:
            return 0.0
        kind = kind_of(ctx.stage)
        gears, _, frames, switches = self._group(n)
        runs = [kind.execution_us(ctx, b) for b in gears]
        switch = self.stream_switch_us(runs[0]) + kind.model_switch_us(ctx)
        return (sum(runs) + switch * switches) / frames

    def detector_switch_us(self, n: int, detector: StagePlan) -> float:
        """The detector's switch back after the model of objects ran: its weights' reload and, on
        another stream, the stream switch, once per switch to the model of objects (per frame: over
        its group's)."""
        if n == 0 or self.model_ctx is None:
            return 0.0
        ctx = context(self.spec, self.prof, detector.index)
        switch = self.stream_switch_us(detector.service_us) + kind_of(ctx.stage).model_switch_us(ctx)
        _, _, frames, switches = self._group(n)
        return switch * switches / frames

    def stage_us(self, s: StagePlan) -> float:
        """A stage's engine time per frame, averaged over the counts."""
        if not self.objects[s.index]:
            return s.service_us / s.frames_per_task
        if s.index == self.crop:
            return self._mean([self.crop_us(n) for n in self.counts])
        if s.index == self.model:
            return self._mean([self.model_us(n) for n in self.counts])
        # copies and host work after the model of objects: once per execution
        return s.service_us * self._mean([self._runs(n) for n in self.counts])

    def object_stage(self, s: StagePlan) -> StagePlan:
        """A stage after the crop with the frames/s it sustains at the counts (its own time alone)."""
        if not self.objects[s.index]:
            return s
        us = self.stage_us(s)
        conc = (
            self.spec.threads if s.engine == "host" else min(throughput.units(self.prof, s.engine), self.spec.threads)
        )
        return s.model_copy(update={"capacity_qps": conc * 1e6 / us if us > 0 else math.inf})

    def crop_bytes(self) -> int:
        """One region's picture (the crop's output)."""
        out = self.stages[self.crop].output
        return out.bytes if out is not None else 0

    def engine_us(self) -> dict[str, float]:
        """Each engine's busy time per frame, averaged over the counts; the copy engine's too: the
        frames' batch assembly (copy mode) and each region copied into the model's input."""
        out: dict[str, float] = {}
        detector = next((s for s in self.stages if not self.objects[s.index] and s.engine == "aicore"), None)
        for s in self.stages:
            out[s.engine] = out.get(s.engine, 0.0) + self.stage_us(s)
        if detector is not None:
            out["aicore"] += self._mean([self.detector_switch_us(n, detector) for n in self.counts])
        d2d = self.prof.engines.d2d
        copies = self.batching.frame_bytes and self.batching.mode == "copy"
        regions = self._mean([float(n) for n in self.counts]) if self.model is not None else 0.0
        copy_us = (d2d.service_us(self.batching.frame_bytes) if copies else 0.0) + regions * d2d.service_us(
            self.crop_bytes()
        )
        if copy_us > 0:
            out["d2d"] = out.get("d2d", 0.0) + copy_us
        return out

    def copies_said(self) -> str:
        """What the copy engine does, for its bound's name."""
        copies = ["batch assembly"] if self.batching.mode == "copy" else []
        return ", ".join(copies + (["crops into the model's input"] if self.model is not None else []))

    def ddr_bytes(self) -> float:
        """Device memory bytes moved per frame: the frame's stages as in a straight pipeline, and
        per object its region read and its picture written (and copied into the model's input),
        per execution the stages after the crop."""
        frame = [s for s in self.stages if not self.objects[s.index]]
        out = throughput.ddr_bytes_per_frame(frame, self.batching)
        regions = self._mean([float(n) for n in self.counts])
        executions = self._mean([self._runs(n) for n in self.counts])
        per_region = (4 if self.model is not None else 2) * self.crop_bytes()
        out += regions * per_region
        for s in self.stages:
            if not self.objects[s.index] or s.index == self.crop:
                continue
            if s.index == self.model and self.model_ctx is not None:  # at the gear each execution runs at
                kind, ctx = kind_of(self.model_ctx.stage), self.model_ctx
                runs = []
                for n in self.counts:
                    gears, _, frames, _ = self._group(n)
                    runs.append(sum(kind.execution_ddr_bytes(ctx, s.input, s.output, b) for b in gears) / frames)
                out += self._mean(runs)
            else:
                out += s.ddr_bytes_per_task * executions
        return out

    def bounds(self, engine_us: dict[str, float]) -> list[Bound]:
        out = []
        for engine, us in engine_us.items():
            if us <= 0:
                continue
            conc = (
                self.spec.threads if engine == "host" else min(throughput.units(self.prof, engine), self.spec.threads)
            )
            on = [s for s in self.stages if s.engine == engine]
            names = ", ".join(s.name for s in on) or self.copies_said()
            objects = f", {self.objects_said()}" if any(self.objects[s.index] for s in on) else ""
            why = f"{us:.1f} us per frame on {conc} unit(s){objects}"
            out.append(Bound(name=f"{engine} ({names})", qps=conc * 1e6 / us, why=why))
        return out

    def objects_said(self) -> str:
        mean = self._mean([float(n) for n in self.counts])
        return f"{mean:g} object(s) a frame ({self.source})"

    def plan(self, engine_us: dict[str, float], ddr: float, qps: float) -> FanoutPlan:
        model = self.spec.stages[self.model].name if self.model is not None else ""
        frames = self.spec.batch
        if self.delay_us == 0:
            wait = "never waits for the next batches' (max_queue_delay_us 0)"
        else:
            wait = (
                f"the rest waits up to {self.delay_us} us (max_queue_delay_us) for the next batches': at the roofline "
                f"{self.joined} batch(es) of {frames} frames join (at most {self.most_batches}: the frames in flight), "
                f"adding up to {self.wait_us(qps) / 1e3:.1f} ms to a frame's latency"
            )
        return FanoutPlan(
            objects_per_frame=self.counts, objects_from=self.source, crop_stage=self.spec.stages[self.crop].name,
            model_stage=model, model_batch=self.batch,
            executions_per_frame=self._mean([self._runs(n) for n in self.counts]),
            engine_us_per_frame=engine_us, ddr_bytes_per_frame=ddr,
            max_queue_delay_us=self.delay_us, batches_joined=self.joined, queue_wait_us=self.wait_us(qps),
            why=f"objects batched across frames: a detector batch's objects ({frames} frames') fill executions of "
            f"{self.batch}, one batch crop call each; {wait}; the last execution at the smallest gear holding the "
            "rest; a frame without objects runs no per-object work",
        )  # fmt: skip


def fanout_lines(f: FanoutPlan) -> list[str]:
    """What `ascgen plan` says of a graph's fan-out."""
    counts = f.objects_per_frame
    said = (
        str(counts[0])
        if len(set(counts)) == 1
        else f"{min(counts)}..{max(counts)} (mean {sum(counts) / len(counts):g})"
    )
    busy = ", ".join(f"{engine} {us:,.0f} us" for engine, us in sorted(f.engine_us_per_frame.items()))
    lines = [f"fan-out: {said} object(s) a frame ({f.objects_from}), cut out by '{f.crop_stage}'"]
    if f.model_stage:
        lines.append(
            f"model of objects: '{f.model_stage}', batch {f.model_batch}: {f.executions_per_frame:.3g} execution(s) "
            f"and batch crop call(s) a frame; {f.why}"
        )
    lines.append(f"busy time a frame: {busy}")
    return lines


def fan_out(
    spec: dsl.Spec, prof: Profile, stages: list[StagePlan], batching: BatchingPlan, bounds: list[Bound], spec_path: str,
    window: int,
) -> tuple[FanoutPlan | None, list[StagePlan], list[Bound]]:  # fmt: skip
    """The fan-out of a graph with a crop; its stages, those after the crop with their frames/s at
    the objects a frame holds; and the plan's bounds with each engine's shared by the frame's
    stages and the objects' (each stage's own bound replaced). A spec without a crop is returned
    as it is."""
    if not any(kind_of(s).fans_out for s in spec.stages):
        return None, stages, bounds
    fan = _Fanout(spec, prof, stages, batching, spec_path, window)
    own = {f"{s.engine} ({s.name})" for s in stages} | {COPY_BOUND, throughput.DDR_BOUND}
    kept = [b for b in bounds if b.name not in own]
    for _ in range(MAX_JOIN_ROUNDS):  # the batches that join at the roofline, and the roofline at them
        engine_us = fan.engine_us()
        ddr = fan.ddr_bytes()
        memory = Bound(
            name=throughput.DDR_BOUND, qps=prof.memory.bandwidth_GBps * 1e9 / ddr,
            why=f"{ddr / 1e6:.2f} MB of device memory traffic per frame at {prof.memory.bandwidth_GBps:g} GB/s "
            f"(objects included: {fan.objects_said()}), shared by the engines that run at the same moment",
        )  # fmt: skip
        out = [*fan.bounds(engine_us), memory, *kept]
        qps = min(b.qps for b in out)
        joined = fan.join(qps)
        if joined == fan.joined:
            break
        fan.joined = joined
    plan = fan.plan(engine_us, ddr, qps)
    return plan, [fan.object_stage(s) for s in stages], out
