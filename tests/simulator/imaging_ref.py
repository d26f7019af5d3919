"""Independent Python references for the simulator's imaging kernels.

Used by test_imaging.py: the ash64 content hash (the frozen definition in
simulator/imaging/include/acl_sim/imaging/content_hash.h), NV12 plane helpers,
and floating-point cv::resize-style bilinear and nearest resamplers.
"""

from __future__ import annotations

import numpy as np

_M = (1 << 64) - 1
P1 = 0x9E3779B185EBCA87
P2 = 0xC2B2AE3D27D4EB4F
P3 = 0x165667B19E3779F9
P4 = 0x85EBCA77C2B2AE63


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M


def _mix(acc: int, w: int) -> int:
    return (_rotl((acc + w * P2) & _M, 31) * P1) & _M


def ash64(data: bytes, seed: int = 0) -> int:
    """The simulator's 64-bit content hash, written from its specification."""
    n = len(data)
    v = [seed ^ ((P1 * (i + 1)) & _M) for i in range(4)]
    stripes = n // 32
    for s in range(stripes):
        for i in range(4):
            off = 32 * s + 8 * i
            v[i] = _mix(v[i], int.from_bytes(data[off : off + 8], "little"))
    h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _M
    h ^= (n * P3) & _M
    rest = data[32 * stripes :]
    for off in range(0, len(rest), 8):
        w = int.from_bytes(rest[off : off + 8], "little")  # a short tail is zero-extended
        h = (_rotl(h ^ _mix(0, w), 27) * P1 + P4) & _M
    h ^= h >> 33
    h = (h * P2) & _M
    h ^= h >> 29
    h = (h * P3) & _M
    h ^= h >> 32
    return h


def nv12_planes(buf: bytes, width: int, height: int, ws: int, hs: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Y, U, V) picture planes of an NV12 buffer laid out on (ws, hs)."""
    a = np.frombuffer(buf, dtype=np.uint8)
    assert a.size == ws * hs * 3 // 2, (a.size, ws, hs)
    y = a[: ws * hs].reshape(hs, ws)[:height, :width]
    uv = a[ws * hs :].reshape(hs // 2, ws)[: height // 2, :width]
    return y, uv[:, 0::2], uv[:, 1::2]


def make_nv12(y: np.ndarray, u: np.ndarray, v: np.ndarray, ws: int, hs: int, pad: int) -> bytes:
    """An NV12 buffer on (ws, hs) holding the planes, `pad` elsewhere."""
    h, w = y.shape
    out = np.full(ws * hs * 3 // 2, pad, dtype=np.uint8)
    out[: ws * hs].reshape(hs, ws)[:h, :w] = y
    uv = out[ws * hs :].reshape(hs // 2, ws)
    uv[: h // 2, 0:w:2] = u
    uv[: h // 2, 1:w:2] = v
    return out.tobytes()


def _linear_coords(src_n: int, dst_n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s = (np.arange(dst_n) + 0.5) * (src_n / dst_n) - 0.5
    s = np.clip(s, 0, src_n - 1)
    i0 = np.floor(s).astype(np.int64)
    i1 = np.minimum(i0 + 1, src_n - 1)
    return i0, i1, s - i0


def bilinear(plane: np.ndarray, dst_h: int, dst_w: int) -> np.ndarray:
    """cv::resize INTER_LINEAR (half-pixel centres, clamped) in float64."""
    p = plane.astype(np.float64)
    y0, y1, fy = _linear_coords(p.shape[0], dst_h)
    x0, x1, fx = _linear_coords(p.shape[1], dst_w)
    top = p[y0][:, x0] * (1 - fx) + p[y0][:, x1] * fx
    bot = p[y1][:, x0] * (1 - fx) + p[y1][:, x1] * fx
    return top * (1 - fy)[:, None] + bot * fy[:, None]


def nearest(plane: np.ndarray, dst_h: int, dst_w: int) -> np.ndarray:
    """cv::resize INTER_NEAREST, src = min(floor(dst * src_n / dst_n), n - 1), in integers."""
    ys = np.minimum(np.arange(dst_h) * plane.shape[0] // dst_h, plane.shape[0] - 1)
    xs = np.minimum(np.arange(dst_w) * plane.shape[1] // dst_w, plane.shape[1] - 1)
    return plane[ys][:, xs]
