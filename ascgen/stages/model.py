"""model: one execution of an offline model (.om) per batch (aclmdlExecuteAsync), one loaded
instance per thread so no model id runs on two streams at once."""

from __future__ import annotations

from itertools import pairwise
from typing import Annotated, Literal

from pydantic import Field, model_validator

from ascgen.dsl.diagnostics import Diagnostic, did_you_mean, one_of
from ascgen.dsl.dsl_base import Bytes, StageBase
from ascgen.dsl.names import SafePath
from ascgen.dsl.profile import Profile
from ascgen.plan.geometry import Geometry, output_offsets, outputs_bytes, tensor
from ascgen.plan.model import ModelPlan, Plan, PoolPlan, PoolRef, StagePlan, default_weight_bytes, hw_share
from ascgen.stages.base import Constant, PoolRequest, Sizes, StageContext, StageKind, const

DEFAULT_MODEL_MEMORY = 128 << 20
DEFAULT_OUTPUT_BYTES_PER_ITEM = 4000
MAX_QUEUE_DELAY_US = 10_000_000  # a model of objects' queue delay at most: 10 s (a frame's objects wait no longer)

Latency = Annotated[float, Field(gt=0, le=60_000)]
HwGear = Annotated[list[Annotated[int, Field(ge=1, le=8192)]], Field(min_length=2, max_length=2)]


class ModelStage(StageBase):
    kind: Literal["model"]
    path: SafePath = Field(description="the .om file (a descriptor is generated beside it for the simulator)")
    reference: str | None = Field(default=None, description="a model measured in the profile")
    latency_ms: Latency | dict[Annotated[int, Field(ge=1, le=1024)], Latency] | None = Field(
        default=None, description="ms per execution at the spec's batch, or a table by batch"
    )
    batch: int | None = Field(
        default=None,
        ge=1,
        le=1024,
        description="a model after a vpc_crop: the objects (crops) one execution takes, which its gears end with "
        "(a model of frames takes the spec's batch)",
    )
    max_queue_delay_us: int | None = Field(
        default=None,
        ge=0,
        le=MAX_QUEUE_DELAY_US,
        description="a model of objects: how long the oldest queued object waits at most for the objects of the "
        "next frame batches to fill an execution (serving's batching.max_queue_delay_us); 0, the default as in "
        "serving: never waits (a detector batch's frames still share executions)",
    )
    input_bytes: Bytes | None = Field(default=None, description="whole input at the spec's batch")
    output_bytes: Bytes | None = Field(default=None, description="whole output at the spec's batch")
    memory_bytes: Bytes | None = Field(default=None, description="weights + workspace per instance")
    gears: list[Annotated[int, Field(ge=1, le=1024)]] | None = Field(
        default=None,
        description="dynamic batch gears compiled into the model (ATC --dynamic_batch_size), ascending, the "
        "largest the spec's batch: a batch of fewer frames or requests runs at the smallest gear that holds it",
    )
    hw_gears: list[HwGear] | None = Field(
        default=None,
        description="dynamic height/width gears compiled into the model (ATC --dynamic_image_size), "
        "[height, width] pairs ascending: a batch runs at the smallest gear holding its padded requests; "
        "latency_ms is at the largest gear, a smaller one takes its share of the elements",
    )
    extra_inputs: list[Bytes] = Field(
        default=[],
        description="the model's inputs after the first (the pipeline's data), in the model's order: bytes of "
        "each at the spec's batch; the program fills them with zeros once at start-up",
    )
    extra_outputs: list[Bytes] = Field(
        default=[],
        description="the model's outputs after the first (what the next stage reads), in the model's order: "
        "bytes of each at the spec's batch (a detector's other heads); every execution writes them after the "
        "first in its output buffer, and a d2h returns them with it",
    )
    hw_scaled_output: bool = Field(
        default=False,
        description="with hw_gears: the output follows the gear (a CRNN's time steps follow the width): at a "
        "gear each item's output is its share of the largest gear's elements, packed; the program reads the "
        "current size with aclmdlGetCurOutputDims after aclmdlSetDynamicHWSize",
    )
    instances: Literal["auto", "per_thread", "shared"] = Field(
        default="auto",
        description="per_thread: each thread loads its own instance; shared: one instance on one stream, which "
        "every thread's batches take turns on (per_stage streams; no switching between instances on the AI "
        "Core); auto: shared where that is possible and the AI Core runs one execution at a time",
    )

    @model_validator(mode="after")
    def _timed(self) -> ModelStage:
        if self.reference is None and self.latency_ms is None:
            raise ValueError("give 'reference' (a model of the profile) or 'latency_ms'")
        return self


def model_batch(ctx: StageContext) -> tuple[int, str]:
    """(the batch one execution takes, where it is given, for messages): a model of objects has its
    own, a model of frames the spec's."""
    stage = ctx.stage
    assert isinstance(stage, ModelStage)
    return (stage.batch, "the model's batch") if stage.batch is not None else (ctx.spec.batch, "the spec's batch")


def _doubling(batch: int) -> list[int]:
    """1, 2, 4, ... up to ``batch`` (which ends the list): a gear list to suggest."""
    out = [1]
    while out[-1] * 2 < batch:
        out.append(out[-1] * 2)
    return sorted({*out, batch})


def _check_hw_gears(ctx: StageContext, stage: ModelStage) -> list[Diagnostic]:
    """HW gears: ascending (each holds the ones before it), one kind of gears a model, and raw
    requests to feed them (a request's width picks the gear)."""
    gears = stage.hw_gears
    if gears is None:
        return []
    out: list[Diagnostic] = []
    ascending = all(h2 >= h1 and w2 >= w1 and (h2, w2) != (h1, w1) for (h1, w1), (h2, w2) in pairwise(gears))
    if not gears or not ascending:
        out.append(
            ctx.error(
                "hw_gears",
                "hw_gears must ascend: each [height, width] at least the one before it in both, each once, "
                "e.g. [[32, 80], [32, 160], [32, 320]]",
            )
        )
    if stage.gears is not None:
        out.append(ctx.error("hw_gears", "a model has one kind of gears (CANN): give gears or hw_gears, not both"))
    most = max((h * w for h, w in gears), default=0)
    out += _check_hw_scaled_output(ctx, stage, gears, most)
    batch, _ = model_batch(ctx)
    if stage.input_bytes is not None and gears and stage.input_bytes != batch * most:
        out.append(
            ctx.error(
                "input_bytes",
                f"input_bytes {stage.input_bytes} must be batch {batch} x the largest gear's "
                f"{most} uint8 elements = {batch * most} (or leave it out)",
            )
        )
    source = ctx.spec.source
    if source.kind != "requests" or source.format != "raw":
        out.append(
            ctx.error(
                "hw_gears",
                "hw_gears need requests of their own size: source: {kind: requests, format: raw, inputs: ...}",
            )
        )
    elif gears and len({h for h, _ in gears}) != 1:
        out.append(
            ctx.error(
                "hw_gears",
                "a raw request carries its width only (its height is the model's): the gears must share "
                f"one height, not {sorted({h for h, _ in gears})}",
            )
        )
    return out


def _check_hw_scaled_output(ctx: StageContext, stage: ModelStage, gears: list[HwGear], most: int) -> list[Diagnostic]:
    """An output that follows the gear must split into whole float32 values at every gear."""
    if not stage.hw_scaled_output or not gears or not most:
        return []
    item = (stage.output_bytes or 0) // model_batch(ctx)[0]
    uneven = [f"{h}x{w}" for h, w in gears if item * h * w % (most * 4)]
    if stage.output_bytes is None or uneven:
        return [
            ctx.error(
                "hw_scaled_output",
                f"an output that follows the gear needs output_bytes whose item ({item} bytes) splits into whole "
                f"float32 values at every gear; not at {', '.join(uneven) or 'any (no output_bytes)'}",
            )
        ]
    return []


def _extras(model: ModelPlan | None, inputs: bool) -> list[int]:
    if model is None:
        return []
    return model.extra_input_bytes if inputs else model.extra_output_bytes


def _list(values: list[int]) -> str:
    return "{" + ", ".join(str(v) for v in values) + "}"


def hw_gear_output_item_bytes(model: ModelPlan) -> list[int]:
    """One item's output bytes at each (height, width) gear: the whole item unless the output
    follows the gear (hw_scaled_output), then its share of the largest gear's elements."""
    item = model.output_bytes // model.batch
    if not model.hw_scaled_output:
        return [item for _ in model.hw_gears]
    most = max(h * w for h, w in model.hw_gears)
    return [item * h * w // most for h, w in model.hw_gears]


def latency_table(stage: ModelStage, prof: Profile) -> dict[int, float]:
    """The latency by batch size that the stage or its reference gives ({} for a single figure)."""
    if isinstance(stage.latency_ms, dict):
        return dict(stage.latency_ms)
    if stage.latency_ms is None and stage.reference in prof.models:
        return dict(prof.models[str(stage.reference)].latency_ms)
    return {}


def latency_ms(stage: ModelStage, prof: Profile, batch: int) -> float:
    """Latency of one execution at ``batch``: the stage's own figure, else the table,
    interpolated linearly between measured batch sizes (per item beyond the ends)."""
    if isinstance(stage.latency_ms, int | float):
        return float(stage.latency_ms)
    table = latency_table(stage, prof)
    if batch in table:
        return table[batch]
    points = sorted(table)
    if batch < points[0]:
        return table[points[0]] * batch / points[0]
    if batch > points[-1]:
        return table[points[-1]] * batch / points[-1]
    lo = max(p for p in points if p < batch)
    hi = min(p for p in points if p > batch)
    return table[lo] + (table[hi] - table[lo]) * (batch - lo) / (hi - lo)


def traffic_bytes(stage: ModelStage, prof: Profile, batch: int) -> int:
    """DDR bytes one execution moves besides its input and output (weights, activations), from
    the reference model's figures; 0 where unknown (the simulator then assumes the weights)."""
    ref = prof.models.get(str(stage.reference))
    return ref.traffic_bytes_fixed + batch * ref.traffic_bytes_per_item if ref else 0


class Model(StageKind):
    kind = "model"
    schema = ModelStage
    consumes = ("frame", "uploaded", "source", "crops")
    produces = "scores"
    flow = "tensor"
    engine = "aicore"
    takes_batches = True

    def check(self, ctx: StageContext) -> list[Diagnostic]:
        stage, prof, spec = ctx.stage, ctx.prof, ctx.spec
        assert isinstance(stage, ModelStage)
        out: list[Diagnostic] = []
        if stage.reference is not None and stage.reference not in prof.models:
            hint = did_you_mean(stage.reference, prof.models) or (
                f"; {prof.name} measures {one_of(prof.models)}" if prof.models else ""
            )
            out.append(ctx.error("reference", f"profile {prof.name} has no model '{stage.reference}'{hint}"))
        out += self._check_reference_input(ctx, stage)
        if stage.instances == "shared" and spec.threads > 1 and spec.streams != "per_stage":
            out.append(
                ctx.error(
                    "instances",
                    f"one model instance cannot execute on {spec.threads} threads' streams at once "
                    "(CANN reports an error); use instances: per_thread, or streams: per_stage (where the "
                    "threads' batches take turns on the instance's one stream)",
                )
            )
        nxt = ctx.next_kind
        if stage.instances == "shared" and (nxt is None or not nxt.device):
            out.append(
                ctx.error(
                    "instances",
                    "a shared instance needs a device stage after the model (a d2h): each thread's batches "
                    "complete on a stream of its own",
                )
            )
        gears = stage.gears
        batch, given = model_batch(ctx)
        if gears is not None and (gears != sorted(set(gears)) or gears[-1] != batch):
            out.append(
                ctx.error(
                    "gears",
                    f"gears must ascend, each once, and end with {given} {batch} (the model's "
                    f"largest batch): e.g. [{', '.join(str(g) for g in _doubling(batch))}]",
                )
            )
        out += _check_hw_gears(ctx, stage)
        if stage.extra_inputs and (stage.gears or stage.hw_gears):
            out.append(
                ctx.error(
                    "extra_inputs",
                    "extra_inputs with gears are not supported: ATC puts the gear input after the data input "
                    "(ascend_mbatch_shape_data); give one data input, or no gears",
                )
            )
        if isinstance(stage.latency_ms, dict) and batch not in stage.latency_ms and len(stage.latency_ms) < 2:
            out.append(
                ctx.error(
                    "latency_ms",
                    f"latency_ms has no entry for batch {batch}; give it, or two batch sizes to interpolate between",
                )
            )
        return out

    def _check_reference_input(self, ctx: StageContext, stage: ModelStage) -> list[Diagnostic]:
        """A reference model takes frames of one size and format: the stage feeding it must make them."""
        prev = ctx.prev_kind
        ref = ctx.prof.models.get(str(stage.reference))
        if prev is None or not prev.makes_frames or ref is None:
            return []
        feeder = ctx.at(ctx.index - 1)
        picture = prev.frame_picture(feeder)
        assert picture is not None
        want = f"{ref.input.width}x{ref.input.height} {ref.input.format}"
        got = f"{picture.width}x{picture.height} {picture.kind}"
        if got == want:
            return []
        key = "out" if (picture.width, picture.height) != (ref.input.width, ref.input.height) else "format"
        message = f"model '{stage.name}' ({stage.reference} on {ctx.prof.name}) takes {want} frames, not {got}"
        return [feeder.error(key, message)]

    def check_planned(self, ctx: StageContext, plan: Plan) -> list[Diagnostic]:
        stage = ctx.stage
        assert isinstance(stage, ModelStage)
        frame, batch = plan.batching.frame_bytes, plan.batch
        prev = ctx.prev_kind
        if prev is not None and prev.fans_out:  # a model of objects: the crops, its own batch
            picture = prev.frame_picture(ctx.at(ctx.index - 1))
            frame, batch = (picture.bytes if picture else 0), model_batch(ctx)[0]
        if stage.input_bytes and frame and stage.input_bytes != frame * batch:
            return [
                ctx.error(
                    "input_bytes",
                    f"model input_bytes {stage.input_bytes} must equal batch {batch} x "
                    f"{frame} bytes per frame = {frame * batch}",
                )
            ]
        return []

    def geometry(
        self, ctx: StageContext, before: Geometry | None, sizes: Sizes
    ) -> tuple[Geometry | None, Geometry | None]:
        prev = ctx.prev_kind
        if prev is not None and prev.fans_out:  # a model of objects: a batch of crops, at its own batch
            picture = prev.frame_picture(ctx.at(ctx.index - 1))
            batch_in = self.batch_input_bytes(ctx, picture.bytes if picture else 0) or 0
            return tensor(batch_in, "tensor"), tensor(self.output_bytes(ctx.stage, ctx.prof, model_batch(ctx)[0]))
        gin = tensor(sizes.model_input_bytes or 0, "tensor") if before else before
        return gin, tensor(sizes.model_output_bytes)

    def pools(
        self, ctx: StageContext, gin: Geometry | None, out: Geometry | None, batch_level: bool, copy_batches: bool
    ) -> list[PoolRequest]:
        assert out is not None
        # its other outputs follow the first in the same slot, so one copy returns them all
        pools = [PoolRequest("out", "device", "batch", outputs_bytes([out.bytes, *self.extra_outputs(ctx)]))]
        if ctx.index == 0:  # no stage feeds it: it reads tensors written once at start-up
            pools.insert(0, PoolRequest("in", "device", "batch", gin.bytes if gin else 1, reads=True))
        return pools

    def extra_outputs(self, ctx: StageContext) -> list[int]:
        stage = ctx.stage
        assert isinstance(stage, ModelStage)
        return list(stage.extra_outputs)

    def service_us(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None, sizes: Sizes) -> float:
        stage = ctx.stage
        assert isinstance(stage, ModelStage)
        # Every thread feeds the AI Core from its own stream and model instance: with more than
        # one, each execution follows another instance's and pays the switch, a fraction of its
        # own work plus a fixed part (as the simulator does; the profile's engines.aicore).
        work = latency_ms(stage, ctx.prof, model_batch(ctx)[0]) * 1000.0
        if ctx.spec.threads == 1 or self.shared_by_threads(ctx):
            return work  # one instance: no switching
        aicore = ctx.prof.engines.aicore
        return work * (1.0 + aicore.switch_fraction) + aicore.switch_us

    def ddr_bytes(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None) -> float:
        stage = ctx.stage
        assert isinstance(stage, ModelStage)
        return float(
            (gin.bytes if gin else 0)
            + (gout.bytes if gout else 0)
            + traffic_bytes(stage, ctx.prof, model_batch(ctx)[0])
        )

    def object_batches(self, ctx: StageContext) -> tuple[int, list[int]]:
        stage = ctx.stage
        assert isinstance(stage, ModelStage)
        return model_batch(ctx)[0], list(stage.gears or [])

    def execution_us(self, ctx: StageContext, batch: int) -> float:
        stage = ctx.stage
        assert isinstance(stage, ModelStage)
        return latency_ms(stage, ctx.prof, batch) * 1000.0

    def model_switch_us(self, ctx: StageContext) -> float:
        """Its weights read again at the memory bandwidth (UnitEngine.model_switch_us): the
        simulator's default for a descriptor that gives none (default_weight_bytes)."""
        weights = default_weight_bytes(self.model_memory_bytes(ctx))
        return ctx.prof.engines.aicore.model_switch_us(weights, ctx.prof.memory.bandwidth_GBps)

    def execution_ddr_bytes(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None, batch: int) -> float:
        """Its input and output items at ``batch``, and its traffic there."""
        stage = ctx.stage
        assert isinstance(stage, ModelStage)
        share = batch / model_batch(ctx)[0]
        items = ((gin.bytes if gin else 0) + (gout.bytes if gout else 0)) * share
        return items + traffic_bytes(stage, ctx.prof, batch)

    def shared_by_threads(self, ctx: StageContext) -> bool:
        """One instance for every thread: asked for, or (auto) where the threads' streams are
        per_stage, a stage after the model completes batches, and the AI Core runs one execution
        at a time, so sharing loses nothing and saves the switch between instances. In a graph
        (per_stage) the AI Core has one stream, the frames' model's, even for one thread: the
        model of objects executes on it too (templates/runtime/ascgen_objects.h), one instance
        for every thread's object part where the frames' model is shared."""
        stage = ctx.stage
        assert isinstance(stage, ModelStage)
        if stage.instances != "auto":
            return stage.instances == "shared"
        if ctx.prev_kind is not None and ctx.prev_kind.fans_out:  # a model of objects
            frames = next((i for i in range(ctx.index) if ctx.kinds[i].takes_batches), None)
            return frames is not None and ctx.kinds[frames].shared_by_threads(ctx.at(frames))
        nxt = ctx.next_kind
        graph = any(k.fans_out for k in ctx.kinds[ctx.index + 1 :])
        return (
            ctx.spec.streams == "per_stage"
            and (ctx.spec.threads > 1 or graph)
            and nxt is not None
            and nxt.device
            and ctx.prof.engines.aicore.units == 1
        )

    def model_memory_bytes(self, ctx: StageContext) -> int:
        stage = ctx.stage
        assert isinstance(stage, ModelStage)
        if stage.memory_bytes:
            return stage.memory_bytes
        ref = ctx.prof.models.get(str(stage.reference))
        return ref.memory_bytes if ref else DEFAULT_MODEL_MEMORY

    def batch_input_bytes(self, ctx: StageContext, frame_bytes: int) -> int | None:
        """The stage's input_bytes, else a batch of frames, or of the largest hw gear's uint8 items."""
        stage, batch = ctx.stage, model_batch(ctx)[0]
        assert isinstance(stage, ModelStage)
        if stage.input_bytes:
            return stage.input_bytes
        if stage.hw_gears:
            return batch * max(h * w for h, w in stage.hw_gears)
        return frame_bytes * batch

    def batch_plan(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None, instances: int) -> ModelPlan:
        stage, prof, batch = ctx.stage, ctx.prof, model_batch(ctx)[0]
        assert isinstance(stage, ModelStage)
        latency = latency_ms(stage, prof, batch)
        hw_gears = [(h, w) for h, w in stage.hw_gears or []]
        return ModelPlan(
            stage=stage.name, path=stage.path, batch=batch, latency_ms=latency,
            latency_table=latency_table(stage, prof), traffic_bytes=traffic_bytes(stage, prof, batch),
            input_bytes=gin.bytes if gin else 0, output_bytes=gout.bytes if gout else 0,
            memory_bytes=self.model_memory_bytes(ctx), instances=instances, gears=stage.gears or [],
            traffic_bytes_per_item=traffic_bytes(stage, prof, 1) - traffic_bytes(stage, prof, 0),
            hw_gears=hw_gears, hw_scaled_output=bool(hw_gears) and stage.hw_scaled_output,
            extra_input_bytes=list(stage.extra_inputs), extra_output_bytes=list(stage.extra_outputs),
            gear_ms={g: latency_ms(stage, prof, g) for g in stage.gears or []},
            hw_gear_ms=[latency * hw_share(hw_gears, g) for g in hw_gears],
        )  # fmt: skip

    def output_bytes(self, stage: StageBase, prof: Profile, batch: int) -> int:
        assert isinstance(stage, ModelStage)
        if stage.output_bytes is not None:
            return stage.output_bytes
        ref = prof.models.get(str(stage.reference))
        return (ref.output_bytes_per_item if ref else DEFAULT_OUTPUT_BYTES_PER_ITEM) * batch

    def src_pool(self, sp: StagePlan, pools: list[PoolPlan], previous: PoolRef | None) -> PoolRef | None:
        return previous or PoolRef(sp.name, "in")

    def dst_pool(self, sp: StagePlan, pools: list[PoolPlan]) -> PoolRef | None:
        return PoolRef(sp.name, "out")

    def inspects_inputs(self, sp: StagePlan, plan: Plan) -> bool:
        """A model with height/width gears checks each raw request against them."""
        return bool(plan.model and plan.model.hw_gears)

    def object_part(self, sp: StagePlan, plan: Plan) -> dict[str, str]:
        """The model of objects, at its gears: one instance on the AI Core's one stream (per_stage), or
        each worker's own on its stream (per_thread); ascgen/codegen/objects.py places it."""
        model = plan.objects_model
        if model is None or model.stage != sp.name:
            return {}
        assert isinstance(sp.stage, ModelStage)
        return {
            "max_queue_delay_us": str(sp.stage.max_queue_delay_us or 0),
            "classifier": f"{sp.name}::kName",
            "batch": str(model.batch),
            "gears": f"{sp.name}::kGears" if model.gears else "nullptr",
            "gear_count": str(len(model.gears)),
            "scores_bytes": str(model.output_bytes // model.batch),
            "pools": PoolRef(sp.name, "out").member,
        }

    def template_flags(self, sp: StagePlan, plan: Plan) -> dict[str, bool]:
        model = plan.model_of(sp.name)
        return {
            "fills_input": any(p.filled_at_setup for p in plan.pools_of(sp.name)),
            "shared": sp.name in plan.shared_stages,
            "gears": bool(model and model.gears),
            "hw_gears": bool(model and model.hw_gears),
            "hw_scaled_output": bool(model and model.hw_scaled_output),
            "extra_inputs": bool(model and model.extra_input_bytes),
            "extra_outputs": bool(model and model.extra_output_bytes),
            "serving": plan.serving is not None,
        }

    def constants(self, sp: StagePlan, plan: Plan) -> list[Constant]:
        model = plan.model_of(sp.name)
        return (
            [
                # every input and output the model has, in its order (the first two above)
                const("size_t", "kInputSizes[]", _list([sp.input.bytes if sp.input else 0, *_extras(model, True)])),
                const("size_t", "kOutputSizes[]", _list([sp.output.bytes if sp.output else 0, *_extras(model, False)])),
                const("size_t", "kGearInputs", 1 if model and (model.gears or model.hw_gears) else 0),
            ]
            + (
                # where each output lies in an output slot (they follow one another)
                [const("size_t", "kOutputOffsets[]", _list(output_offsets([sp.output.bytes, *_extras(model, False)])))]
                if sp.output and _extras(model, False)
                else []
            )
            + (
                [const("int", "kGears[]", "{" + ", ".join(str(g) for g in model.gears) + "}")]
                if model and model.gears
                else []
            )
            + (
                [
                    const(
                        "ascgen::serving::HwGear",
                        "kHwGears[]",
                        "{" + ", ".join(f"{{{h}, {w}}}" for h, w in model.hw_gears) + "}",
                    )
                ]
                if model and model.hw_gears
                else []
            )
        )
