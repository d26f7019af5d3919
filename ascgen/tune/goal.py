"""What a tune looks for: the objective (most QPS, or least p99 latency), the SLO every
answer must meet (``--slo p99_ms=50,min_qps=600``, else the spec's ``slo``), how two
measurements compare, and the Pareto front of QPS against p99."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ascgen.common.errors import UserError, shown
from ascgen.dsl.spec import Slo

Objective = Literal["max_qps", "min_p99"]
OBJECTIVES: tuple[Objective, ...] = ("max_qps", "min_p99")
SLO_KEYS = ("p99_ms", "min_qps")
TIE = 0.001  # objectives within 0.1 % are equal


@dataclass(frozen=True)
class Measurement:
    qps: float  # median over the point's runs, frames/s
    p99_ms: float  # per frame, submit to completion
    host: str | None = None  # where it was measured, when not here (--ray)


@dataclass(frozen=True)
class Goal:
    objective: Objective = "max_qps"
    max_p99_ms: float | None = None
    min_qps: float | None = None
    min_gain: float = 0.02  # a neighbour must be this much better (relative) to move the search

    def meets(self, m: Measurement) -> bool:
        return self.shortfall(m) == 0.0

    def shortfall(self, m: Measurement) -> float:
        """How far ``m`` misses the SLO, relative (0: it meets it)."""
        miss = 0.0
        if self.max_p99_ms is not None:
            miss += max(0.0, m.p99_ms / self.max_p99_ms - 1.0)
        if self.min_qps is not None:
            miss += max(0.0, 1.0 - m.qps / self.min_qps)
        return miss

    def value(self, m: Measurement) -> float:
        """The objective, larger is better."""
        return m.qps if self.objective == "max_qps" else -m.p99_ms

    def better(self, a: Measurement, b: Measurement, gain: float = 0.0) -> bool:
        """Whether ``a`` beats ``b`` by more than ``gain`` (relative): meeting the SLO first,
        then the objective (or, both missing it, missing it by less); with no gain, a tie on
        the objective goes to the better other measure (lower p99, or higher QPS)."""
        if self.meets(a) != self.meets(b):
            return self.meets(a)
        if not self.meets(a):
            return self.shortfall(a) < self.shortfall(b) * (1.0 - gain)
        va, vb = self.value(a), self.value(b)
        if gain == 0.0 and abs(va - vb) <= TIE * abs(vb):  # a tie: the other measure decides
            return a.p99_ms < b.p99_ms if self.objective == "max_qps" else a.qps > b.qps
        return va > vb + gain * abs(vb)

    def slo_text(self) -> str:
        parts = [f"p99 <= {self.max_p99_ms:g} ms" if self.max_p99_ms is not None else ""]
        parts.append(f"QPS >= {self.min_qps:g}" if self.min_qps is not None else "")
        return ", ".join(p for p in parts if p) or "none"


def parse_slo(text: str | None, spec_slo: Slo | None) -> tuple[float | None, float | None]:
    """(max p99 ms, min QPS) from ``--slo p99_ms=50,min_qps=600``; a key not given keeps the spec's."""
    p99 = spec_slo.max_p99_ms if spec_slo else None
    qps = spec_slo.min_qps if spec_slo else None
    for item in (text or "").split(","):
        if not item.strip():
            continue
        key, sep, raw = (part.strip() for part in item.partition("="))
        if key not in SLO_KEYS or not sep:
            raise UserError(f"--slo '{shown(item.strip())}': expected p99_ms=MS or min_qps=QPS")
        try:
            number = float(raw)
        except ValueError:
            raise UserError(f"--slo {shown(key)}={shown(raw)}: not a number") from None
        if not math.isfinite(number) or number <= 0:
            raise UserError(f"--slo {shown(key)}={shown(raw)}: must be a positive number")
        if key == "p99_ms":
            p99 = number
        else:
            qps = number
    return p99, qps


def pareto_front(points: Sequence[Measurement]) -> list[int]:
    """Indices of the points no other point beats on both QPS (higher) and p99 (lower)."""
    front = []
    for i, a in enumerate(points):
        dominated = any(
            b.qps >= a.qps and b.p99_ms <= a.p99_ms and (b.qps > a.qps or b.p99_ms < a.p99_ms) for b in points
        )
        if not dominated:
            front.append(i)
    return front
