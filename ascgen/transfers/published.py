"""HIXL's published transfer figures on Atlas A3 (hixl_a3_published.yaml, a copy of the seed).

HIXL's "GB/s" are 2**30 bytes per second: its benchmark prints bytes / 1024 / 1024 / 1024 / seconds
(benchmarks/benchmark.cpp, ``Transfer``), and its README's example line, 128 MiB in 1044 us printed
as "119.732 GB/s", is 128.56e9 bytes/s. ascgen's GB/s are 10**9 bytes/s everywhere (profiles, the
link model, the probe's JSON), so a figure is converted when it is read; ``Figure.hixl`` gives it
back in HIXL's unit, the one ``ascgen probe transfer`` prints its table in by default."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from ascgen.transfers import direction
from ascgen.transfers.model import Transfer

DATA = Path(__file__).with_name("hixl_a3_published.yaml")
# The same table's 2 MiB and 8 MiB rows: never fitted, they check the model's predictions.
HIDDEN = Path(__file__).with_name("hixl_a3_hidden.yaml")
TOPOLOGIES = ("one_host", "two_hosts")
HIXL_GB = 1 << 30  # bytes in HIXL's "GB"
OPS = ("write", "read")


@dataclass(frozen=True)
class Figure:
    transfer: Transfer
    block_bytes: int
    GBps: float  # 10**9 bytes per second

    @property
    def hixl(self) -> float:
        """The figure in HIXL's unit (2**30 bytes per second), as its table prints it."""
        return self.GBps * 1e9 / HIXL_GB

    @property
    def topology(self) -> str:
        return "two_hosts" if self.transfer.cross_host else "one_host"


def parse_column(column: str, op: str, cross_host: bool) -> Transfer:
    """``hccs_h2d_pool`` -> the Transfer it names."""
    parts = column.split("_")
    if len(parts) not in (2, 3) or parts[0] not in ("hccs", "rdma") or (len(parts) == 3 and parts[2] != "pool"):
        raise ValueError(f"not a column of HIXL's table: {column!r}")
    try:
        where = direction.parse(parts[1])
    except ValueError:
        raise ValueError(f"not a column of HIXL's table: {column!r}") from None
    return Transfer(parts[0], where, "write" if op == "write" else "read", len(parts) == 3, cross_host)  # type: ignore[arg-type]


@cache
def figures(path: Path = DATA) -> tuple[Figure, ...]:
    """Every published figure, in the file's order."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    sizes: dict[str, int] = data["block_bytes"]
    out: list[Figure] = []
    for topo in TOPOLOGIES:
        for op in OPS:
            for column, values in data[topo][op].items():
                t = parse_column(column, op, topo == "two_hosts")
                out += [Figure(t, sizes[k], float(v) * HIXL_GB / 1e9) for k, v in values.items()]
    return tuple(out)


def total_bytes(path: Path = DATA) -> int:
    return int(yaml.safe_load(path.read_text(encoding="utf-8"))["total_bytes_per_run"])
