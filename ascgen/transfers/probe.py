"""The transfer probe program: its cases, its rendering, its build and its run.

``cases()`` turns the options of ``ascgen probe transfer`` into the program's table of cases;
``render()`` renders templates/probes/ (deterministically: the same options give the same bytes);
``build()`` compiles it like a generated pipeline (ascgen.codegen.build); ``run()`` runs it on the simulator
(or a device) and returns one row per case with its GB/s.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from ascgen import __version__
from ascgen.codegen.build import BuildFailed
from ascgen.codegen.probe import ProbeFailed, build_probe, run_probe, source_dir
from ascgen.codegen.render import clang_format, environment
from ascgen.common.errors import UserError, shown
from ascgen.common.resources import simulator_dir
from ascgen.dsl import profile as profiles
from ascgen.transfers.direction import COPY_DIRECTIONS, LINK_DIRECTIONS, Direction
from ascgen.transfers.model import Transfer, Unsupported, route

NAME = "probe_transfer"
_COPY_KIND = {
    Direction.H2D: "ACL_MEMCPY_HOST_TO_DEVICE",
    Direction.D2H: "ACL_MEMCPY_DEVICE_TO_HOST",
    Direction.D2D: "ACL_MEMCPY_DEVICE_TO_DEVICE",
}


@dataclass(frozen=True)
class Options:
    profile: str
    links: tuple[str, ...] = ("copy", "hccs", "rdma")  # copy: aclrtMemcpy over the host link
    directions: tuple[Direction, ...] = tuple(Direction)
    sizes: tuple[int, ...] = (1 << 20, 4 << 20)
    host_memory: tuple[str, ...] = ("pinned",)
    merged: bool = False
    pool: tuple[bool, ...] = (False, True)
    ops: tuple[str, ...] = ("write", "read")
    hosts: tuple[str, ...] = ("one_host", "two_hosts")
    total_bytes: int = 128 << 20
    repeat: int = 3  # runs per case: the median is reported, min and max as its spread


@dataclass(frozen=True)
class Case:
    column: str
    op: str
    topology: str
    kind: str  # kCopy / kLink
    block: int
    copy_kind: str = "ACL_MEMCPY_HOST_TO_DEVICE"
    pinned: bool = True
    merged: bool = False
    link: str = ""
    local_host: bool = False
    remote_host: bool = False
    read: bool = False
    pool: bool = False
    cross_host: bool = False


def link_transfers(options: Options) -> list[Transfer]:
    """HIXL's columns the options ask for and the profile's links can make, in HIXL's order."""
    prof = profiles.load(options.profile)
    out = []
    for topology in ("one_host", "two_hosts"):
        if topology not in options.hosts:
            continue
        for op in ("write", "read"):
            if op not in options.ops:
                continue
            for link in ("hccs", "rdma"):
                if link not in options.links:
                    continue
                for direction in LINK_DIRECTIONS:
                    if direction not in options.directions:
                        continue
                    for pool in (False, True):
                        if pool not in options.pool:
                            continue
                        t = Transfer(link, direction, op, pool, topology == "two_hosts")
                        try:
                            if prof.links is None:
                                raise Unsupported(f"profile {options.profile} has no links")
                            route(prof.links, t)
                        except Unsupported:
                            continue
                        out.append(t)
    return out


def cases(options: Options) -> list[Case]:
    """The program's cases: copies first (by direction, host memory, size), then link columns."""
    out: list[Case] = []
    if "copy" in options.links:
        for direction in COPY_DIRECTIONS:
            if direction not in options.directions:
                continue
            memories = ("pinned",) if direction == Direction.D2D else options.host_memory
            for memory in memories:
                suffix = "" if direction == Direction.D2D else f"_{memory}"
                column = f"copy_{direction}{suffix}{'_merged' if options.merged else ''}"
                out += [
                    Case(
                        column,
                        "copy",
                        "local",
                        "kCopy",
                        size,
                        _COPY_KIND[direction],
                        memory == "pinned",
                        options.merged,
                    )
                    for size in options.sizes
                ]
    for t in link_transfers(options):
        out += [
            Case(
                t.column,
                t.op,
                "two_hosts" if t.cross_host else "one_host",
                "kLink",
                size,
                link=t.link,
                local_host=t.direction.first_on_host,
                remote_host=t.direction.second_on_host,
                read=t.op == "read",
                pool=t.pool,
                cross_host=t.cross_host,
            )
            for size in options.sizes
        ]
    return out


def render(options: Options, out_dir: Path) -> dict[str, str]:
    """The probe's files ({relative path: text}) for a program folder at ``out_dir``."""
    selected = cases(options)
    if not selected:
        raise UserError(
            "no transfer to probe: the options select nothing this profile can do "
            f"(profile {options.profile}: links {'yes' if profiles.load(options.profile).links else 'none'})"
        )
    env = environment()
    main = env.get_template("probes/transfer.cpp.j2").render(
        version=__version__,
        name=NAME,
        cases=[asdict(c) for c in selected],
        total_bytes=options.total_bytes,
        repeat=options.repeat,
        device=0,
    )
    sim = os.path.relpath(simulator_dir(), out_dir)
    cmake = env.get_template("probes/CMakeLists.txt.j2").render(
        version=__version__, name=NAME, simulator_dir=f"${{CMAKE_CURRENT_SOURCE_DIR}}/{sim}"
    )
    return {"main.cpp": clang_format(main, "main.cpp"), "CMakeLists.txt": cmake}


def build(
    options: Options,
    build_root: Path,
    backend: str = "sim",
    sanitize: str | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> Path:
    """Renders and compiles the probe in build_root/probes/<name>-<hash>/; returns the binary."""
    check_fits(options)
    files = render(options, source_dir(build_root, NAME))
    return build_probe(NAME, files, build_root, backend, sanitize, progress)


@dataclass
class Row:
    column: str
    op: str
    topology: str
    block_bytes: int
    status: str
    GBps: float | None = None
    seconds: float | None = None
    bytes: int | None = None
    reason: str | None = None
    GBps_min: float | None = None
    GBps_max: float | None = None
    repeat: int | None = None


def run(
    binary: Path,
    options: Options,
    time_scale: float = 1.0,
    on_row: Callable[[Row], None] | None = None,
    env: dict[str, str] | None = None,
) -> list[Row]:
    """Runs the probe (on the simulator: with the profile's flat form); one Row per case, as
    each arrives (``on_row``). Rows already received are returned if the run is interrupted."""
    cmd = [str(binary), "--total", str(options.total_bytes), "--repeat", str(options.repeat)]
    return run_probe(cmd, options.profile, _row, on_row, time_scale, env)


def _row(line: str) -> Row:
    try:
        data = json.loads(line)
        return Row(
            column=str(data["column"]),
            op=str(data["op"]),
            topology=str(data["topology"]),
            block_bytes=int(data["block_bytes"]),
            status=str(data["status"]),
            GBps=float(data["GBps"]) if "GBps" in data else None,
            seconds=float(data["seconds"]) if "seconds" in data else None,
            bytes=int(data["bytes"]) if "bytes" in data else None,
            reason=data.get("reason"),
            GBps_min=float(data["GBps_min"]) if "GBps_min" in data else None,
            GBps_max=float(data["GBps_max"]) if "GBps_max" in data else None,
            repeat=int(data["repeat"]) if "repeat" in data else None,
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise ProbeFailed(f"the probe printed a line that is not a result: {line.strip()[:200]!r}") from exc


MAX_BYTES = 1 << 30  # a block or a case's total: the probe holds two device and two host buffers of it


def parse_size(text: str) -> int:
    """``1M`` -> 1048576, ``64K``, ``4096``: a block size in bytes (K, M, G: powers of 1024), at
    most MAX_BYTES (checked before anything is built: the size is compiled into the probe)."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:], 1)
    digits = t[:-1] if t[-1:] in "KMG" else t
    if not digits.isascii() or not digits.isdigit() or int(digits[:12]) == 0:
        raise ValueError(f"not a size: '{shown(text)}' (examples: 4096, 64K, 1M)")
    if len(digits) > 10 or int(digits) * scale > MAX_BYTES:
        raise ValueError(f"'{shown(text)}': at most {size_label(MAX_BYTES)} (the probe holds four buffers of it)")
    return int(digits) * scale


def check_fits(options: Options) -> None:
    """A UserError when the profile's device cannot hold the probe's two device buffers of
    ``total_bytes`` (found before the build, not as an allocation failure after it)."""
    memory = profiles.load(options.profile).memory
    room = memory.device_bytes - memory.reserved_bytes
    if 2 * options.total_bytes > room:
        raise UserError(
            f"--total {size_label(options.total_bytes)}: the probe holds two device buffers of it, more than the "
            f"{room:,} bytes of {options.profile}'s device memory; give at most {size_label(room // 2 >> 20 << 20)}"
        )


def size_label(nbytes: int) -> str:
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if nbytes % scale == 0:
            return f"{nbytes // scale}{unit}"
    return str(nbytes)


def columns(rows: Sequence[Row]) -> list[str]:
    seen: dict[str, None] = {}
    for r in rows:
        seen.setdefault(r.column, None)
    return list(seen)


__all__ = ["BuildFailed", "Case", "Options", "ProbeFailed", "Row", "build", "cases", "render", "run"]
