"""Checks of a video source (source kind video): its keys, its file, the stage that decodes it, one
pipeline per stream, and that the device's VDEC memory holds every channel."""

from __future__ import annotations

from pathlib import PurePosixPath

from ascgen.dsl import spec as dsl
from ascgen.dsl.diagnostics import Diagnostic
from ascgen.dsl.yaml_loader import SourceMap
from ascgen.stages.registry import kind_of

# Annex-B elementary streams (HA 850 aclcppdevg_03_0373: VDEC reads Annex-B only)
ELEMENTARY = {".h264": "h264", ".264": "h264", ".avc": "h264", ".h265": "h265", ".265": "h265", ".hevc": "h265"}
CONTAINERS = (".mp4", ".mkv", ".mov", ".avi", ".ts", ".flv", ".webm", ".m4v", ".3gp")


def _extract_hint(codec: str) -> str:
    bsf, fmt = ("h264_mp4toannexb", "h264") if codec == "h264" else ("hevc_mp4toannexb", "hevc")
    return f"ffmpeg -i IN -c:v copy -bsf:v {bsf} -f {fmt} OUT.{codec}"


def _file(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    source = spec.source
    codec = source.codec or "h264"
    if source.path is None:
        return [smap.error(("source",), f"a video source needs 'path': an Annex-B .{codec} file or a folder of them")]
    suffix = PurePosixPath(source.path).suffix.lower()
    if suffix in CONTAINERS:
        return [
            smap.error(
                ("source", "path"),
                f"'{source.path}' is a container file ({suffix}); VDEC reads Annex-B elementary streams "
                f"(HA 850 aclcppdevg_03_0373): extract it with `{_extract_hint(codec)}`",
            )
        ]
    named = ELEMENTARY.get(suffix)
    if named is not None and named != codec:
        return [
            smap.error(
                ("source", "codec") if source.codec else ("source", "path"),
                f"'{source.path}' is named as an {named.upper()} stream but the source's codec is {codec}; "
                f"write codec: {named}",
            )
        ]
    return []


def _others(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    """What a video source must not have, and what other sources must not have of it."""
    source, out = spec.source, []
    if source.kind != "video":
        return [smap.error(("source", key), f"'{key}' is for source kind video") for key in source.video_keys]
    for key in ("max_bytes", "bytes", "inputs"):
        if getattr(source, key) is not None:
            out.append(
                smap.error(("source", key), f"'{key}' is not for a video source (its frames are its access units)")
            )
    return out


def _stages(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    first = kind_of(spec.stages[0])
    if first.decodes != "video":
        return [
            smap.error(
                ("stages", 0, "kind"),
                f"a video source is decoded by a vdec stage first ({first.article} {first.kind} stage cannot read "
                "a video): add {name: decode, kind: vdec, size: {width: W, height: H}} as the first stage",
            )
        ]
    return []


def _threads(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    streams = spec.source.streams or 1
    if "threads" in spec.model_fields_set and spec.threads != streams:
        return [
            smap.error(
                ("threads",),
                f"a video source runs one pipeline per stream: threads {spec.threads} differs from the source's "
                f"{streams} streams; drop 'threads' (streams sets it)",
            )
        ]
    return []


def _layout(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    if spec.streams != "per_stage":
        return [
            smap.error(
                ("streams",),
                "a video source needs streams: per_stage (each decoded picture goes on from the decoder's "
                "callback; per_thread synchronises whole windows)",
            )
        ]
    return []


def check_video(spec: dsl.Spec, smap: SourceMap) -> list[Diagnostic]:
    """The video source's own checks (nothing for other sources but the keys they must not have)."""
    if spec.source.kind != "video":
        return _others(spec, smap)
    return _others(spec, smap) + _file(spec, smap) + _stages(spec, smap) + _threads(spec, smap) + _layout(spec, smap)
