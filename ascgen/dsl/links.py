"""The profile's ``links`` section: a device's host link and its HCCS and RDMA links, as figures
(the schema only; ascgen/transfers/model.py routes transfers over them, docs/transfers.md)."""

from __future__ import annotations

from pydantic import Field

from ascgen.dsl.dsl_base import ProfileModel


class HostLink(ProfileModel):
    """A host's PCIe to its NPU as the pool's staging copies use it (HCCS to host memory)."""

    h2d_write_GBps: float = Field(gt=0)
    h2d_read_GBps: float = Field(gt=0)
    d2h_GBps: float = Field(gt=0)


class Link(ProfileModel):
    """One link kind (HCCS or RDMA over RoCE) of a device."""

    latency_us: float = Field(ge=0)
    cross_host_latency_us: float = Field(ge=0)  # added when the other side is on another host
    write_GBps: float = Field(gt=0)  # the side that starts the transfer pushes
    read_GBps: float = Field(gt=0)  # ...or pulls
    pool_overlap: float = Field(ge=0, le=1)
    pool_GBps: float | None = Field(default=None, gt=0)  # RDMA: the staging copy into the pool
    direct_host_GBps: float | None = Field(default=None, gt=0)  # HCCS: host memory without the pool
    direct_host_cross_host_GBps: float | None = Field(default=None, gt=0)


class Links(ProfileModel):
    host: HostLink | None = None
    hccs: Link | None = None
    rdma: Link | None = None
