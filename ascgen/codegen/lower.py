"""Plan -> Program IR. Every decision about streams, events, slots and waits is made here."""

from __future__ import annotations

from pathlib import Path

from ascgen import __version__
from ascgen import spec as dsl
from ascgen.checks import stage_alignment
from ascgen.codegen.ir import Constant, EventRingIR, Op, PoolIR, Program, StageIR, Wait
from ascgen.plan_model import Plan, PoolPlan
from ascgen.profile import Profile
from ascgen.profile import load as load_profile

_MEMORY = {"dvpp": "kDvpp", "device": "kDevice", "host_pinned": "kHostPinned"}
_INTERPOLATION = {"default": 0, "bilinear": 1, "nearest": 2}
_PIXEL_FORMAT = {"nv12": "PIXEL_FORMAT_YUV_SEMIPLANAR_420", "nv21": "PIXEL_FORMAT_YVU_SEMIPLANAR_420"}
DEVICE_KINDS = ("h2d", "jpeg_decode", "vpc_resize", "model", "d2h")
SIM_ABI_VERSION = 1  # simulator/include/acl_sim/acl_sim.h: ACL_SIM_ABI_VERSION
SUPPORT_ABI_VERSION = 1  # templates/support/ascgen_support.h: ASCGEN_SUPPORT_ABI


def _slots_expr(plan: Plan, pool: PoolPlan, spec: dsl.Spec) -> str:
    if plan.streams == "per_stage" and pool.stage in spec.buffers.per_stage:
        return str(pool.slots)
    return "frame_slots" if pool.per == "frame" else "batch_slots"


def _c(type_: str, name: str, value: object) -> Constant:
    return Constant(type_, name, str(value).lower() if isinstance(value, bool) else str(value))


def _stage_constants(stage: dsl.Stage, plan: Plan, prof: Profile) -> list[Constant]:
    """The constants a stage's code uses, named and typed for C++."""
    sp = next(s for s in plan.stages if s.name == stage.name)
    out = sp.output
    if isinstance(stage, dsl.JpegDecodeStage) and out is not None:
        align_w, align_h = stage_alignment(stage, prof)
        return [
            _c("uint32_t", "kMaxWidth", out.width),
            _c("uint32_t", "kMaxHeight", out.height),
            _c("uint32_t", "kAlignWidth", align_w),
            _c("uint32_t", "kAlignHeight", align_h),
            _c("size_t", "kOutBytes", out.bytes),
            _c("acldvppPixelFormat", "kPixelFormat", _PIXEL_FORMAT[stage.format]),
        ]
    if isinstance(stage, dsl.VpcResizeStage) and out is not None:
        consts = [
            _c("uint32_t", "kOutWidth", out.width),
            _c("uint32_t", "kOutHeight", out.height),
            _c("uint32_t", "kWidthStride", out.width_stride),
            _c("uint32_t", "kHeightStride", out.height_stride),
            _c("size_t", "kFrameBytes", out.bytes),
            _c("acldvppPixelFormat", "kPixelFormat", _PIXEL_FORMAT[stage.format]),
            _c("uint32_t", "kInterpolation", _INTERPOLATION[stage.interpolation]),
        ]
        if stage.crop is not None:
            c = stage.crop  # DVPP ROIs are inclusive: left/top even, right/bottom odd
            consts += [
                _c("uint32_t", "kCropLeft", c.left),
                _c("uint32_t", "kCropTop", c.top),
                _c("uint32_t", "kCropRight", c.left + c.width - 1),
                _c("uint32_t", "kCropBottom", c.top + c.height - 1),
            ]
        return consts
    if isinstance(stage, dsl.ModelStage) and plan.model is not None:
        return [
            _c("size_t", "kInputBytes", plan.model.input_bytes),
            _c("size_t", "kOutputBytes", plan.model.output_bytes),
        ]
    if isinstance(stage, dsl.TopkStage):
        scores = (sp.input.bytes if sp.input else 0) // 4 // plan.batch
        return [_c("int", "kK", min(stage.k, max(scores, 1))), _c("int", "kScoresPerFrame", scores)]
    if out is not None:
        return [_c("size_t", "kBytes", out.bytes)]
    return []


class _Lowering:
    def __init__(self, spec: dsl.Spec, plan: Plan) -> None:
        self.spec, self.plan = spec, plan
        self.per_stage = plan.streams == "per_stage"
        self.pools = {p.name: p for p in plan.pools}
        self.ops: list[Op] = []

    def stream(self, stage: str) -> str:
        return f"{stage}_stream" if self.per_stage else "stream"

    def pool_slots(self, pool: str) -> str:
        return f"t.{pool}.slots()"

    def run(self) -> list[Op]:
        spec = self.spec
        kinds: list[str] = [s.kind for s in spec.stages]
        prev_dst, prev_event, prev_batch = "", "", False
        for i, stage in enumerate(spec.stages):
            if stage.kind not in DEVICE_KINDS:
                continue
            line = self.plan.stages[i].line
            batch_end = self._batch_level(i)
            idx = "b" if batch_end else "f"
            dst, src = self._dst_of(stage, i, kinds), prev_dst
            if stage.kind == "model" and i == 0:
                src = f"{stage.name}_in"
            waits: list[Wait] = []
            # per_thread: the window's stream sync frees every slot, so nothing waits.
            host_wait = self._host_wait(stage, i, idx) if self.per_stage else ""
            src_index = "b" if prev_batch or src.endswith(("_batch", "_in")) else "f"
            if self.per_stage:
                if prev_event:
                    at = "b" if prev_batch else "f"
                    waits.append(Wait(prev_event, at, "", f"{src} is written by the previous stage"))
                waits += self._reuse_waits(stage, i, dst, idx)
            offset = "0"
            if stage.kind == "vpc_resize" and dst.endswith("_batch"):
                offset = "i * kFrameBytes"
            assemble = stage.kind == "vpc_resize" and self.plan.batching.mode == "copy" and dst.endswith("_out")
            if assemble:  # the copy that follows on the same stream is the only reader
                waits = [w for w in waits if not w.guard]
            record = (
                Wait(f"{stage.name}_done", idx, "", f"{dst} holds this {'batch' if batch_end else 'frame'}")
                if self.per_stage and not assemble
                else None
            )
            kind: str = stage.kind
            if isinstance(stage, dsl.VpcResizeStage) and stage.crop is not None:
                kind = "vpc_crop"
            src_desc = f"{self.ops[-1].stage}_desc" if stage.kind == "vpc_resize" and self.ops else ""
            self.ops.append(
                Op(
                    stage=stage.name,
                    kind=kind,
                    src_desc=src_desc,
                    line=line,
                    stream=self.stream(stage.name),
                    when="batch_end" if batch_end else "frame",
                    src=src,
                    src_index=src_index,
                    dst=dst,
                    dst_index=idx if not dst.endswith("_batch") else "b",
                    dst_offset=offset,
                    dst_item="i" if offset != "0" else "0",
                    waits=waits,
                    record=record,
                    host_wait=host_wait,
                )
            )
            prev_dst, prev_event, prev_batch = dst, f"{stage.name}_done", batch_end
            if assemble:
                prev_dst = self._assemble(stage, line, dst)
        return self.ops

    def _assemble(self, stage: dsl.Stage, line: int, src: str) -> str:
        """Copy mode: one on-device copy per frame puts VPC's output into the model's batch."""
        dst = f"{stage.name}_batch"
        waits = []
        if self.per_stage:
            slots = self.pool_slots(dst)
            waits.append(
                Wait(
                    f"{self._reader_of(dst)}_done",
                    f"b - {slots}",
                    f"i == 0 && b >= {slots}",
                    f"{dst} slot is free once '{self._reader_of(dst)}' has read its previous contents",
                )
            )
        self.ops.append(
            Op(
                stage=stage.name,
                kind="d2d",
                line=line,
                stream=self.stream(stage.name),
                when="frame",
                src=src,
                src_index="f",
                dst=dst,
                dst_index="b",
                dst_offset="i * kFrameBytes",
                dst_item="i",
                waits=waits,
                record=Wait(f"{stage.name}_done", "f", "", f"{dst} holds this frame") if self.per_stage else None,
            )
        )
        return dst

    def _batch_level(self, i: int) -> bool:
        return self.plan.stages[i].frames_per_task > 1 or self._is_batch_stage(i)

    def _is_batch_stage(self, i: int) -> bool:
        kinds = [s.kind for s in self.spec.stages]
        if "model" in kinds[: i + 1]:
            return True
        return kinds[i] == "h2d" and i + 1 < len(kinds) and kinds[i + 1] == "model"

    def _dst_of(self, stage: dsl.Stage, i: int, kinds: list[str]) -> str:
        for suffix in ("_dev", "_out", "_batch", "_host"):
            name = f"{stage.name}{suffix}"
            if name in self.pools and not (stage.kind == "h2d" and suffix == "_host"):
                return name
        raise AssertionError(f"no pool for stage {stage.name}")  # pragma: no cover

    def _reader_of(self, pool: str) -> str | None:
        """The stage that reads ``pool`` (the next device stage), or None if the host does."""
        names = [s.name for s in self.spec.stages]
        writer = self.pools[pool].stage
        j = names.index(writer) + 1
        while j < len(names) and self.spec.stages[j].kind not in DEVICE_KINDS:
            j += 1
        if j < len(names):
            return names[j]
        return None

    def _reuse_waits(self, stage: dsl.Stage, i: int, dst: str, idx: str) -> list[Wait]:
        reader = self._reader_of(dst)
        pool = self.pools[dst]
        if reader is None or pool.memory == "host_pinned":
            return []
        slots = self.pool_slots(dst)
        guard = f"{idx} >= {slots}"
        if dst.endswith("_batch") and stage.kind == "vpc_resize":
            guard = f"i == 0 && b >= {slots}"
            idx = "b"
        return [
            Wait(
                f"{reader}_done",
                f"{idx} - {slots}",
                guard,
                f"{dst} slot is free once '{reader}' has read its previous contents",
            )
        ]

    def _host_wait(self, stage: dsl.Stage, i: int, idx: str) -> str:
        if stage.kind == "h2d":
            host = f"{stage.name}_host"
            return (
                f"if ({idx} >= t.{host}.slots()) ASCGEN_CHECK({stage.name}::kName, "
                f"aclrtSynchronizeEvent(t.{stage.name}_done.at({idx})));"
            )
        return ""


def lower(spec: dsl.Spec, plan: Plan, spec_path: str) -> Program:
    prof = load_profile(plan.profile)
    low = _Lowering(spec, plan)
    ops = low.run()
    stages = [
        StageIR(
            name=s.name,
            kind=s.kind,
            line=plan.stages[i].line,
            stream=low.stream(s.name) if s.kind in DEVICE_KINDS else "",
            constants=_stage_constants(s, plan, prof),
            per_batch=plan.stages[i].frames_per_task > 1,
        )
        for i, s in enumerate(spec.stages)
    ]
    by_kind = {s.kind: s for s in stages}
    pools = [
        PoolIR(
            name=p.name,
            stage=p.stage,
            memory=_MEMORY[p.memory],
            per=p.per,
            slot_bytes=p.slot_bytes,
            slots=_slots_expr(plan, p, spec),
            why=_pool_why(p),
        )
        for p in plan.pools
    ]
    by_name = {p.name: p for p in pools}
    events = []
    if low.per_stage:
        for op in ops:
            if op.record is None:
                continue
            # As many events as the frames (or batches) whose slots the event guards: a frame-level
            # op guards the slots of what it reads as well as of what it writes.
            src = by_name.get(op.src) or by_name.get(f"{op.stage}_host")
            pool = src if op.when == "frame" and src is not None and src.per == "frame" else by_name[op.dst]
            events.append(
                EventRingIR(
                    name=op.record.event,
                    stage=op.stage,
                    slots=pool.slots,
                    why=f"recorded when '{op.stage}' has filled a slot of {op.dst}",
                )
            )
    streams = list(dict.fromkeys(op.stream for op in ops))
    owner = {st: next(op.stage for op in ops if op.stream == st) for st in streams}
    last = ops[-1]
    host_out = last.dst if by_name[last.dst].memory == "kHostPinned" else ""
    resize, model, decode = by_kind.get("vpc_resize"), by_kind.get("model"), by_kind.get("jpeg_decode")
    resize_pool = next((op.dst for op in ops if op.kind in ("vpc_resize", "vpc_crop")), "")
    frame_bytes = plan.batching.frame_bytes if resize else 0
    model_op = next((op for op in ops if op.kind == "model"), None)
    model_stage = next((s for s in spec.stages if isinstance(s, dsl.ModelStage)), None)
    h2d = next((op for op in ops if op.kind == "h2d"), None)
    dvpp_stage = next((s.name for s in stages if s.kind in ("jpeg_decode", "vpc_resize")), "")
    return Program(
        name=spec.name,
        spec_path=spec_path,
        ascgen_version=__version__,
        regenerate=f"ascgen generate {spec_path}",
        profile=plan.profile,
        device_id=spec.device.id,
        layout=plan.streams,
        sync_every=plan.sync_every,
        batch=plan.batch,
        default_threads=spec.threads,
        default_depth=spec.buffers.depth,
        affinity=_affinity(spec),
        source_kind=spec.source.kind,
        source_path=spec.source.path or "",
        max_input_bytes=spec.source.max_bytes or spec.source.bytes or (1 << 20),
        input_bytes=by_name[h2d.dst].slot_bytes if h2d else (plan.model.input_bytes if plan.model else 0),
        all_stages=stages,
        pools=pools,
        events=events,
        ops=ops,
        streams=streams,
        stream_owner=owner,
        completion_stream=last.stream,
        output_pool=host_out,
        output_stage=last.stage,
        uses_dvpp=bool(dvpp_stage),
        dvpp_owner=dvpp_stage,
        decode=decode,
        decode_max=_decode_max(spec),
        resize=resize,
        resize_out_pool=resize_pool,
        resize_item_offset="item * kFrameBytes" if resize_pool.endswith("_batch") else "0",
        resize_items="kBatch" if resize_pool.endswith("_batch") else "1",
        resize_crop=any(op.kind == "vpc_crop" for op in ops),
        frame_bytes=frame_bytes,
        model=model,
        model_input_pool=model_op.src if model_op else "",
        model_output_pool=model_op.dst if model_op else "",
        model_fills_input=bool(model_op and model_op.src.endswith("_in")),
        model_file=Path(model_stage.path).name if model_stage else "",
        topk=by_kind.get("topk"),
        batching=plan.batching.mode,
        batching_why=plan.batching.why,
        roofline_qps=round(plan.roofline_qps, 1),
        bottleneck=plan.bottleneck,
        plan_rows=_summary(plan),
        sim_abi=SIM_ABI_VERSION,
        support_abi=SUPPORT_ABI_VERSION,
    )


def _decode_max(spec: dsl.Spec) -> str:
    d = next((s for s in spec.stages if isinstance(s, dsl.JpegDecodeStage)), None)
    return f"{d.max.width}x{d.max.height}" if d else ""


def _pool_why(p: PoolPlan) -> str:
    place = {
        "dvpp": "DVPP memory (acldvppMalloc)",
        "device": "device memory (aclrtMalloc)",
        "host_pinned": "pinned host memory (aclrtMallocHost)",
    }[p.memory]
    return f"{p.slot_bytes:,} bytes per {p.per} in {place}"


def _affinity(spec: dsl.Spec) -> str:
    a = spec.host.affinity
    return ",".join(str(c) for c in a) if isinstance(a, list) else a


def _summary(plan: Plan) -> list[str]:
    return [
        f"| {s.name} | {s.kind} | {s.engine} | {s.service_us:,.0f} us | {s.capacity_qps:,.0f} |" for s in plan.stages
    ]
