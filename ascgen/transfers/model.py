"""The link model (Python twin of simulator/src/links/link.h; docs/transfers.md).

A transfer over HCCS or RDMA is a route of hops, each a latency and a bandwidth; the transit
buffer pool pipelines its blocks, hiding a fraction ``pool_overlap`` of every hop but the
slowest behind the slowest one, so one block of ``s`` bytes takes

    sum(latencies) + s * (1/B_slowest + (1 - overlap) * sum(1/B_others))

HIXL uses its pool only where the pool is faster (it documents this for device-to-device blocks
under 256 KiB): so HCCS between this side's host memory and a peer *device*, which can also go
without the pool (the peer NPU reaching host memory itself), takes the faster of the two routes
(fewer seconds per byte; their latencies are the same). A run moves its bytes in blocks one after
the other (HIXL's benchmark: 128 MiB per run), so its throughput is ``s / block_us(s)``. The
simulator computes the same (tests compare the two).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ascgen.dsl.links import Links
from ascgen.transfers.direction import Direction

Op = Literal["write", "read"]
Place = Literal["h", "d"]


@dataclass(frozen=True)
class Transfer:
    """One column of HIXL's table: ``hccs_h2d_pool`` written from one host, say."""

    link: Literal["hccs", "rdma"]
    direction: Direction  # the local side's memory, then the remote side's
    op: Op
    pool: bool
    cross_host: bool

    def __post_init__(self) -> None:
        object.__setattr__(self, "direction", Direction(self.direction))  # "d2d" works too

    @property
    def column(self) -> str:
        return f"{self.link}_{self.direction}{'_pool' if self.pool else ''}"


@dataclass(frozen=True)
class Hop:
    what: str
    latency_us: float
    bandwidth_GBps: float


class Unsupported(ValueError):
    """The profile has no such link, or the link cannot make that transfer."""


def route(links: Links, t: Transfer) -> tuple[list[Hop], float]:
    """The hops of ``t`` and the pool's overlap (as simulator/src/links/link.cpp builds them)."""
    hops, overlap = _route(links, t)
    if t.link == "hccs" and t.pool and t.direction == Direction.H2D:
        # The peer is a device: the route without the pool exists too (when the profile has its
        # figures); the faster one is taken.
        try:
            direct = _route(links, Transfer(t.link, t.direction, t.op, False, t.cross_host))
        except Unsupported:
            return hops, overlap
        if _s_per_byte(*direct) < _s_per_byte(hops, overlap):
            return direct
    return hops, overlap


def _s_per_byte(hops: list[Hop], overlap: float) -> float:
    per_byte = [1.0 / (h.bandwidth_GBps * 1e3) for h in hops]
    slowest = max(per_byte)
    return slowest + (1.0 - overlap) * (sum(per_byte) - slowest)


def _route(links: Links, t: Transfer) -> tuple[list[Hop], float]:
    link = getattr(links, t.link)
    if link is None:
        raise Unsupported(f"the profile has no links.{t.link}")
    local = "h" if t.direction.first_on_host else "d"
    remote = "h" if t.direction.second_on_host else "d"
    src, dst = (local, remote) if t.op == "write" else (remote, local)
    wire = link.write_GBps if t.op == "write" else link.read_GBps
    hops = [Hop(t.link, link.latency_us + (link.cross_host_latency_us if t.cross_host else 0.0), wire)]
    overlap = link.pool_overlap if t.pool else 0.0
    if t.pool and "h" not in (src, dst):
        raise Unsupported("the transit buffer pool serves host memory: a device-to-device transfer has no pool")
    if t.link == "hccs" and "h" in (src, dst):
        if t.pool:
            if links.host is None:
                raise Unsupported("the profile has no links.host")
            if src == "h":
                h2d = links.host.h2d_write_GBps if t.op == "write" else links.host.h2d_read_GBps
                hops.append(Hop("host.h2d", 0.0, h2d))
            if dst == "h":
                hops.append(Hop("host.d2h", 0.0, links.host.d2h_GBps))
        elif remote == "h":
            raise Unsupported("HCCS cannot reach the remote side's host memory without the transit buffer pool")
        else:
            direct = link.direct_host_cross_host_GBps if t.cross_host else link.direct_host_GBps
            if direct is None:
                raise Unsupported("the profile has no links.hccs.direct_host figures")
            hops.append(Hop("hccs.direct_host", 0.0, direct))
    if t.link == "rdma" and t.pool:
        if link.pool_GBps is None:
            raise Unsupported("the profile has no links.rdma.pool_GBps")
        hops.append(Hop("rdma.pool", 0.0, link.pool_GBps))
    return hops, overlap


def block_us(links: Links, t: Transfer, nbytes: int) -> float:
    """Model time of one block of ``nbytes`` alone on its route."""
    hops, overlap = route(links, t)
    return sum(h.latency_us for h in hops) + nbytes * _s_per_byte(hops, overlap)


def throughput_GBps(links: Links, t: Transfer, nbytes: int) -> float:
    """GB/s of a run of blocks of ``nbytes`` moved one after the other."""
    return nbytes / block_us(links, t, nbytes) / 1e3
