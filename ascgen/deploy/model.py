"""What the plan records of a deployment over several devices (ascgen/deploy/plan.py decides it)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class LinkPlan(BaseModel):
    """One host link and the devices of the deployment behind it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    link: int
    devices: list[int]
    bandwidth_GBps: float
    demand_GBps: float  # what its devices move the busier way at their roofline
    qps: float  # frames/s the link carries at most


class DeploymentPlan(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    device_ids: list[int]
    deploy: str  # processes | threads
    processes_per_device: int
    product: str
    per_device_qps: float  # one device's roofline
    host_link_bytes_per_frame: float  # the busier way (H2D or D2H)
    links: list[LinkPlan]
    aggregate_qps: float  # the deployment's roofline
    numa: str  # host.numa: none, device or a node
    numa_topology: str  # the simulated host baked into the program ("" when no binding can ask)
    bottleneck: str  # "devices" when every device runs at its own roofline, else the link

    @property
    def scaling(self) -> float:
        """Aggregate over (devices x one device's roofline): 1.0 when nothing shared binds."""
        ideal = len(self.device_ids) * self.per_device_qps
        return self.aggregate_qps / ideal if ideal > 0 else 0.0
