"""Requests of their own width (a raw request source, a model with ``hw_gears``) as the planner's
prediction (serving_predict.py) sees them: which request each client sends, the padding rule the
batcher merges them under, and the gear a batch runs at. Each mirrors the server's code, named
beside it, so the prediction serves the requests the program serves.

- The requests: the program's inputs, every ``*.u8`` file in the source's ``inputs`` folder sorted
  by name (ascgen_inputs.h, load_inputs), each a tensor of the gears' height and its own width
  (ascgen_padding.h, inspect_raw_request). Read from the spec's data, relative to the spec.
- The order: closed-loop client ``c`` sends input ``(c + k) % inputs`` as its k-th request
  (ascgen_serving.h, run_load); without --priority-mix every request is at the default level.
- The padding rule: Paddle Serving's, as ascgen_batcher.h's padding_acceptable and PaddedShape.
- The gear: the smallest that holds the batch's widest request (ascgen_padding.h,
  smallest_hw_gear); the upload copies the batch's requests at that gear (pack_padded).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ascgen.checks.serving import PADDING_ABSOLUTE_ELEMENTS  # ascgen_batcher.h, kPaddingAbsoluteElements
from ascgen.plan.model import Plan

SUFFIX = ".u8"  # ascgen_driver.h, prepare_inputs: a raw source's files


def padding_acceptable(padded_elements: int, smallest_elements: int) -> bool:
    """Whether requests padded to ``padded_elements`` each may be merged when the smallest holds
    ``smallest_elements``: at most 1,024 elements of padding, or the smallest keeps half."""
    return padded_elements - smallest_elements <= PADDING_ABSOLUTE_ELEMENTS or 2 * smallest_elements >= padded_elements


@dataclass
class PaddedShape:
    """The batch being formed: its widest request and its smallest (all are one height)."""

    height: int
    widest: int = 0
    narrowest: int = 0

    def accepts(self, width: int) -> bool:
        if self.widest == 0:
            return True
        padded = self.height * max(self.widest, width)
        return padding_acceptable(padded, self.height * min(self.narrowest, width))

    def add(self, width: int) -> None:
        self.narrowest = width if self.widest == 0 else min(self.narrowest, width)
        self.widest = max(self.widest, width)


@dataclass(frozen=True)
class Requests:
    """The requests the clients send, in the program's input order, and where they were read."""

    height: int
    widths: tuple[int, ...]
    folder: Path

    def of_client(self, client: int, k: int) -> int:
        """The width of client ``client``'s k-th request."""
        return self.widths[(client + k) % len(self.widths)]

    def describe(self) -> str:
        ws = sorted(self.widths)
        return f"{len(ws)} requests {self.height} high, {ws[0]} to {ws[-1]} wide (mean {sum(ws) / len(ws):.0f})"


def hw_gear_index(gears: list[tuple[int, int]], height: int, widest: int) -> int:
    """The smallest gear holding a batch ``height`` x ``widest`` (the gears ascend in both)."""
    return next((k for k, (h, w) in enumerate(gears) if h >= height and w >= widest), len(gears) - 1)


def read_requests(plan: Plan) -> Requests | str:
    """The requests of a service whose model has height/width gears, or why they cannot be read
    (the prediction then assumes every batch runs at the largest gear)."""
    s = plan.serving
    if s is None or not s.hw_gears:
        return "the model has no height/width gears"
    folder = Path(os.path.normpath(Path(plan.spec_path).parent / plan.source.path))
    height, widest = s.hw_gears[-1]
    try:
        files = sorted(
            (p for p in folder.iterdir() if p.name.lower().endswith(SUFFIX) and p.is_file()), key=lambda p: p.name
        )
        sizes = [p.stat().st_size for p in files]
    except OSError as e:
        return f"cannot read the requests in {folder}: {e.strerror or e}"
    if not files:
        return f"no {SUFFIX} requests in {folder}"
    for p, n in zip(files, sizes, strict=True):
        if n == 0 or n % height or n // height > widest or n > plan.source.max_bytes:
            return f"{p.name} is not a request the program accepts ({n} bytes)"
    return Requests(height=height, widths=tuple(n // height for n in sizes), folder=folder)
