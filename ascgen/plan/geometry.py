"""Buffer geometry: alignment, NV12 strides and sizes, allocator padding."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


def align_up(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def align_down(value: int, alignment: int) -> int:
    return value // alignment * alignment


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


class Geometry(BaseModel):
    """One picture or tensor as it lies in memory."""

    model_config = ConfigDict(frozen=True)

    kind: str  # "jpeg" | "nv12" | "nv21" | "tensor"
    width: int = 0
    height: int = 0
    width_stride: int = 0
    height_stride: int = 0
    bytes: int

    @property
    def is_picture(self) -> bool:
        return self.kind in ("nv12", "nv21")


def yuv420sp(kind: str, width: int, height: int, align_w: int, align_h: int) -> Geometry:
    """A YUV420SP picture on aligned strides: Y plane ws*hs, then interleaved chroma ws*hs/2."""
    ws, hs = align_up(width, align_w), align_up(height, align_h)
    return Geometry(kind=kind, width=width, height=height, width_stride=ws, height_stride=hs, bytes=ws * hs * 3 // 2)


def tensor(nbytes: int, kind: str = "tensor") -> Geometry:
    return Geometry(kind=kind, bytes=nbytes)


def allocation_bytes(nbytes: int, granule: int, padding: int) -> int:
    """What the device allocator reserves for a request: ALIGN_UP(size, granule) + padding."""
    return align_up(nbytes, granule) + padding


def output_offsets(sizes: list[int]) -> list[int]:
    """Where each of a model's outputs starts in one buffer that holds them all, in the model's
    order: each piece reserves ALIGN_UP(size, 32) + 32 and the next starts 128-byte aligned
    (ACL_FACTS 4: model I/O blocks carved out of a larger one)."""
    out, end = [], 0
    for size in sizes:
        out.append(end)
        end = align_up(allocation_bytes(size, 32, 32), 128) + end
    return out


def outputs_bytes(sizes: list[int]) -> int:
    """The bytes of one buffer holding all of a model's outputs (output_offsets), the last one unpadded."""
    return output_offsets(sizes)[-1] + sizes[-1] if sizes else 0


def nice_multiples(value: int, alignment: int) -> tuple[int, int]:
    """The aligned values just below and just above ``value`` (for hints)."""
    low = max(alignment, align_down(value, alignment))
    return low, align_up(value + 1, alignment) if value % alignment == 0 else align_up(value, alignment)
