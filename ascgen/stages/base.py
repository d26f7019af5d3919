"""What a stage kind is: one class that owns the kind's schema, checks, geometry, pools,
engine and service time, and the constants its C++ prints. The planner and the lowering
call these hooks; nothing outside ascgen/stages/ branches on a kind's name.

A kind's C++ lives beside it in templates/stages/<kind>.j2 (macros `members`, `setup` and
`submit`), printed by main.cpp.j2 for every stage of that kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar, Literal, Protocol

from ascgen.dsl.diagnostics import Diagnostic
from ascgen.dsl.dsl_base import StageBase
from ascgen.plan.geometry import Geometry
from ascgen.plan.model import Flow, MemoryKind, PoolRef, Role

if TYPE_CHECKING:
    from ascgen.dsl.dsl_base import Streams
    from ascgen.dsl.profile import Profile
    from ascgen.dsl.sections import Buffers, Source
    from ascgen.dsl.yaml_loader import SourceMap
    from ascgen.plan.model import ModelPlan, Plan, PoolPlan, StagePlan, VideoPlan

Per = Literal["frame", "batch"]


@dataclass(frozen=True)
class PoolRequest:
    """A pool a stage asks for; the planner sizes its slots and memory."""

    role: Role
    memory: MemoryKind
    per: Per
    bytes: int
    reads: bool = False  # the stage reads it (a model input), rather than writes it


@dataclass(frozen=True)
class Constant:
    type: str  # C++ type
    name: str  # kCamelCase
    value: str  # C++ literal


@dataclass(frozen=True)
class Port:
    """One input of a kind: its key in the spec, the schema field holding it, and what it takes."""

    key: str  # `from`, or a kind's own input (a crop's `image` and `rois`)
    field: str  # the schema's attribute (`from_`)
    consumes: tuple[str, ...] | None = None  # what it takes (as StageKind.consumes); None: the kind's
    needs_flow: Flow | None = None  # what must flow in; None: the kind's needs_flow
    branch: bool = False  # may name any stage above (a crop's image), not only the one just before
    required: bool = False  # must be written; else, unwritten, it reads the stage just before
    hint: str = ""  # said when it reads the wrong kind of stage


FROM = Port("from", "from_")


def const(type_: str, name: str, value: object) -> Constant:
    return Constant(type_, name, str(value).lower() if isinstance(value, bool) else str(value))


class SpecView(Protocol):
    """What a stage kind reads of its spec (an ascgen.dsl.spec.Spec). Kinds see the spec
    through this view because the Spec's `stages:` are the kinds' own schemas: the spec
    imports the registry of kinds, never the other way round."""

    @property
    def source(self) -> Source: ...
    @property
    def threads(self) -> int: ...
    @property
    def streams(self) -> Streams: ...
    @property
    def batch(self) -> int: ...
    @property
    def buffers(self) -> Buffers: ...
    @property
    def stages(self) -> Sequence[StageBase]: ...


@dataclass(frozen=True)
class StageContext:
    """One stage of a spec, as the planner sees it while planning
    (ascgen.stages.registry.context makes one)."""

    spec: SpecView
    prof: Profile
    index: int
    kinds: tuple[StageKind, ...]  # the kind of each stage of the spec, in order
    smap: SourceMap | None = None

    @property
    def stage(self) -> StageBase:
        return self.spec.stages[self.index]

    def at(self, index: int) -> StageContext:
        """The context of another stage of the same spec."""
        return replace(self, index=index)

    def kind_at(self, index: int) -> StageKind | None:
        return self.kinds[index] if 0 <= index < len(self.kinds) else None

    @property
    def next_kind(self) -> StageKind | None:
        return self.kind_at(self.index + 1)

    @property
    def prev_kind(self) -> StageKind | None:
        return self.kind_at(self.index - 1)

    @property
    def feeds_batches(self) -> bool:
        """Whether the next stage takes whole batches (the model)."""
        nxt = self.next_kind
        return nxt is not None and nxt.takes_batches

    def error(self, key: str | tuple[str | int, ...] | None, message: str) -> Diagnostic:
        assert self.smap is not None
        keys = () if key is None else (key,) if isinstance(key, str) else key
        return self.smap.error(("stages", self.index, *keys), message)


@dataclass(frozen=True)
class Sizes:
    """Whole-pipeline sizes a stage may need while planning (worked out by the planner)."""

    source_bytes: int
    model_input_bytes: int | None  # the model's whole input at the spec's batch
    model_output_bytes: int


class StageKind:
    """One stage kind. Subclasses set the class attributes and override what they need."""

    kind: ClassVar[str]
    schema: ClassVar[type[StageBase]]
    consumes: ClassVar[tuple[str, ...]]  # the data it takes: "source" (the pipeline input) or
    produces: ClassVar[str]  # what another kind produces: uploaded, decoded, frame, scores, host
    engine: ClassVar[str]  # h2d | d2h | d2d | jpegd | vpc | aicore | host
    # what its output is, in the graph's words (image, tensor, boxes, labels); None: what it reads,
    # moved (the copies)
    flow: ClassVar[Flow | None] = None
    needs_flow: ClassVar[Flow | None] = None  # what its input must be, beyond `consumes` (detections: a tensor)
    takes_batches: ClassVar[bool] = False  # its input is a whole batch (the model)
    moves_whole_batches: ClassVar[bool] = False  # before a batch stage it moves whole batches (h2d)
    decodes: ClassVar[str | None] = None  # the source kind it decodes (jpeg_decode: jpeg_files)
    fans_out: ClassVar[bool] = False  # one output per object of a frame (a crop of each box)
    makes_frames: ClassVar[bool] = False  # writes one picture per frame that a batch can assemble
    dvpp: ClassVar[bool] = False  # runs on a DVPP channel
    host_link: ClassVar[bool] = False  # its bytes cross the host link (PCIe) the engine copies over
    dvpp_mode: ClassVar[str] = ""  # its acldvppChannelMode enumerator, where channels have modes
    reads_dvpp: ClassVar[bool] = False  # its input must lie in DVPP memory
    # bytes its engine may write past the data in its input buffer, which the buffer must hold
    # (JPEGD zeroes the 8 bytes after the EOI marker: ACL_FACTS 8, aclcppdevg_03_0169/0227)
    input_margin_bytes: ClassVar[int] = 0
    reports_status: ClassVar[bool] = False  # its result code is read at completion (JPEGD)
    host_postprocess: ClassVar[bool] = False  # runs on the host on each completed frame (top-k)
    # says what it found in a frame (<stage>_describe), which --verify's report lists per input
    describes: ClassVar[bool] = False
    lowered: ClassVar[bool] = True  # has a template: generated programs can run it
    # its task is sent by the program's source driver (a video stream's feeder), not as a step of the
    # frame, and its result arrives on the host (VDEC's callback), which then submits the frame's
    # next steps: no event links it to them, it has no op, and it reports each frame's status
    fed_by_source: ClassVar[bool] = False
    # its inputs, the main one (that, unwritten, reads the stage just before) first
    ports: ClassVar[tuple[Port, ...]] = (FROM,)

    @property
    def device(self) -> bool:
        return self.engine != "host"

    @property
    def article(self) -> str:
        """The article before the kind's name read aloud: an h2d, a model."""
        return "an" if self.kind[0] in "aeioh" else "a"

    # ---------------------------------------------------------------- checks

    def check(self, ctx: StageContext) -> list[Diagnostic]:
        """Checks of the stage against the profile (geometry, limits, references)."""
        return []

    def check_planned(self, ctx: StageContext, plan: Plan) -> list[Diagnostic]:
        """Checks that need the plan (sizes of the whole pipeline)."""
        return []

    # ---------------------------------------------------------------- planning

    def geometry(
        self, ctx: StageContext, before: Geometry | None, sizes: Sizes
    ) -> tuple[Geometry | None, Geometry | None]:
        """(what the stage reads, what it writes), one frame, or one batch for batch stages; by
        default what it is handed, and the picture it makes of each frame (if any)."""
        return before, self.frame_picture(ctx)

    def frame_picture(self, ctx: StageContext) -> Geometry | None:
        """The picture one frame becomes (stages that make frames for a batch)."""
        return None

    def pools(
        self, ctx: StageContext, gin: Geometry | None, out: Geometry | None, batch_level: bool, copy_batches: bool
    ) -> list[PoolRequest]:
        """The pools the stage owns."""
        return []

    def service_us(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None, sizes: Sizes) -> float:
        """Time one task of this stage occupies one unit of its engine."""
        return 0.0

    def output_bytes(self, stage: StageBase, prof: Profile, batch: int) -> int:
        """A batch stage's whole output at ``batch`` (the model's)."""
        return 0

    def ddr_bytes(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None) -> float:
        """Bytes one task reads and writes in device memory (its share of the DDR bandwidth that
        the engines running at the same moment share: simulator/docs/shared_bandwidth.md)."""
        return 0.0

    def shared_by_threads(self, ctx: StageContext) -> bool:
        """Whether one copy of the stage (its stream and resources) serves every thread."""
        return False

    def host_awaited(self, ctx: StageContext) -> bool:
        """Whether the host awaits its task before it submits the frame's next step (a V2 VPC task:
        hi_mpi_vpc_get_process_result), so that it runs on no stream and no event links it."""
        return False

    def dvpp_fixed_bytes(self, ctx: StageContext) -> int:
        """DVPP memory one copy of the stage holds besides its pools (a VDEC channel's decoder)."""
        return 0

    def model_memory_bytes(self, ctx: StageContext) -> int:
        """Device memory one loaded instance takes (model stages)."""
        return 0

    def batch_input_bytes(self, ctx: StageContext, frame_bytes: int) -> int | None:
        """A batch stage's whole input at the spec's batch, given what one frame is (the model's)."""
        return None

    def video_plan(self, ctx: StageContext, roofline_qps: float) -> VideoPlan | None:
        """What the plan records of the video source this stage decodes (Plan.video), at the spec's
        streams with the pipeline's roofline: asked of the pipeline's first stage."""
        return None

    def batch_plan(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None, instances: int) -> ModelPlan:
        """What the plan records of a batch stage (Plan.model): asked of the kind that takes batches."""
        raise NotImplementedError(f"{self.kind} does not take batches")

    # ---------------------------------------------------------------- a graph's fan-out

    def extra_outputs(self, ctx: StageContext) -> list[int]:
        """The bytes of each output it writes after the first, which lie after it in its output
        pool's slot (geometry.output_offsets): a model's other heads."""
        return []

    def host_outputs(self, sp: StagePlan, plan: Plan) -> int:
        """How many of the model's outputs its frame function reads, the first first (a host stage)."""
        return 1

    def max_objects(self, ctx: StageContext) -> int | None:
        """The most objects a frame's boxes hold (a detections stage)."""
        return None

    def object_batches(self, ctx: StageContext) -> tuple[int, list[int]]:
        """(the objects one execution takes at most, the smaller batches it can run at): a model."""
        return 1, []

    def execution_us(self, ctx: StageContext, batch: int) -> float:
        """Engine time of one execution at ``batch`` items, before any switch (a model's latency)."""
        return 0.0

    def execution_ddr_bytes(self, ctx: StageContext, gin: Geometry | None, gout: Geometry | None, batch: int) -> float:
        """Device memory bytes one execution at ``batch`` items moves, of a kind that takes batches
        (``gin``/``gout``: its whole input and output at its largest batch)."""
        return self.ddr_bytes(ctx, gin, gout)

    def fanout_us(self, ctx: StageContext, regions_per_call: list[int]) -> float:
        """Engine time of one frame's objects cut in calls of these many regions (a crop)."""
        return 0.0

    def model_switch_us(self, ctx: StageContext) -> float:
        """What one execution adds when its AI Core unit last ran another model (a model)."""
        return 0.0

    # ---------------------------------------------------------------- lowering

    def refusal(self, stage: StageBase) -> str:
        """Why ascgen cannot generate this stage yet; "" where it can."""
        if self.lowered:
            return ""
        return f"ascgen validates and plans {self.kind} stages but cannot generate their code yet"

    def detector(self, sp: StagePlan, plan: Plan) -> dict[str, str | int] | None:
        """What makes the simulated model before it a detector (the arguments of
        ascgen.codegen.model_descriptor.detector_lines), where its input is pictures."""
        return None

    def constants(self, sp: StagePlan, plan: Plan) -> list[Constant]:
        """The named constants its C++ uses (namespace <stage name>)."""
        return []

    def object_part(self, sp: StagePlan, plan: Plan) -> dict[str, str]:
        """A graph's object part (templates/runtime/ascgen_objects.h): the fields of its
        ascgen::objects::Config this stage fixes, as C++ (ascgen/codegen/objects.py merges them);
        "refusal": why it cannot be generated yet; from the stage the crops are cut out of, "image" and
        "image_picture": C++ of frame f's decoded picture (its slot) and its layout for input `in`."""
        return {}

    def inspects_inputs(self, sp: StagePlan, plan: Plan) -> bool:
        """Whether it checks each input at start-up (what JPEGD can decode, what a model's gears hold)."""
        return False

    def template_flags(self, sp: StagePlan, plan: Plan) -> dict[str, bool]:
        """Switches its template reads (e.g. has_crop), so the template decides nothing."""
        return {}

    def src_pool(self, sp: StagePlan, pools: list[PoolPlan], previous: PoolRef | None) -> PoolRef | None:
        """The pool the stage's device task reads."""
        return previous

    def dst_pool(self, sp: StagePlan, pools: list[PoolPlan]) -> PoolRef | None:
        """The pool the stage's device task writes (None for host stages)."""
        return None

    def pads_requests(self, sp: StagePlan, plan: Plan) -> bool:
        """Whether it packs each batch's requests, zero-padded to the batch's (height, width) gear
        (a server's upload), so its time follows the gear."""
        return False
