"""Fits the link model's parameters (model.py) to published throughput figures.

Least squares on the log of simulated / published throughput (relative errors, so 20 GB/s
and 140 GB/s columns weigh alike), Levenberg-Marquardt with a numerical Jacobian; bandwidths
and latencies are fitted as logarithms (positive), overlaps through a logistic (0..1).
Plain Python: the problem has ~16 parameters and ~100 figures."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ascgen.dsl.links import HostLink, Link, Links
from ascgen.transfers.model import throughput_GBps
from ascgen.transfers.published import Figure

# The parameters fitted, as "<link>.<field>"; a starting point that is physically plausible
# (HCCS ~100+ GB/s, RoCE 200 Gb/s ~ 25 GB/s, PCIe 5.0 x16 ~ 50 GB/s, latencies of microseconds).
START: dict[str, float] = {
    "host.h2d_write_GBps": 40.0,
    "host.h2d_read_GBps": 40.0,
    "host.d2h_GBps": 35.0,
    "hccs.latency_us": 1.0,
    "hccs.cross_host_latency_us": 1.0,
    "hccs.write_GBps": 120.0,
    "hccs.read_GBps": 120.0,
    "hccs.pool_overlap": 0.5,
    "hccs.direct_host_GBps": 30.0,
    "hccs.direct_host_cross_host_GBps": 30.0,
    "rdma.latency_us": 1.0,
    "rdma.cross_host_latency_us": 1.0,
    "rdma.write_GBps": 22.0,
    "rdma.read_GBps": 22.0,
    "rdma.pool_overlap": 0.5,
    "rdma.pool_GBps": 100.0,
}


def links_of(values: dict[str, float]) -> Links:
    """A Links from "<link>.<field>" values (missing links stay None)."""
    groups: dict[str, dict[str, float]] = {}
    for key, v in values.items():
        link, field = key.split(".", 1)
        groups.setdefault(link, {})[field] = v
    return Links(
        host=HostLink(**groups["host"]) if "host" in groups else None,
        hccs=Link(**groups["hccs"]) if "hccs" in groups else None,
        rdma=Link(**groups["rdma"]) if "rdma" in groups else None,
    )


def _to_free(name: str, v: float) -> float:
    if name.endswith("overlap"):
        v = min(max(v, 1e-6), 1 - 1e-6)
        return math.log(v / (1 - v))
    return math.log(max(v, 1e-9))


def _from_free(name: str, x: float) -> float:
    if name.endswith("overlap"):
        return 1.0 / (1.0 + math.exp(-x))
    return math.exp(x)


def residuals(links: Links, figures: Sequence[Figure]) -> list[float]:
    """log(simulated / published) for each figure."""
    return [math.log(throughput_GBps(links, f.transfer, f.block_bytes) / f.GBps) for f in figures]


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a small dense system)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-300:
            raise ArithmeticError("singular normal equations")
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for k in range(c, n + 1):
                m[r][k] -= f * m[c][k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


@dataclass(frozen=True)
class FitResult:
    values: dict[str, float]
    links: Links
    residuals: list[float]  # log ratios, in the figures' order
    iterations: int


def fit(
    figures: Sequence[Figure],
    start: dict[str, float] = START,
    iterations: int = 200,
    progress: Callable[[int, int], None] | None = None,
) -> FitResult:
    names = list(start)
    x = [_to_free(n, start[n]) for n in names]

    def res(xv: list[float]) -> list[float]:
        return residuals(links_of({n: _from_free(n, v) for n, v in zip(names, xv, strict=True)}), figures)

    def cost(r: list[float]) -> float:
        return sum(v * v for v in r)

    lam, r, done = 1e-2, res(x), 0
    for done in range(1, iterations + 1):
        if progress:
            progress(done, iterations)
        jac = []
        for j in range(len(x)):
            xj = x[:]
            xj[j] += 1e-6
            rj = res(xj)
            jac.append([(a - b) / 1e-6 for a, b in zip(rj, r, strict=True)])
        jtj = [[sum(a * b for a, b in zip(jac[i], jac[k], strict=True)) for k in range(len(x))] for i in range(len(x))]
        jtr = [sum(a * b for a, b in zip(jac[i], r, strict=True)) for i in range(len(x))]
        improved = False
        while lam < 1e12:
            a = [
                [jtj[i][k] + (lam * (jtj[i][i] + 1e-9) if i == k else 0.0) for k in range(len(x))]
                for i in range(len(x))
            ]
            step = _solve(a, [-v for v in jtr])
            trial = [xi + si for xi, si in zip(x, step, strict=True)]
            rt = res(trial)
            if cost(rt) < cost(r):
                gain = cost(r) - cost(rt)
                x, r, lam, improved = trial, rt, max(lam / 3, 1e-12), True
                break
            lam *= 4
        if not improved or gain < 1e-12:
            break
    values = {n: _from_free(n, v) for n, v in zip(names, x, strict=True)}
    return FitResult(values, links_of(values), r, done)


def rounded(values: dict[str, float], digits: int = 3) -> dict[str, float]:
    """Values to ``digits`` significant digits (what a profile carries); latencies under 0.01 us
    and overlaps under 0.005 become 0."""
    out = {}
    for k, v in values.items():
        if (k.endswith("latency_us") and v < 0.01) or (k.endswith("overlap") and v < 0.005):
            out[k] = 0.0
        else:
            out[k] = float(f"{v:.{digits}g}")
    return out
