"""End-to-end checks of simulator/imaging through its CLI tool.

Uses the build of simulator/imaging that the simulator's plain build holds
(build-tests/sim-plain/imaging, the sim_build fixture), runs its C++ unit tests,
then checks the tool against independent references:
Pillow/libjpeg for decoding, numpy resamplers and the Python ash64 in
imaging_ref.py. Set ACL_SIM_IMAGING_BUILD to test another build tree, e.g. one
configured with -DCMAKE_CXX_FLAGS=-fsanitize=address,undefined. Every JPEG is
made here with Pillow; nothing is downloaded.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

sys.path.insert(0, str(Path(__file__).parent))
from imaging_ref import ash64, bilinear, make_nv12, nearest, nv12_planes

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "simulator" / "imaging"
# ACL_SIM_IMAGING_BUILD: an existing build tree to test instead (e.g. a sanitizer build).
OTHER_BUILD = os.environ.get("ACL_SIM_IMAGING_BUILD")

Tool = Callable[..., dict[str, Any]]


@pytest.fixture(scope="session")
def build_dir(sim_build: Callable[[str], Path]) -> Path:
    """The imaging library's tool and tests as the simulator's plain build compiles them
    (build-tests/sim-plain/imaging, the build the other tests of tests/simulator share, instead
    of a second build of simulator/imaging), or the build tree ACL_SIM_IMAGING_BUILD names."""
    if not OTHER_BUILD:
        return sim_build("plain") / "imaging"
    build = Path(OTHER_BUILD)
    if shutil.which("cmake") is None or shutil.which("ninja") is None:
        pytest.fail("cmake and ninja are needed to build simulator/imaging: run scripts/install.sh")
    if not (build / "build.ninja").exists():
        subprocess.run(
            ["cmake", "-G", "Ninja", "-S", SOURCE, "-B", build, "-DCMAKE_BUILD_TYPE=Release"],
            check=True,
            capture_output=True,
        )
    subprocess.run(["cmake", "--build", build, "-j2"], check=True, capture_output=True)
    return build


@pytest.fixture(scope="session")
def tool(build_dir: Path) -> Tool:
    exe = build_dir / "acl_sim_imaging_tool"

    def run(*args: object, ok: bool = True) -> dict[str, Any]:
        proc = subprocess.run([exe, *map(str, args)], capture_output=True, text=True)
        if ok:
            assert proc.returncode == 0, proc.stdout + proc.stderr
        result: dict[str, Any] = json.loads(proc.stdout)
        return result

    return run


def test_cpp_unit_tests(build_dir: Path) -> None:
    proc = subprocess.run(["ctest", "--test-dir", build_dir, "--output-on-failure"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:]


# --- test pictures -----------------------------------------------------------


def picture(width: int, height: int, seed: int = 0) -> np.ndarray:
    """A smooth RGB test card with mild noise (compresses like a photo)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    r = 128 + 90 * np.sin(x / 37.0) * np.cos(y / 53.0)
    g = 30 + 180 * x / width
    b = 40 + 150 * y / height + 30 * np.sin((x + y) / 15.0)
    rgb = np.stack([r, g, b], axis=-1) + rng.normal(0, 3, (height, width, 3))
    return np.clip(rgb, 0, 255).astype(np.uint8)


@pytest.fixture(scope="session")
def jpegs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("jpegs")
    out: dict[str, Path] = {}

    def save(name: str, img: Image.Image, **kw: Any) -> None:
        out[name] = d / f"{name}.jpg"
        img.save(out[name], format="JPEG", **kw)

    big = Image.fromarray(picture(1024, 1536, 1))
    save("baseline_1024x1536", big, quality=85)
    save("hd_1920x1080", Image.fromarray(picture(1920, 1080, 2)), quality=90)
    save("odd_333x211", Image.fromarray(picture(333, 211, 3)), quality=90)
    save("gray_300x200", Image.fromarray(picture(300, 200, 4)).convert("L"), quality=90)
    save("s444_320x240", Image.fromarray(picture(320, 240, 5)), quality=90, subsampling=0)
    save("s422_320x240", Image.fromarray(picture(320, 240, 6)), quality=90, subsampling=1)
    save("optimized_320x240", Image.fromarray(picture(320, 240, 7)), quality=80, optimize=True)
    save("progressive_320x240", Image.fromarray(picture(320, 240, 8)), progressive=True)
    save("tiny_16x16", Image.fromarray(picture(16, 16, 9)), quality=90)
    save("wide_8193x32", Image.new("L", (8193, 32), 90), quality=90)
    save("wide_8192x32", Image.new("L", (8192, 32), 90), quality=90)
    # Header-only streams for sizes too big to encode here.
    for w, h in ((8193, 8193), (8192, 8192)):
        out[f"header_{w}x{h}"] = d / f"header_{w}x{h}.jpg"
        out[f"header_{w}x{h}"].write_bytes(sof_only(w, h))
    # The same bytes as the baseline picture, its SOF0 marked as SOF9 (arithmetic).
    data = bytearray(out["optimized_320x240"].read_bytes())
    data[data.index(b"\xff\xc0") + 1] = 0xC9
    out["arithmetic_sof9"] = d / "arithmetic_sof9.jpg"
    out["arithmetic_sof9"].write_bytes(bytes(data))
    return out


def sof_only(width: int, height: int) -> bytes:
    sof = bytes([0xFF, 0xC0, 0, 17, 8]) + height.to_bytes(2, "big") + width.to_bytes(2, "big")
    sof += bytes([3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
    sos = bytes([0xFF, 0xDA, 0, 12, 3, 1, 0, 2, 0x11, 3, 0x11, 0, 63, 0])
    return b"\xff\xd8" + sof + sos + b"\xff\xd9"


# --- header parsing and the JPEGD verdict ------------------------------------

INFO_CASES = [
    # name, width, height, subsampling, accepted, reject
    ("baseline_1024x1536", 1024, 1536, "420", True, "accepted"),
    ("hd_1920x1080", 1920, 1080, "420", True, "accepted"),
    ("odd_333x211", 333, 211, "420", True, "accepted"),
    ("gray_300x200", 300, 200, "400", True, "accepted"),
    ("s444_320x240", 320, 240, "444", True, "accepted"),
    ("s422_320x240", 320, 240, "422", True, "accepted"),
    ("optimized_320x240", 320, 240, "420", True, "accepted"),
    ("progressive_320x240", 320, 240, "420", False, "progressive JPEG"),
    ("arithmetic_sof9", 320, 240, "420", False, "arithmetic-coded JPEG"),
    ("tiny_16x16", 16, 16, "420", False, "resolution below the JPEGD minimum"),
    ("wide_8193x32", 8193, 32, "400", False, "resolution above the JPEGD maximum"),
    ("wide_8192x32", 8192, 32, "400", True, "accepted"),
    ("header_8193x8193", 8193, 8193, "420", False, "resolution above the JPEGD maximum"),
    ("header_8192x8192", 8192, 8192, "420", True, "accepted"),
]


@pytest.mark.parametrize(("name", "w", "h", "sub", "accepted", "reject"), INFO_CASES)
def test_info(
    tool: Tool,
    jpegs: dict[str, Path],
    name: str,
    w: int,
    h: int,
    sub: str,
    accepted: bool,
    reject: str,
) -> None:
    info = tool("info", jpegs[name])
    assert info["valid"], info
    assert (info["width"], info["height"], info["subsampling"]) == (w, h, sub)
    assert info["components"] == (1 if sub == "400" else 3)
    assert (info["jpegd_accepted"], info["jpegd_reject"]) == (accepted, reject)
    if name.startswith("progressive"):
        assert info["coding"] == "progressive" and info["num_scans"] > 1


@pytest.mark.parametrize(
    ("name", "out", "strides"),
    [
        ("baseline_1024x1536", (1024, 1536), (1024, 1536)),
        ("hd_1920x1080", (1920, 1080), (1920, 1088)),
        ("odd_333x211", (332, 210), (384, 224)),
    ],
)
def test_predicted_size_on_310_alignment(
    tool: Tool, jpegs: dict[str, Path], name: str, out: tuple[int, int], strides: tuple[int, int]
) -> None:
    info = tool("info", jpegs[name])
    assert (info["out_width"], info["out_height"]) == out
    assert (info["width_stride"], info["height_stride"]) == strides
    assert info["dec_size"] == strides[0] * strides[1] * 3 // 2
    p = tool("info", jpegs[name], "--align", "64x16")  # 310P alignment
    assert p["width_stride"] % 64 == 0 and p["width_stride"] - out[0] < 64


def test_not_a_jpeg(tool: Tool, tmp_path: Path) -> None:
    f = tmp_path / "x.jpg"
    f.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    info = tool("info", f)
    assert not info["valid"] and info["jpegd_reject"] == "not a valid JPEG stream"
    assert tool("decode", f, tmp_path / "o", ok=False)["status"] == "invalid or corrupt JPEG stream"


# --- decoding against libjpeg (Pillow) ---------------------------------------


def decode(tool: Tool, jpeg: Path, out: Path, *extra: object) -> tuple[dict[str, Any], bytes]:
    meta = tool("decode", jpeg, out, *extra)
    data = out.read_bytes()
    assert len(data) == meta["bytes"] == meta["width_stride"] * meta["height_stride"] * 3 // 2
    return meta, data


def box420(c: np.ndarray, h: int, w: int) -> np.ndarray:
    """Rounded 2x2 mean of a full-resolution chroma plane: the rule for 4:4:4."""
    c = c[:h, :w].astype(np.int32)
    return (c[0::2, 0::2] + c[0::2, 1::2] + c[1::2, 0::2] + c[1::2, 1::2] + 2) // 4


@pytest.mark.parametrize(
    ("name", "chroma_max"),
    [
        ("baseline_1024x1536", 3),
        ("hd_1920x1080", 3),
        ("odd_333x211", 3),
        ("s444_320x240", 0),  # libjpeg's chroma is not upsampled: the box mean is exact
        ("s422_320x240", 3),
        ("gray_300x200", 0),
    ],
)
def test_decode_matches_libjpeg(tool: Tool, jpegs: dict[str, Path], tmp_path: Path, name: str, chroma_max: int) -> None:
    meta, data = decode(tool, jpegs[name], tmp_path / "o.nv12")
    w, h = meta["width"], meta["height"]
    assert w % 2 == 0 and h % 2 == 0
    y, u, v = nv12_planes(data, w, h, meta["width_stride"], meta["height_stride"])
    with Image.open(jpegs[name]) as im:
        assert (im.size[0] & ~1, im.size[1] & ~1) == (w, h)
        if im.mode == "L":
            ref = np.asarray(im)
            assert np.array_equal(y, ref[:h, :w])
            assert (u == 128).all() and (v == 128).all()
            return
        im.draft("YCbCr", im.size)  # libjpeg output without colour conversion
        ycc = np.asarray(im)
    assert np.array_equal(y, ycc[:h, :w, 0]), "luma must be libjpeg's, bit for bit"
    # libjpeg upsamples 4:2:0/4:2:2 chroma with a triangle filter, so its box
    # mean differs slightly from the native samples we keep.
    for plane, k in ((u, 1), (v, 2)):
        diff = np.abs(plane.astype(np.int32) - box420(ycc[..., k], h, w))
        assert diff.max() <= chroma_max and diff.mean() < 0.5, (k, diff.max(), diff.mean())


def test_decode_rgb_close_to_pillow(tool: Tool, jpegs: dict[str, Path], tmp_path: Path) -> None:
    meta, data = decode(tool, jpegs["odd_333x211"], tmp_path / "o.nv12")
    w, h = meta["width"], meta["height"]
    y, u, v = (p.astype(np.float64) for p in nv12_planes(data, w, h, *strides(meta)))
    u = np.repeat(np.repeat(u, 2, 0), 2, 1) - 128
    v = np.repeat(np.repeat(v, 2, 0), 2, 1) - 128
    rgb = np.stack([y + 1.402 * v, y - 0.344136 * u - 0.714136 * v, y + 1.772 * u], -1)
    with Image.open(jpegs["odd_333x211"]) as im:
        ref = np.asarray(im.convert("RGB"))[:h, :w].astype(np.float64)
    assert np.abs(np.clip(rgb, 0, 255) - ref).mean() < 3.0


def strides(meta: dict[str, Any]) -> tuple[int, int]:
    return meta["width_stride"], meta["height_stride"]


def test_decode_padding_replicates_edges(tool: Tool, jpegs: dict[str, Path], tmp_path: Path) -> None:
    meta, data = decode(tool, jpegs["odd_333x211"], tmp_path / "o.nv12")
    w, h = meta["width"], meta["height"]
    ws, hs = strides(meta)
    assert (w, h, ws, hs) == (332, 210, 384, 224)
    a = np.frombuffer(data, np.uint8)
    yp = a[: ws * hs].reshape(hs, ws)
    uv = a[ws * hs :].reshape(hs // 2, ws)
    assert (yp[:h, w:] == yp[:h, w - 1 : w]).all()
    assert (yp[h:] == yp[h - 1]).all()
    assert (uv[: h // 2, w::2] == uv[: h // 2, w - 2 : w - 1]).all()
    assert (uv[: h // 2, w + 1 :: 2] == uv[: h // 2, w - 1 : w]).all()
    assert (uv[h // 2 :] == uv[h // 2 - 1]).all()
    # Byte-reproducible, and the same picture on other strides.
    _, again = decode(tool, jpegs["odd_333x211"], tmp_path / "p.nv12")
    assert again == data
    _, tight = decode(tool, jpegs["odd_333x211"], tmp_path / "t.nv12", "--stride", "332x210")
    for a_plane, b_plane in zip(nv12_planes(data, w, h, ws, hs), nv12_planes(tight, w, h, 332, 210), strict=True):
        assert np.array_equal(a_plane, b_plane)


def test_progressive_decodes_but_is_refused(tool: Tool, jpegs: dict[str, Path], tmp_path: Path) -> None:
    # The kernel decodes it (for tools); the JPEGD verdict is what refuses it.
    meta, _ = decode(tool, jpegs["progressive_320x240"], tmp_path / "o.nv12")
    assert (meta["width"], meta["height"]) == (320, 240)
    assert not tool("info", jpegs["progressive_320x240"])["jpegd_accepted"]


def test_truncated_jpeg_fails(tool: Tool, jpegs: dict[str, Path], tmp_path: Path) -> None:
    data = jpegs["odd_333x211"].read_bytes()
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(data[: len(data) // 2])
    assert not tool("info", cut)["has_eoi"]
    assert not tool("decode", cut, tmp_path / "o.nv12", ok=False)["ok"]


# --- resampling against numpy -------------------------------------------------


@pytest.fixture(scope="session")
def decoded_1024(tool: Tool, jpegs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory):
    out = tmp_path_factory.mktemp("nv12") / "big.nv12"
    meta = tool("decode", jpegs["baseline_1024x1536"], out)
    return meta, out


def run_resize(tool: Tool, src: Path, out: Path, smeta: dict[str, Any], *extra: object) -> bytes:
    tool(
        "resize",
        src,
        out,
        "--src",
        f"{smeta['width']}x{smeta['height']}",
        "--src-stride",
        f"{smeta['width_stride']}x{smeta['height_stride']}",
        *extra,
    )
    return out.read_bytes()


@pytest.mark.parametrize("interp", [0, 1, 2, 3, 4])
def test_resize_1024x1536_to_224(tool: Tool, decoded_1024: Any, tmp_path: Path, interp: int) -> None:
    smeta, src = decoded_1024
    out = run_resize(tool, src, tmp_path / "r.nv12", smeta, "--dst", "224x224", "--interp", interp)
    sy, su, sv = nv12_planes(src.read_bytes(), 1024, 1536, *strides(smeta))
    dy, du, dv = nv12_planes(out, 224, 224, 224, 224)
    for s, d, n in ((sy, dy, 224), (su, du, 112), (sv, dv, 112)):
        if interp in (2, 4):
            assert np.array_equal(d, nearest(s, n, n))
        else:
            assert np.abs(d - bilinear(s, n, n)).max() <= 1.0


def test_crop_resize_paste_keeps_the_canvas(tool: Tool, decoded_1024: Any, tmp_path: Path) -> None:
    smeta, src = decoded_1024
    rng = np.random.default_rng(5)
    dw, dh, dws, dhs = 300, 200, 320, 208
    canvas = rng.integers(0, 256, dws * dhs * 3 // 2, dtype=np.uint8).tobytes()
    (tmp_path / "canvas.nv12").write_bytes(canvas)
    crop, paste = (100, 300, 611, 683), (36, 40, 235, 161)  # 512x384 -> 200x122
    out = run_resize(
        tool,
        src,
        tmp_path / "r.nv12",
        smeta,
        "--dst",
        f"{dw}x{dh}",
        "--dst-stride",
        f"{dws}x{dhs}",
        "--src-roi",
        ",".join(map(str, crop)),
        "--dst-roi",
        ",".join(map(str, paste)),
        "--canvas",
        tmp_path / "canvas.nv12",
    )
    before = np.frombuffer(canvas, np.uint8)
    after = np.frombuffer(out, np.uint8)
    inside = np.zeros(after.size, bool)
    ymask = inside[: dws * dhs].reshape(dhs, dws)
    ymask[paste[1] : paste[3] + 1, paste[0] : paste[2] + 1] = True
    cmask = inside[dws * dhs :].reshape(dhs // 2, dws)
    cmask[paste[1] // 2 : paste[3] // 2 + 1, paste[0] : paste[2] + 1] = True
    assert np.array_equal(after[~inside], before[~inside]), "CropAndPaste must not clear the canvas"
    sy, su, _ = nv12_planes(src.read_bytes(), 1024, 1536, *strides(smeta))
    left, t, r, b = crop
    pw, ph = paste[2] - paste[0] + 1, paste[3] - paste[1] + 1
    ay = after[: dws * dhs].reshape(dhs, dws)[paste[1] : paste[3] + 1, paste[0] : paste[2] + 1]
    assert np.abs(ay - bilinear(sy[t : b + 1, left : r + 1], ph, pw)).max() <= 1.0
    auv = after[dws * dhs :].reshape(dhs // 2, dws)[paste[1] // 2 : paste[3] // 2 + 1, paste[0] : paste[2] + 1]
    ref_u = bilinear(su[t // 2 : (b + 1) // 2, left // 2 : (r + 1) // 2], ph // 2, pw // 2)
    assert np.abs(auv[:, 0::2] - ref_u).max() <= 1.0


def test_upscale_odd_source(tool: Tool, jpegs: dict[str, Path], tmp_path: Path) -> None:
    smeta, _ = decode(tool, jpegs["odd_333x211"], tmp_path / "s.nv12")
    out = run_resize(
        tool, tmp_path / "s.nv12", tmp_path / "r.nv12", smeta, "--dst", "500x300", "--dst-stride", "512x300"
    )
    sy, su, _ = nv12_planes((tmp_path / "s.nv12").read_bytes(), 332, 210, *strides(smeta))
    dy, du, _ = nv12_planes(out, 500, 300, 512, 300)
    assert np.abs(dy - bilinear(sy, 300, 500)).max() <= 1.0
    assert np.abs(du - bilinear(su, 150, 250)).max() <= 1.0


def test_resize_rejects_bad_rois(tool: Tool, tmp_path: Path) -> None:
    plane = np.zeros((64, 64), np.uint8)
    half = np.zeros((32, 32), np.uint8)
    (tmp_path / "s.nv12").write_bytes(make_nv12(plane, half, half, 64, 64, 0))
    base = ["resize", tmp_path / "s.nv12", tmp_path / "o.nv12", "--src", "64x64", "--dst", "32x32"]
    assert tool(*base)["ok"]
    assert tool(*base, "--src-roi", "1,0,31,31", ok=False)["status"] == "invalid source ROI"
    assert tool(*base, "--dst-roi", "0,0,31,30", ok=False)["status"] == "invalid destination ROI"
    assert not tool(*base, "--interp", "5", ok=False)["ok"]


# --- the content hash and the costs -------------------------------------------


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 100, 1000, 75825])
def test_hash_matches_the_python_definition(tool: Tool, tmp_path: Path, n: int) -> None:
    data = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8).tobytes()
    f = tmp_path / "blob"
    f.write_bytes(data)
    assert int(tool("hash", f)["hash"], 16) == ash64(data)
    assert int(tool("hash", f, "--seed", 12345)["hash"], 16) == ash64(data, 12345)


def test_costs(tool: Tool, jpegs: dict[str, Path], record_property: Any) -> None:
    r = tool("bench", jpegs["baseline_1024x1536"], "--iters", 3)
    for k, v in r.items():
        record_property(k, v)
    print("imaging costs:", json.dumps(r))
    assert r["decode_ms"] < 200
    assert r["resize_224_ms"] < 50
    # A cache hit must be far cheaper than the pixel work it replaces.
    assert r["decode_cache_lookup_us"] < 50
    assert r["decode_cache_hit_us"] < r["decode_ms"] * 1000 / 10
