"""Writes small H.264/H.265 test clips with the `ffmpeg` command (nothing downloaded, nothing committed).

    python pipelines/data/make_clips.py --out DIR [--only NAME ...]

For each clip NAME it writes into DIR:
  NAME.h264 | NAME.h265   Annex-B elementary stream (ffmpeg's testsrc2 pattern, libx264/libx265; the
                          field-coded clip from paff_h264.py)
  NAME.index              one line per access unit (a field's, in a field-coded clip), in decode
                          order: "offset size" in bytes
  NAME.nv12               the reference decode by the ffmpeg command (host libavcodec), frames in
                          display order, each width x height Y then interleaved UV (tight NV12)
  NAME.txt                width, height, frames
  NAME.json               a shapes clip's truth: per frame (display order) the objects drawn, as
                          make_shapes.py writes them for a picture ({"width", "height", "frames":
                          [{"seed", "objects": [{"box", "class", "name", "shape"}]}], "palette"})
The shapes clip's frames are make_shapes.py pictures (coloured shapes on grey texture, a scene of
its own per frame), encoded near-losslessly so the simulator's detector finds each shape.
Clips already present with their files are kept. Exit 2 when ffmpeg/ffprobe are missing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import paff_h264  # beside this script


@dataclass(frozen=True)
class Clip:
    name: str
    codec: str  # h264 | h265
    width: int
    height: int
    frames: int
    gop: int
    bframes: int
    fields: bool = False  # interlaced, each field an access unit (paff_h264.py; H.264 only)
    shapes: tuple[int, ...] = ()  # objects per frame (cycled): make_shapes.py scenes, not testsrc2


CLIPS = (
    Clip("qvga_h264", "h264", 320, 240, 64, 16, 2),  # B-frames: pictures come out late
    Clip("qvga_h265", "h265", 320, 240, 32, 16, 2),
    Clip("hd_h264", "h264", 1280, 720, 4, 4, 0),
    Clip("tiny_h264", "h264", 96, 96, 4, 4, 0),  # below VDEC's 128 x 128
    Clip("fhd_h264", "h264", 1920, 1080, 4, 4, 0),
    Clip("qvga_fields_h264", "h264", 320, 256, 8, 1, 0, fields=True),  # 0x20000 on one field per frame
    # a detector's cameras: 1080p scenes of 0 to 8 coloured shapes, each frame its own (its truth in NAME.json)
    Clip("fhd_shapes_h264", "h264", 1920, 1080, 8, 8, 0, shapes=(1, 3, 0, 8, 2, 5, 1, 4)),
)
SHAPES_SEED = 30  # frame k of a shapes clip is make_shapes.py's scene for seed SHAPES_SEED + k


def _shapes(clip: Clip) -> tuple[bytes, list[dict[str, object]]]:
    """The shapes clip's frames, RGB24 one after the other, and each frame's objects."""
    import make_shapes  # beside this script; numpy and Pillow, only for this clip

    raw = bytearray()
    frames: list[dict[str, object]] = []
    for k in range(clip.frames):
        count = clip.shapes[k % len(clip.shapes)]
        img, objects = make_shapes.draw(
            make_shapes.Shot(f"{clip.name}_{k}", clip.width, clip.height, count), SHAPES_SEED + k
        )
        raw += img.tobytes()
        frames.append({"seed": SHAPES_SEED + k, "objects": objects})
    return bytes(raw), frames


def _truth(clip: Clip, frames: list[dict[str, object]]) -> str:
    import make_shapes

    palette = [{"class": i, "name": name, "rgb": list(rgb)} for i, (name, rgb) in enumerate(make_shapes.PALETTE)]
    doc = {"width": clip.width, "height": clip.height, "frames": frames, "palette": palette}
    return json.dumps(doc, indent=1) + "\n"


def _run(cmd: list[str], stdin: bytes | None = None) -> str:
    proc = subprocess.run(cmd, input=stdin, capture_output=True, check=False)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).decode(errors="replace").strip().splitlines()[-3:]
        raise RuntimeError(f"{cmd[0]} failed (exit {proc.returncode}): {' | '.join(tail)}")
    return proc.stdout.decode()


def encode(clip: Clip, out: Path) -> Path:
    stream = out / f"{clip.name}.{clip.codec}"
    if clip.fields:
        stream.write_bytes(paff_h264.stream(clip.width, clip.height, clip.frames)[0])
        return stream
    if clip.shapes:  # qp 30: the shapes' colours and edges kept, the grain smoothed (cheap to decode)
        raw, frames = _shapes(clip)
        _run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24",
              "-s", f"{clip.width}x{clip.height}", "-r", "30", "-i", "-", "-pix_fmt", "yuv420p",
              "-c:v", "libx264", "-preset", "veryfast", "-qp", "30", "-bf", "0", "-g", str(clip.gop),
              "-x264-params", "threads=1:scenecut=0", "-bsf:v", "h264_mp4toannexb", "-f", "h264", str(stream)],
             stdin=raw)  # fmt: skip
        (out / f"{clip.name}.json").write_text(_truth(clip, frames))
        return stream
    source = f"testsrc2=size={clip.width}x{clip.height}:rate=30"
    if clip.codec == "h264":
        codec = ["-c:v", "libx264", "-preset", "veryfast", "-bf", str(clip.bframes), "-g", str(clip.gop),
                 "-x264-params", "threads=1:scenecut=0", "-bsf:v", "h264_mp4toannexb", "-f", "h264"]  # fmt: skip
    else:
        codec = ["-c:v", "libx265", "-preset", "veryfast",
                 "-x265-params", f"bframes={clip.bframes}:keyint={clip.gop}:min-keyint={clip.gop}:scenecut=0:"
                 "pools=none:frame-threads=1:log-level=error", "-f", "hevc"]  # fmt: skip
    _run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", source,
          "-frames:v", str(clip.frames), "-pix_fmt", "yuv420p", *codec, str(stream)])  # fmt: skip
    return stream


def index(stream: Path, clip: Clip) -> list[tuple[int, int]]:
    fmt = "h264" if clip.codec == "h264" else "hevc"
    text = _run(["ffprobe", "-loglevel", "error", "-f", fmt, "-show_entries", "packet=pos,size",
                 "-of", "json", str(stream)])  # fmt: skip
    return [(int(p["pos"]), int(p["size"])) for p in json.loads(text)["packets"]]


def reference(stream: Path, clip: Clip, dest: Path) -> int:
    fmt = "h264" if clip.codec == "h264" else "hevc"
    _run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-threads", "1", "-f", fmt, "-i", str(stream),
          "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "nv12", str(dest)])  # fmt: skip
    return dest.stat().st_size // (clip.width * clip.height * 3 // 2)


def make(clip: Clip, out: Path) -> None:
    files = [
        out / f"{clip.name}.{ext}" for ext in (clip.codec, "index", "nv12", "txt", *(("json",) if clip.shapes else ()))
    ]
    if all(f.is_file() for f in files):
        return
    stream = encode(clip, out)
    units = index(stream, clip)
    if sum(size for _, size in units) != stream.stat().st_size or len(units) != clip.frames * (1 + clip.fields):
        raise RuntimeError(f"{stream}: {len(units)} access units do not cover the stream")
    frames = reference(stream, clip, out / f"{clip.name}.nv12")
    if frames != clip.frames:
        raise RuntimeError(f"{stream}: the reference decode has {frames} frames, not {clip.frames}")
    (out / f"{clip.name}.index").write_text("".join(f"{pos} {size}\n" for pos, size in units))
    (out / f"{clip.name}.txt").write_text(f"{clip.width} {clip.height} {clip.frames}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the clips")
    parser.add_argument("--only", nargs="*", default=None, help="clip names (default: all)")
    args = parser.parse_args(argv)
    missing = [tool for tool in ("ffmpeg", "ffprobe") if shutil.which(tool) is None]
    if missing:
        print(f"make_clips: {', '.join(missing)} not found: install the ffmpeg package (Debian: apt-get "
              "install ffmpeg)", file=sys.stderr)  # fmt: skip
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    for clip in CLIPS:
        if args.only is None or clip.name in args.only:
            try:
                make(clip, args.out)
            except RuntimeError as err:
                print(f"make_clips: {clip.name}: {err}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
