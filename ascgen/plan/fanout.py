"""A graph's fan-out: a crop of each object a frame's detections hold, and the model of objects
that classifies them (docs/graphs.md). What it costs per frame depends on the data, so the
planner takes the objects a frame holds from the spec (`expect: {objects_per_frame: N}`), else
counts them in the inputs' ground truth (NAME.json beside NAME.jpg, as pipelines/data/make_shapes.py
writes it), else takes the most the detections stage keeps.

Objects are batched per frame: a frame's objects fill executions of the model of objects at its
batch, the last one at the smallest gear that holds the rest (the whole batch without gears);
a frame without objects runs no per-object work. One batch crop call cuts the regions of one
execution (acldvppVpcBatchCropResizePasteAsync: base_us per call, per_mpixel_us per output pixel,
as the simulator times it: simulator/src/dvpp/dvpp_vpc.cpp).

The engines are shared: DVPP's VPC by the frame's resize and the crops, the AI Core by the two
models. The AI Core alternates between them: the first execution of each model after the other's
pays the profile's switch (engines.aicore: switch_fraction x its latency + switch_us), once per
execution of the detector when a frame holds objects. Each engine's bound is its units over its
busy time per frame; the smallest bound, of these and of the frame pipeline's others (memory
bandwidth, scheduler, host submit), is the roofline.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from ascgen.dsl import spec as dsl
from ascgen.dsl.profile import Profile
from ascgen.plan import throughput
from ascgen.plan.graph import per_object
from ascgen.plan.model import Bound, FanoutPlan, StagePlan
from ascgen.stages.base import StageContext
from ascgen.stages.registry import context, kind_of


def _ground_truth(spec: dsl.Spec, spec_path: str) -> list[int] | None:
    """Each input's object count from its NAME.json (make_shapes.py's `objects`), if every JPEG
    input has one; None otherwise."""
    files = spec.source.files
    if not files or not spec_path:
        return None
    root = Path(files) if Path(files).is_absolute() else Path(spec_path).parent / files
    jpegs = sorted(root.glob("*.jpg")) if root.is_dir() else [root]
    counts = []
    for jpeg in jpegs:
        truth = jpeg.with_suffix(".json")
        try:
            objects = json.loads(truth.read_text(encoding="utf-8")).get("objects")
        except (OSError, ValueError, AttributeError):
            return None
        if not isinstance(objects, list):
            return None
        counts.append(len(objects))
    return counts or None


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


def _executions(n: int, batch: int, gears: list[int]) -> list[int]:
    """The batch sizes a frame of ``n`` objects runs at: full batches, then the rest at the
    smallest gear holding it (the whole batch without gears)."""
    full, rest = divmod(n, batch)
    tail = [] if rest == 0 else [next((g for g in gears if g >= rest), batch)]
    return [batch] * full + tail


class _Fanout:
    def __init__(self, spec: dsl.Spec, prof: Profile, stages: list[StagePlan], spec_path: str) -> None:
        self.spec, self.prof, self.stages = spec, prof, stages
        self.objects = per_object(spec)
        self.crop = next(i for i, s in enumerate(spec.stages) if kind_of(s).fans_out)
        self.counts, self.source = objects_per_frame(spec, prof, self.crop, spec_path)
        model = next((i for i in range(self.crop + 1, len(spec.stages)) if kind_of(spec.stages[i]).takes_batches), None)
        self.model = model
        ctx = context(spec, prof, model) if model is not None else None
        self.batch, self.gears = kind_of(ctx.stage).object_batches(ctx) if ctx is not None else (1, [])
        self.model_ctx: StageContext | None = ctx

    def _runs(self, n: int) -> list[int]:
        return _executions(n, self.batch, self.gears)

    def _mean(self, per_frame: list[float]) -> float:
        return sum(per_frame) / len(per_frame)

    def crop_us(self, n: int) -> float:
        """VPC time of one frame's crops: a call per execution of the model of objects."""
        ctx = context(self.spec, self.prof, self.crop)
        return kind_of(ctx.stage).fanout_us(ctx, n, len(self._runs(n)))

    def model_us(self, n: int) -> float:
        """AI Core time of one frame's objects: its executions, the first paying the switch."""
        ctx = self.model_ctx
        if ctx is None or n == 0:
            return 0.0
        runs = [kind_of(ctx.stage).execution_us(ctx, b) for b in self._runs(n)]
        aicore = self.prof.engines.aicore
        switch = (aicore.switch_fraction * runs[0] + aicore.switch_us) / self.spec.batch
        return sum(runs) + switch

    def detector_switch_us(self, n: int, detector: StagePlan) -> float:
        """The detector's switch back after the model of objects ran (per frame)."""
        if n == 0 or self.model_ctx is None:
            return 0.0
        aicore = self.prof.engines.aicore
        return (aicore.switch_fraction * detector.service_us + aicore.switch_us) / detector.frames_per_task

    def stage_us(self, s: StagePlan) -> float:
        """A stage's engine time per frame, averaged over the counts."""
        if not self.objects[s.index]:
            return s.service_us / s.frames_per_task
        if s.index == self.crop:
            return self._mean([self.crop_us(n) for n in self.counts])
        if s.index == self.model:
            return self._mean([self.model_us(n) for n in self.counts])
        # copies and host work after the model of objects: once per execution
        return s.service_us * self._mean([len(self._runs(n)) for n in self.counts])

    def object_stage(self, s: StagePlan) -> StagePlan:
        """A stage after the crop with the frames/s it sustains at the counts (its own time alone)."""
        if not self.objects[s.index]:
            return s
        us = self.stage_us(s)
        conc = (
            self.spec.threads if s.engine == "host" else min(throughput.units(self.prof, s.engine), self.spec.threads)
        )
        return s.model_copy(update={"capacity_qps": conc * 1e6 / us if us > 0 else math.inf})

    def engine_us(self) -> dict[str, float]:
        """Each engine's busy time per frame, averaged over the counts."""
        out: dict[str, float] = {}
        detector = next((s for s in self.stages if not self.objects[s.index] and s.engine == "aicore"), None)
        for s in self.stages:
            out[s.engine] = out.get(s.engine, 0.0) + self.stage_us(s)
        if detector is not None:
            out["aicore"] += self._mean([self.detector_switch_us(n, detector) for n in self.counts])
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
            names = ", ".join(s.name for s in on)
            objects = f", {self._objects_said()}" if any(self.objects[s.index] for s in on) else ""
            why = f"{us:.1f} us per frame on {conc} unit(s){objects}"
            out.append(Bound(name=f"{engine} ({names})", qps=conc * 1e6 / us, why=why))
        return out

    def _objects_said(self) -> str:
        mean = self._mean([float(n) for n in self.counts])
        return f"{mean:g} object(s) a frame ({self.source})"

    def plan(self, engine_us: dict[str, float]) -> FanoutPlan:
        model = self.spec.stages[self.model].name if self.model is not None else ""
        return FanoutPlan(
            objects_per_frame=self.counts, objects_from=self.source, crop_stage=self.spec.stages[self.crop].name,
            model_stage=model, model_batch=self.batch,
            executions_per_frame=self._mean([len(self._runs(n)) for n in self.counts]),
            engine_us_per_frame=engine_us,
            why=f"objects batched per frame: a frame's objects fill executions of {self.batch}, the last at the "
            "smallest gear holding the rest; a frame without objects runs no per-object work",
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
            f"model of objects: '{f.model_stage}', batch {f.model_batch}: {f.executions_per_frame:g} execution(s) "
            f"and batch crop call(s) a frame; {f.why}"
        )
    lines.append(f"busy time a frame: {busy}")
    return lines


def fan_out(
    spec: dsl.Spec, prof: Profile, stages: list[StagePlan], bounds: list[Bound], spec_path: str
) -> tuple[FanoutPlan | None, list[StagePlan], list[Bound]]:
    """The fan-out of a graph with a crop; its stages, those after the crop with their frames/s at
    the objects a frame holds; and the plan's bounds with each engine's shared by the frame's
    stages and the objects' (each stage's own bound replaced). A spec without a crop is returned
    as it is."""
    if not any(kind_of(s).fans_out for s in spec.stages):
        return None, stages, bounds
    fan = _Fanout(spec, prof, stages, spec_path)
    engine_us = fan.engine_us()
    own = {f"{s.engine} ({s.name})" for s in stages}
    kept = [b for b in bounds if b.name not in own]
    return fan.plan(engine_us), [fan.object_stage(s) for s in stages], fan.bounds(engine_us) + kept
