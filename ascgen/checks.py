"""Semantic checks of a Spec against a device profile, before and after planning.

Each check returns diagnostics (never raises) so that every problem of a file is
reported in one go. Figures come from the profile; messages say how to fix.
"""

from __future__ import annotations

from ascgen import profile as profiles
from ascgen import spec as dsl
from ascgen.diagnostics import Diagnostic, did_you_mean, one_of
from ascgen.geometry import nice_multiples
from ascgen.profile import Profile
from ascgen.yaml_loader import SourceMap

# Which stage kinds may follow which. "source" stands for the pipeline input.
_FOLLOWS: dict[str, tuple[str, ...]] = {
    "h2d": ("source",),
    "jpeg_decode": ("h2d",),
    "vpc_resize": ("jpeg_decode",),
    "model": ("vpc_resize", "h2d", "source"),
    "d2h": ("model", "vpc_resize", "jpeg_decode"),
    "topk": ("d2h",),
}
DEVICE_KINDS = ("h2d", "jpeg_decode", "vpc_resize", "model", "d2h")


def _a(kind: str) -> str:
    """The article before a stage kind, as it is read aloud: an h2d, a d2h, a model."""
    return "an" if kind[0] in "aeioh" else "a"


def _stage_err(smap: SourceMap, index: int, key: str | None, message: str) -> Diagnostic:
    loc: tuple[str | int, ...] = ("stages", index) if key is None else ("stages", index, key)
    return smap.error(loc, message)


def check_profile(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    names = profiles.available()
    if spec.device.profile in names:
        return []
    hint = did_you_mean(spec.device.profile, names) or f"; available: {one_of(names)}"
    return [smap.error(("device", "profile"), f"unknown device profile '{spec.device.profile}'{hint}")]


def check_structure(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    """Stage names, stage order and format compatibility, top-level consistency."""
    out: list[Diagnostic] = []
    seen: dict[str, int] = {}
    for i, stage in enumerate(spec.stages):
        if stage.name in seen:
            out.append(
                _stage_err(
                    smap, i, "name", f"duplicate stage name '{stage.name}' (first used by stage {seen[stage.name] + 1})"
                )
            )
        seen.setdefault(stage.name, i)
    source = "source"
    previous = source
    for i, stage in enumerate(spec.stages):
        allowed = _FOLLOWS[stage.kind]
        if previous not in allowed:
            after = "the source" if previous == source else f"{_a(previous)} {previous} stage"
            need = one_of(["the source" if a == source else a for a in allowed])
            out.append(
                _stage_err(
                    smap,
                    i,
                    "kind",
                    f"{_a(stage.kind)} {stage.kind} stage cannot come after {after}; it takes its input from {need}",
                )
            )
        previous = stage.kind
    kinds = [s.kind for s in spec.stages]
    if spec.source.kind == "jpeg_files" and "jpeg_decode" not in kinds and kinds != ["h2d"]:
        out.append(smap.error(("source", "kind"), "JPEG input needs a jpeg_decode stage after h2d"))
    if spec.source.kind == "tensor" and "jpeg_decode" in kinds:
        out.append(smap.error(("source", "kind"), "a jpeg_decode stage needs source kind jpeg_files"))
    if spec.source.kind == "tensor" and spec.source.bytes is None:
        out.append(smap.error(("source",), "a tensor source needs 'bytes' (the size of one input)"))
    if spec.source.kind == "jpeg_files" and spec.source.bytes is not None:
        out.append(smap.error(("source", "bytes"), "'bytes' is for tensor sources; use max_bytes"))
    if spec.streams == "per_stage" and spec.sync_every is not None:
        out.append(
            smap.error(
                ("sync_every",),
                "sync_every applies to streams: per_thread (per_stage streams never synchronise the whole stream)",
            )
        )
    if spec.streams == "per_thread" and spec.frames_per_sync % spec.batch:
        loc = ("sync_every",) if spec.sync_every is not None else ("batch",)
        out.append(
            smap.error(
                loc,
                f"sync_every {spec.frames_per_sync} must be a multiple of batch {spec.batch} "
                "(a stream sync completes whole batches)",
            )
        )
    for name in spec.buffers.per_stage:
        if name not in seen:
            out.append(smap.error(("buffers", "per_stage", name), f"no stage named '{name}'{did_you_mean(name, seen)}"))
    out += _check_batch_kinds(spec, smap)
    return out


def _check_batch_kinds(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    models = [i for i, s in enumerate(spec.stages) if s.kind == "model"]
    if spec.batch > 1 and not models:
        return [smap.error(("batch",), "batch > 1 needs a model stage (batches are model inputs)")]
    if len(models) > 1:
        return [_stage_err(smap, models[1], "kind", "one model stage per pipeline")]
    return []


def _use(value: int, alignment: int) -> str:
    """A hint naming the aligned values next to ``value``."""
    lo, hi = nice_multiples(value, alignment)
    return f"use {lo}" if lo == hi else f"use {lo} or {hi}"


def _aligned(value: int, alignment: int) -> bool:
    return value % alignment == 0


def _align_override(
    stage: dsl.Stage, base_w: int, base_h: int, smap: SourceMap, i: int, out: list[Diagnostic]
) -> tuple[int, int]:
    """The stage's stride alignment: the profile's, tightened by the stage's `align`."""
    w, h = base_w, base_h
    if stage.align is not None:
        for key, base, value in (("width", base_w, stage.align.width), ("height", base_h, stage.align.height)):
            if value is None:
                continue
            if value % base:
                out.append(
                    smap.error(
                        ("stages", i, "align", key),
                        f"align.{key} {value} must be a multiple of the device's {base}; {_use(value, base)}",
                    )
                )
            elif key == "width":
                w = value
            else:
                h = value
    return w, h


def stage_alignment(stage: dsl.Stage, prof: Profile) -> tuple[int, int]:
    base = {"jpeg_decode": prof.align.jpegd_out, "vpc_resize": prof.align.vpc_out}.get(stage.kind)
    if base is None:
        return 1, 1
    w = stage.align.width if stage.align and stage.align.width else base.width
    h = stage.align.height if stage.align and stage.align.height else base.height
    return w, h


def check_geometry(spec: dsl.Spec, prof: Profile, smap: SourceMap) -> list[Diagnostic]:
    """JPEGD and VPC resolution limits, even sizes, stride alignment, crop and resize ratio."""
    out: list[Diagnostic] = []
    decoded: dsl.Size | None = None
    for i, stage in enumerate(spec.stages):
        if isinstance(stage, dsl.JpegDecodeStage):
            a = prof.align.jpegd_out
            _align_override(stage, a.width, a.height, smap, i, out)
            out += _check_range(smap, ("stages", i, "max"), "JPEGD input", stage.max, prof.limits.jpegd_in)
            decoded = stage.max
        elif isinstance(stage, dsl.VpcResizeStage):
            a = prof.align.vpc_out
            aw, ah = _align_override(stage, a.width, a.height, smap, i, out)
            lim = prof.limits.vpc_out
            out += _check_range(smap, ("stages", i, "out"), "VPC output", stage.out, lim, even=False)
            for key, value, alignment, lo, hi in (
                ("width", stage.out.width, aw, lim.min_width, lim.max_width),
                ("height", stage.out.height, ah, lim.min_height, lim.max_height),
            ):
                if lo <= value <= hi and not _aligned(value, alignment):  # else the range is the problem
                    out.append(
                        smap.error(
                            ("stages", i, "out", key),
                            f"{key} {value} is not a multiple of {alignment} for VPC output; {_use(value, alignment)}",
                        )
                    )
            src = decoded
            if stage.crop is not None and decoded is not None:
                out += _check_crop(smap, i, stage.crop, decoded)
                src = dsl.Size(width=stage.crop.width, height=stage.crop.height)
            if src is not None:
                out += _check_ratio(smap, i, src, stage.out, prof)
    return out


def _check_range(
    smap: SourceMap,
    loc: tuple[str | int, ...],
    what: str,
    size: dsl.Size,
    lim: profiles.Resolution,
    *,
    even: bool = True,
) -> list[Diagnostic]:
    """Resolution limits; ``even`` also asks for even sizes (VPC output checks its alignment instead)."""
    out = []
    for key, value, lo, hi in (
        ("width", size.width, lim.min_width, lim.max_width),
        ("height", size.height, lim.min_height, lim.max_height),
    ):
        if not lo <= value <= hi:
            out.append(smap.error((*loc, key), f"{what} {key} {value} is outside the device's range {lo}..{hi}"))
        elif even and value % 2:
            out.append(
                smap.error(
                    (*loc, key), f"{what} {key} {value} must be even for YUV420SP; use {value - 1} or {value + 1}"
                )
            )
    return out


def _check_crop(smap: SourceMap, i: int, crop: dsl.Crop, decoded: dsl.Size) -> list[Diagnostic]:
    out = []
    for key, value in (("left", crop.left), ("top", crop.top), ("width", crop.width), ("height", crop.height)):
        if value % 2:
            out.append(
                smap.error(
                    ("stages", i, "crop", key),
                    f"crop {key} {value} must be even "
                    f"(DVPP crops on 2x2 chroma blocks); use {value - 1} or {value + 1}",
                )
            )
    if crop.left + crop.width > decoded.width or crop.top + crop.height > decoded.height:
        out.append(
            smap.error(
                ("stages", i, "crop"),
                f"crop {crop.width}x{crop.height} at "
                f"({crop.left},{crop.top}) lies outside the decoded "
                f"{decoded.width}x{decoded.height} picture",
            )
        )
    if crop.width < 10 or crop.height < 6:
        out.append(smap.error(("stages", i, "crop"), "crop area must be at least 10x6"))
    return out


def _check_ratio(smap: SourceMap, i: int, src: dsl.Size, dst: dsl.Size, prof: Profile) -> list[Diagnostic]:
    lo, hi = prof.limits.resize_ratio.min, prof.limits.resize_ratio.max
    for key, a, b in (("width", src.width, dst.width), ("height", src.height, dst.height)):
        ratio = b / a
        if not lo <= ratio <= hi:
            return [
                smap.error(
                    ("stages", i, "out", key),
                    f"resize {key} {a} -> {b} (ratio {ratio:.4f}) "
                    f"is outside VPC's {lo:g}..{hi:g}; crop first or resize in two stages",
                )
            ]
    return []


def check_model(spec: dsl.Spec, prof: Profile, smap: SourceMap) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if spec.batch > prof.limits.max_batch:
        out.append(smap.error(("batch",), f"batch {spec.batch} exceeds the device's {prof.limits.max_batch}"))
    for i, stage in enumerate(spec.stages):
        if not isinstance(stage, dsl.ModelStage):
            continue
        if stage.reference is not None and stage.reference not in prof.models:
            hint = did_you_mean(stage.reference, prof.models) or (
                f"; {prof.name} measures {one_of(prof.models)}" if prof.models else ""
            )
            out.append(_stage_err(smap, i, "reference", f"profile {prof.name} has no model '{stage.reference}'{hint}"))
        out += _check_reference_input(spec, prof, smap, i)
        if stage.instances == "shared" and spec.threads > 1:
            out.append(
                _stage_err(
                    smap,
                    i,
                    "instances",
                    f"one model instance cannot execute on {spec.threads} threads' streams at once "
                    "(CANN reports an error); use instances: per_thread",
                )
            )
        if isinstance(stage.latency_ms, dict) and spec.batch not in stage.latency_ms and len(stage.latency_ms) < 2:
            out.append(
                _stage_err(
                    smap,
                    i,
                    "latency_ms",
                    f"latency_ms has no entry for batch {spec.batch}; "
                    "give it, or two batch sizes to interpolate between",
                )
            )
    return out


def _check_reference_input(spec: dsl.Spec, prof: Profile, smap: SourceMap, i: int) -> list[Diagnostic]:
    """A reference model takes frames of one size and format: the VPC stage feeding it must make them."""
    stage, feeder = spec.stages[i], spec.stages[i - 1] if i > 0 else None
    if not isinstance(stage, dsl.ModelStage) or not isinstance(feeder, dsl.VpcResizeStage):
        return []
    ref = prof.models.get(str(stage.reference))
    if ref is None:
        return []
    want = f"{ref.input.width}x{ref.input.height} {ref.input.format}"
    got = f"{feeder.out.width}x{feeder.out.height} {feeder.format}"
    if got == want:
        return []
    key = "out" if (feeder.out.width, feeder.out.height) != (ref.input.width, ref.input.height) else "format"
    message = f"model '{stage.name}' ({stage.reference} on {prof.name}) takes {want} frames, not {got}"
    return [_stage_err(smap, i - 1, key, message)]
