"""HIXL's published transfer figures on Atlas A3 (hixl_a3_published.yaml, a copy of the seed)."""

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
OPS = ("write", "read")


@dataclass(frozen=True)
class Figure:
    transfer: Transfer
    block_bytes: int
    GBps: float

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
                out += [Figure(t, sizes[k], float(v)) for k, v in values.items()]
    return tuple(out)


def total_bytes(path: Path = DATA) -> int:
    return int(yaml.safe_load(path.read_text(encoding="utf-8"))["total_bytes_per_run"])
