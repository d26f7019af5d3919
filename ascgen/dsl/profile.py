"""Device profiles: the single source of truth for validator, planner and simulator.

A profile is a YAML file shipped in ``ascgen/profiles/``. The simulator reads the
same figures in a flat ``key=value`` form produced by :func:`flatten`.
"""

from __future__ import annotations

import os
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError
from pydantic_core import ErrorDetails

from ascgen.common.fileio import FileRefused, read_bounded
from ascgen.dsl.diagnostics import Diagnostic, Position, SpecError
from ascgen.dsl.dsl_base import ProfileModel
from ascgen.dsl.links import Links
from ascgen.dsl.yaml_loader import MAX_BYTES, SourceMap, load_text


class Memory(ProfileModel):
    device_bytes: int = Field(gt=0)
    dvpp_bytes: int = Field(gt=0)
    reserved_bytes: int = Field(ge=0)
    bandwidth_GBps: float = Field(gt=0)


class StrideAlign(ProfileModel):
    width: int = Field(gt=0)
    height: int = Field(gt=0)


class Align(ProfileModel):
    jpegd_out: StrideAlign
    vpc_in: StrideAlign
    vpc_out: StrideAlign
    # A VPC paste area's left offset is a multiple of this (16 on the 310, 910 and 310P:
    # HIA aclcppdevg_03_0344/0345 canncommercial/800 "round up the left offset of each paste
    # ROI to a multiple of 16"; hi_vpc dest_left_offset 16-aligned, aclcppdevg_03_1060); 1: none.
    vpc_paste_left: int = Field(default=1, gt=0)
    dvpp_addr: int
    device_addr: int
    memcpy_async_addr: int
    alloc_granule: int
    alloc_padding: int


class Resolution(ProfileModel):
    min_width: int
    min_height: int
    max_width: int
    max_height: int


class Ratio(ProfileModel):
    min: float
    max: float


class Limits(ProfileModel):
    jpegd_in: Resolution
    vpc_in: Resolution
    vpc_out: Resolution
    vpc_stride: Resolution
    resize_ratio: Ratio
    max_events: int
    max_streams: int
    max_batch: int
    # Threads one process may subscribe with aclrtSubscribeReport: 128 on the 310, 1024 on
    # the others (HIA aclcppdevg_03_0124 canncommercial/800, aclcppdevg_03_0051 60RC1).
    report_threads: int = Field(default=1024, gt=0)
    # VDEC channel ids are 0 .. vdec_channels - 1: 32 on the 310 and 910, 256 on the 310P,
    # 310B, A2 and A3 (HIA aclcppdevg_03_0373 canncommercial/850; aclpythondevg_01_0345).
    vdec_channels: int = Field(default=0, ge=0)
    # V2 VPC channels (hi_mpi_vpc_sys_create_chn) one process may have: 256 on the 310P, 910B and
    # A3 (HIA zh 80RC1alpha002 aclcppdevg_03_0255; ACL_FACTS 4); absent on devices without V2.
    vpc_channels: int | None = Field(default=None, gt=0)
    # Pictures VDEC decodes: 128x128 .. 4096x4096 on 310, 310P, 910, 910B and A3 (HIA
    # aclcppdevg_03_0373 850); absent: not checked.
    vdec_in: Resolution | None = None


class CopyEngine(ProfileModel):
    units: int = Field(gt=0)
    latency_us: float = Field(ge=0)
    bandwidth_GBps: float = Field(gt=0)

    def service_us(self, nbytes: int) -> float:
        return self.latency_us + nbytes / (self.bandwidth_GBps * 1e3)


class PixelEngine(ProfileModel):
    units: int = Field(gt=0)
    base_us: float = Field(ge=0)
    per_mpixel_us: float = Field(ge=0)

    def service_us(self, pixels: int) -> float:
        return self.base_us + self.per_mpixel_us * pixels / 1e6


class VpcEngine(PixelEngine):
    # Batch crop calls: each region after the first (simulator/docs/vpc_batch_time.md)
    per_roi_us: float = Field(default=0.0, ge=0)

    def batch_service_us(self, regions: int, pixels: int) -> float:
        """One batch call of `regions` regions writing `pixels` in all (the simulator's VPC time)."""
        return self.service_us(pixels) + self.per_roi_us * max(regions - 1, 0)


class UnitEngine(ProfileModel):
    units: int = Field(gt=0)
    # Added to a task when its unit's previous task came from another stream: a fixed part
    # and a fraction of the task's own service time (simulator/docs/shared_bandwidth.md).
    switch_us: float = Field(default=0.0, ge=0)
    switch_fraction: float = Field(default=0.0, ge=0)
    # Added to an execution when its unit's previous one was another model's: this share of the
    # model's weight bytes read again at the memory bandwidth (simulator/docs/shared_bandwidth.md
    # section 2).
    model_switch_weight_share: float = Field(default=0.0, ge=0)

    def model_switch_us(self, weight_bytes: int, memory_GBps: float) -> float:
        """The time an execution of a model with `weight_bytes` of weights adds after another model's."""
        return self.model_switch_weight_share * weight_bytes / (memory_GBps * 1e3) if memory_GBps > 0 else 0.0


class VdecEngine(ProfileModel):
    """The video decoder (VDEC): `units` cores, each decoding one frame at a time for
    frame_us + per_block_us x the frame's block x block tiles (a partial tile counts whole);
    a channel holds channel_fixed_bytes + channel_frames x one NV12 frame at its tile-aligned
    size of DVPP memory. The figures are fitted on the documented capacities: tools/vdec_fit.py,
    simulator/docs/vdec_time.md."""

    units: int = Field(gt=0)
    block: int = Field(gt=0)
    frame_us: float = Field(ge=0)
    per_block_us: float = Field(ge=0)
    channel_fixed_bytes: int = Field(ge=0)
    channel_frames: float = Field(ge=0)

    def blocks(self, width: int, height: int) -> int:
        return -(-width // self.block) * -(-height // self.block)

    def service_us(self, width: int, height: int) -> float:
        return self.frame_us + self.per_block_us * self.blocks(width, height)


class Scheduler(ProfileModel):
    per_task_us: float = Field(ge=0)


class HostCost(ProfileModel):
    submit_us: float = Field(ge=0)
    device_open_ms: float = Field(default=0.0, ge=0)  # the first aclrtSetDevice of a process


class Engines(ProfileModel):
    h2d: CopyEngine
    d2h: CopyEngine
    d2d: CopyEngine
    jpegd: PixelEngine
    vpc: VpcEngine
    aicore: UnitEngine
    vdec: VdecEngine | None = None  # absent: the profile has no video decoder figures
    scheduler: Scheduler
    host: HostCost


class ModelInput(ProfileModel):
    width: int
    height: int
    format: str


class ReferenceModel(ProfileModel):
    input: ModelInput
    output_bytes_per_item: int
    memory_bytes: int
    latency_ms: dict[int, float]
    # DDR traffic of one execution besides its input and output (the simulator's shared
    # memory bandwidth, simulator/docs/shared_bandwidth.md): fixed (weights, read once per
    # execution) + per item (activations). Both 0: not known (the descriptor's default,
    # the weights read once).
    traffic_bytes_fixed: int = Field(default=0, ge=0)
    traffic_bytes_per_item: int = Field(default=0, ge=0)


class Features(ProfileModel):
    """What the device has beyond figures; the simulator's rule checks read these."""

    # aclrtCreateEventExWithFlag events (reusable, a wait sees the latest record):
    # not on the Ascend 310 [HIA aclcppdevg_03_0081 canncommercial/900, product table].
    ex_events: bool = False
    # acldvppSetChannelDescMode: one engine per channel (Atlas inference products
    # and later) [HIA aclcppdevg_03_0326 80RC3; aclcppdevg_03_0270 80RC1].
    channel_modes: bool = False
    # Device memory kind: aclrtGetMemInfo answers the ACL_DDR_MEM* or the
    # ACL_HBM_MEM* attributes, 0/0 for the others [facts 1.3 aclrtMemAttr].
    memory_kind: Literal["ddr", "hbm"] = "ddr"
    # The hi_mpi_* media API (DVPP V2): 310P, 310B, A2 and A3, not the 310 or 910
    # (HIA acldevg aclcppdevg_000062 900; ACL_FACTS 8).
    dvpp_v2: bool = False


class Topology(ProfileModel):
    """The host the devices ship in (the product), what deployment over several devices needs."""

    product: str
    devices: int = Field(default=1, ge=1, le=64)  # chips the host sees (aclrtGetDeviceCount)
    # Chips behind one host link (a card's PCIe switch) and that link's bandwidth, each way:
    # every copy of those chips to or from the host shares it.
    devices_per_link: int = Field(default=1, ge=1)
    host_link_GBps: float = Field(gt=0)
    # The host's NUMA nodes (each its CPUs, in the kernel's cpulist form "0-23,48-71") and the
    # node each device's link attaches to: what sysfs says on a real host, here the product's
    # usual host; the simulator's programs bind to it (host.numa).
    numa_cpus: list[str] = Field(default_factory=lambda: ["0"], min_length=1)
    device_numa_node: list[int] = Field(default_factory=list)

    def numa_node_of(self, device: int) -> int:
        return self.device_numa_node[device] if device < len(self.device_numa_node) else 0

    def link_of(self, device: int) -> int:
        """The host link (card) device `device` sits behind."""
        return device // self.devices_per_link

    def links(self, devices: list[int]) -> dict[int, list[int]]:
        """The devices of a deployment grouped by the host link they share."""
        out: dict[int, list[int]] = {}
        for d in sorted(devices):
            out.setdefault(self.link_of(d), []).append(d)
        return out


class Provenance(ProfileModel):
    """Where a measured figure comes from (``ascgen calibrate``)."""

    probe: str  # what ran: "ascgen probe transfer --links copy", "acl_sim_calib model_batch 16", ...
    date: str  # ISO 8601, UTC
    host: str
    driver: str  # the AscendCL it ran on: "ascgen simulator <version>", or CANN's version
    spread: float = Field(ge=0)  # (max - min) / median of the repeats behind the figure
    repeats: int = Field(ge=1)


class Profile(ProfileModel):
    name: str
    soc: str
    description: str
    topology: Topology
    memory: Memory
    align: Align
    limits: Limits
    engines: Engines
    features: Features = Features()
    models: dict[str, ReferenceModel] = Field(default_factory=dict)
    # Links to other devices and hosts (HCCS, RDMA; ascgen/dsl/links.py, docs/transfers.md).
    links: Links | None = None
    # Measured figures' origins, by flat key ("engines.h2d.bandwidth_GBps"): `ascgen calibrate`.
    provenance: dict[str, Provenance] = Field(default_factory=dict)


PROFILE_DIR = Path(str(resources.files("ascgen") / "profiles"))
# Folders of more profiles (os.pathsep-separated), searched after the shipped ones: where
# `ascgen calibrate --out` writes a device's own profile.
PATH_VARIABLE = "ASCGEN_PROFILE_PATH"


def _folders() -> list[Path]:
    extra = [Path(p) for p in os.environ.get(PATH_VARIABLE, "").split(os.pathsep) if p]
    return [PROFILE_DIR, *extra]


def available() -> list[str]:
    """Names of the profiles shipped with ascgen (and in $ASCGEN_PROFILE_PATH), sorted."""
    return sorted({p.stem for folder in _folders() for p in folder.glob("*.yaml")})


def path_of(name: str) -> Path:
    """The file of profile ``name``: shipped first, then $ASCGEN_PROFILE_PATH; KeyError if none.
    Whatever is there counts (a FIFO, a folder): load_file says why it is not a profile, rather
    than `available` listing a name that `load` calls unknown."""
    for folder in _folders():
        path = folder / f"{name}.yaml"
        if path.exists():
            return path
    raise KeyError(name)


def found_instead(path: Path) -> Path | None:
    """The file a lookup by ``path``'s name finds before ``path`` (a shipped profile, or one
    earlier in $ASCGEN_PROFILE_PATH); None when ``path`` would be found, or nothing else is."""
    for folder in _folders():
        candidate = folder / f"{path.stem}.yaml"
        if candidate.resolve() == path.resolve():
            return None
        if candidate.exists():
            return candidate
    return None


def load_file(path: Path) -> Profile:
    """The profile in ``path``; a SpecError (exit 2, file:line:col) when the file is not one:
    not a regular file, larger than a spec may be, not YAML, or not a profile's keys and values."""
    where = str(path)
    try:
        raw = read_bounded(path, MAX_BYTES)
        text = raw.decode("utf-8")
    except FileRefused as exc:
        raise SpecError([Diagnostic(where, Position(1, 1), f"not a profile: {exc}")]) from None
    except UnicodeDecodeError as exc:
        message = f"not a profile: not UTF-8 text (offset {exc.start})"
        raise SpecError([Diagnostic(where, Position(1, 1), message)]) from None
    data, smap = load_text(text, where)
    try:
        return Profile.model_validate(data)
    except ValidationError as exc:
        raise SpecError([_profile_error(smap, err) for err in exc.errors()]) from None


def _profile_error(smap: SourceMap, err: ErrorDetails) -> Diagnostic:
    key = ".".join(str(p) for p in err["loc"])
    return smap.error(err["loc"], f"not an ascgen profile: {key + ': ' if key else ''}{err['msg']}")


@cache
def _load(path: Path) -> Profile:
    return load_file(path)


def load(name: str) -> Profile:
    """Load a profile by name; KeyError if there is none."""
    return _load(path_of(name))


def _flat_items(prefix: str, value: Any) -> list[tuple[str, str]]:
    if isinstance(value, dict):
        items: list[tuple[str, str]] = []
        for key in sorted(value, key=str):
            items += _flat_items(f"{prefix}.{key}" if prefix else str(key), value[key])
        return items
    if isinstance(value, bool):  # the simulator reads numbers
        return [(prefix, "1" if value else "0")]
    if isinstance(value, float):
        return [(prefix, repr(value))]
    return [(prefix, str(value))]


def flatten(profile: Profile) -> str:
    """The profile as sorted ``key=value`` lines: the form the simulator reads."""
    lines = [f"# ascgen device profile '{profile.name}', flat form for the simulator"]
    # A reference model's DDR traffic goes into model descriptors, not to the simulator's profile.
    # Provenance is for people (strings), not for the simulator.
    skip: dict[str, Any] = {
        "models": {"__all__": {"traffic_bytes_fixed", "traffic_bytes_per_item"}},
        "provenance": True,
        "topology": {"numa_cpus", "device_numa_node"},  # the programs' (ascgen_numa.h), not the device's
    }
    dumped = profile.model_dump(mode="python", exclude=skip, exclude_none=True)
    lines += [f"{k}={v}" for k, v in _flat_items("", dumped)]
    return "\n".join(lines) + "\n"


@cache
def shipped_flat() -> dict[str, str]:
    """Every profile shipped with ascgen (not $ASCGEN_PROFILE_PATH's), by name, flattened: the
    simulated devices a shared runtime folder holds once for the programs beside it."""
    return {p.stem: flatten(_load(p)) for p in sorted(PROFILE_DIR.glob("*.yaml"))}
