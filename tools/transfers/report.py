"""docs/transfers.md and docs/transfers.png from the fit and the probe's rows."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

from ascgen.dsl.links import Links
from ascgen.transfers import fit, model, published
from ascgen.transfers.probe import Row, size_label
from ascgen.transfers.report import in_unit

GROUPS = [("one_host", "write"), ("one_host", "read"), ("two_hosts", "write"), ("two_hosts", "read")]
MEANING = {
    "host.h2d_write_GBps": "a host's PCIe to its NPU, host to device, in a write (the pool's staging copy)",
    "host.h2d_read_GBps": "the same in a read",
    "host.d2h_GBps": "device to host (either operation)",
    "hccs.latency_us": "HCCS: per block (the transfer engine's own cost included)",
    "hccs.cross_host_latency_us": "HCCS: added when the peer is on another host of the super node",
    "hccs.write_GBps": "HCCS: pushing to the peer",
    "hccs.read_GBps": "HCCS: pulling from the peer",
    "hccs.pool_overlap": "HCCS: part of the pool's other hops hidden behind the slowest one",
    "hccs.direct_host_GBps": "HCCS without the pool: the peer NPU reaching host memory itself",
    "hccs.direct_host_cross_host_GBps": "the same across hosts",
    "rdma.latency_us": "RDMA over RoCE: per block",
    "rdma.cross_host_latency_us": "RDMA: added across hosts",
    "rdma.write_GBps": "RDMA: pushing",
    "rdma.read_GBps": "RDMA: pulling",
    "rdma.pool_overlap": "RDMA: part of the staging copy hidden behind the wire",
    "rdma.pool_GBps": "RDMA: the staging copy into or out of the registered pool",
}
UNITS = """HIXL's tables say "GB/s" but mean 2^30 bytes per second: its benchmark prints bytes / 1024 / 1024 /
1024 / seconds (`benchmarks/benchmark.cpp`), and its README's example, 128 MiB in 1044 us printed as
"119.732 GB/s", is 128.56 x 10^9 bytes/s. ascgen's GB/s are 10^9 bytes per second everywhere (the
profile, the model, the probe's JSON), so the published figures are converted when read
(ascgen/transfers/published.py). The tables below and `ascgen probe transfer`'s are in HIXL's unit,
written GiB/s, so they read against its page; the parameters are in 10^9 bytes/s. In those units the
fitted RDMA wire, {rdma} GB/s, is {rdma_gbit:.0f} Gb/s: a 200 GbE RoCE port less its per-packet
headers (about 2 % at a 4096-byte MTU)."""


# The three published figures no model of the links reproduces (topology, operation, column; 1 MiB).
STALLED = (("two_hosts", "write", "rdma_d2d"), ("one_host", "read", "rdma_h2h"), ("two_hosts", "read", "rdma_h2h"))


def outliers(every: Sequence[published.Figure]) -> str:
    """Why three published figures stay outside 10 %, with the stall each implies."""
    by: dict[tuple[str, str, str, int], published.Figure] = {
        (f.topology, f.transfer.op, f.transfer.column, f.block_bytes): f for f in every
    }
    line = [f.GBps for f in every if f.transfer.link == "rdma" and not f.transfer.pool and f.block_bytes == 8 << 20]
    line_GBps = sum(line) / len(line)
    run = published.total_bytes()
    stalls = []
    for key in STALLED:
        f = by[(*key, 1 << 20)]
        extra_ms = (run / (f.GBps * 1e9) - run / (line_GBps * 1e9)) * 1e3
        stalls.append(f"`{key[2]}` {key[1]} on {key[0].replace('_', ' ')}, {f.hixl:.1f} GiB/s (+{extra_ms:.2f} ms)")
    return f"""Three figures stay outside 10 %, all at 1 MiB over RDMA without the pool. Each run moved
its 128 MiB slower than the line rate ({line_GBps * 1e9 / (1 << 30):.1f} GiB/s) would by the time given:
{"; ".join(stalls)}. Each is below line rate at that block size only: its own column runs at line rate at 2, 4
and 8 MiB, and so does every other RDMA column of the same block size, operation and topology. No
physical model reproduces them:

- a per-block cost (latency, a work request, a completion) large enough to give the 1 MiB figure
  puts the same column's published 2 MiB figure more than 10 % too low across hosts;
- the written `rdma_d2d` figure is 21 % under `rdma_h2h` of the same run set, whose route (host
  memory at both ends) contains d2d's and can only add to it: no model in which a hop costs
  something gets both within 10 % (17.9 x 1.1 < 22.6 x 0.9, in HIXL's unit).

HIXL's benchmark (`benchmarks/benchmark.cpp`) times each figure once: one `TransferSync` of all
the run's blocks, the 256 KiB and 512 KiB runs before the 1 MiB one in the same process, so it is
not a first run. What each figure lost is one stall of about a millisecond in a single timed run
(the length of a scheduler tick), which the table does not report and a model of the links has no
reason to have. Terms fitted to these three figures alone would meet the letter of "every figure"
against the issue's "few parameters per link", so there are none;
tests/transfers/test_link_model.py checks these statements on the published data."""


HIDDEN_NOTE = """HIXL's table also gives 2 MiB and 8 MiB rows (ascgen/transfers/hixl_a3_hidden.yaml, copied
from HIXL's `benchmarks/A3_benchmark_performance.md`). The fit never sees them: they check what the
model predicts between and beyond the fitted sizes. Of the few outside 10 %, `hccs_h2h_pool` read
across hosts at 2 MiB scatters within its own column (26.8, 25.0, 27.2, 29.3 GiB/s at 1, 2, 4,
8 MiB), where a model of the links is smooth; the other two are pooled columns at 8 MiB, where
most pooled columns run 1-7 % below their 4 MiB figure (a block larger than what the transit pool
pipelines?) while a few rise: the model, which has no pool capacity, does not follow them."""


def _ratio(a: float | None, b: float | None) -> str:
    return "" if a is None or b is None or b == 0 else f"{a / b:.3f}"


def _num(v: float | None) -> str:
    return "" if v is None else f"{v:.2f}"


def _hixl(gbps: float | None) -> str:
    """10**9 bytes/s, shown in HIXL's unit (2**30 bytes/s)."""
    return "" if gbps is None else _num(in_unit(gbps, "GiB"))


def _figure_tables(
    figures: Sequence[published.Figure], links: Links, sim: dict[tuple[str, str, str, int], Row]
) -> list[str]:
    lines: list[str] = []
    for topology, op in GROUPS:
        lines += [
            f"### {topology.replace('_', ' ')}, {op}",
            "",
            "| column | block | published | fit | sim | fit/pub | sim/pub |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for f in figures:
            if f.topology != topology or f.transfer.op != op:
                continue
            m = model.throughput_GBps(links, f.transfer, f.block_bytes)
            r = sim.get((topology, op, f.transfer.column, f.block_bytes))
            s = r.GBps if r else None
            fr, sr = _ratio(m, f.GBps), _ratio(s, f.GBps)
            fr = f"**{fr}**" if abs(m / f.GBps - 1) > 0.10 else fr
            sr = f"**{sr}**" if s is not None and abs(s / f.GBps - 1) > 0.10 else sr
            size = size_label(f.block_bytes)
            lines.append(f"| {f.transfer.column} | {size} | {f.hixl:.2f} | {_hixl(m)} | {_hixl(s)} | {fr} | {sr} |")
        lines.append("")
    return lines


def page(
    figures: Sequence[published.Figure],
    hidden: Sequence[published.Figure],
    fitted: fit.FitResult,
    values: dict[str, float],
    sim_rows: Sequence[Row],
    copies: dict[str, Row],
    seed_note: str,
    total: int,
    repeat: int,
    time_scale: float,
    commit: str,
) -> str:
    links = fit.links_of(values)
    errors = [model.throughput_GBps(links, f.transfer, f.block_bytes) / f.GBps - 1 for f in figures]
    inside = sum(abs(e) <= 0.10 for e in errors)
    hidden_errors = [model.throughput_GBps(links, f.transfer, f.block_bytes) / f.GBps - 1 for f in hidden]
    hidden_inside = sum(abs(e) <= 0.10 for e in hidden_errors)
    hidden_worst = max(abs(e) for e in hidden_errors)
    sim = {(r.topology, r.op, r.column, r.block_bytes): r for r in sim_rows}
    sim_vs_pub = []
    for f in figures:
        r = sim.get((f.topology, f.transfer.op, f.transfer.column, f.block_bytes))
        if r is not None and r.GBps is not None:
            sim_vs_pub.append(r.GBps / f.GBps - 1)
    sim_inside = sum(abs(e) <= 0.10 for e in sim_vs_pub)
    lines = [
        "# Transfers: links between devices and hosts",
        "",
        "Regenerated by `python -m tools.transfers` (at "
        f"{commit}): the link model of the simulator (simulator/src/links/link.h) and of ascgen "
        "(ascgen/transfers/model.py), its parameters fitted on HIXL's published benchmark on Atlas A3 "
        "(ascgen/transfers/hixl_a3_published.yaml; " + seed_note + "), and the transfer probe "
        "(`ascgen probe transfer`) run on the simulator with the `atlas_a3` profile beside every "
        "published figure.",
        "",
        f"**Fit: {inside} of {len(figures)} published figures within 10 %** "
        f"(largest gap {max(abs(e) for e in errors) * 100:.1f} %). "
        f"**Simulator: {sim_inside} of {len(sim_vs_pub)} within 10 %** "
        f"(probe runs of {total / (1 << 20):g} MiB per case, median of {repeat}, model time at "
        f"ACL_SIM_TIME_SCALE={time_scale:g}).",
        "",
        "![GiB/s against block size: the simulator's probe (lines) and HIXL's figures (points)](transfers.png)",
        "",
        "## Units",
        "",
        UNITS.format(rdma=values.get("rdma.write_GBps"), rdma_gbit=8 * values.get("rdma.write_GBps", 0.0)),
        "",
        "## The link model",
        "",
        "A transfer is a route of hops, each a latency and a bandwidth:",
        "",
        "- the link itself, HCCS (NPU to NPU inside a super node) or RDMA over RoCE: a latency per "
        "block, plus a cross-host latency when the peer is on another host, and a bandwidth for "
        "pushing (`write`) and one for pulling (`read`);",
        "- HCCS to host memory through HIXL's transit buffer pool: one host-link hop per host side "
        "(a copy between host memory and a device pool block over that host's PCIe; h2d and d2h "
        "rates); without the pool only a peer *device* can reach host memory (the NPU reads or "
        "writes it itself: one `direct_host` hop, slower across hosts); a peer's host memory needs "
        "the pool (HIXL: unsupported otherwise);",
        "- RDMA through the pool: one staging copy into or out of the registered pool.",
        "",
        "HIXL uses its pool only where it is faster (its interface documents so for device-to-device "
        "blocks under 256 KiB over HCCS): between this side's host memory and a peer *device*, which "
        "HCCS also reaches without the pool, the faster of the two routes is taken. On one host a "
        "read lands in host memory faster through the NPU's own writes than through the pool's d2h "
        "copy; across hosts the direct route is the slow one and the pool wins.",
        "",
        "The pool pipelines its blocks: a fraction `pool_overlap` of every hop but the slowest hides "
        "behind the slowest one, so one block of *s* bytes takes",
        "",
        "    t(s) = sum(latencies) + s * (1/B_slowest + (1 - pool_overlap) * sum(1/B_others))",
        "",
        "and a run of blocks moved one after the other reaches *s* / t(*s*). Transfers crossing the "
        "same link at the same moment share its slowest hop's bandwidth by processor sharing, as "
        "engines share the device's memory bandwidth (simulator/docs/shared_bandwidth.md); a "
        "transfer engine posts them to the link's queues, so the device's task scheduler does not "
        "dispatch them (their per-block cost is the fitted latency). On the simulator a transfer is "
        "`aclsimLinkTransferAsync` (acl_sim/acl_sim.h); the peer is a buffer of the same process "
        "(one simulated device per process), named by a device id for several-device runs.",
        "",
        "## Parameters (atlas_a3 profile, `links:`)",
        "",
        f"Least squares on log(model / published) over all {len(figures)} published 1 MiB and 4 MiB figures, "
        f"Levenberg-Marquardt, {fitted.iterations} iterations (ascgen/transfers/fit.py); "
        "three significant digits.",
        "",
        "Bandwidths in GB/s of 10^9 bytes, latencies in microseconds.",
        "",
        "| parameter | value | what |",
        "|---|---:|---|",
    ]
    lines += [f"| `{k}` | {v:g} | {MEANING.get(k, '')} |" for k, v in values.items()]
    lines += ["", "## Every published figure", ""]
    lines += [
        "GiB/s (HIXL's \"GB/s\"): HIXL's figure, the fitted model, the simulator's probe, and their ratios "
        "(*fit/pub*, *sim/pub*). Marked **bold**: outside 10 %.",
        "",
    ]
    lines += _figure_tables(figures, links, sim)
    lines += [outliers([*figures, *hidden]), "", "## Hidden block sizes: 2 MiB and 8 MiB, not fitted", ""]
    lines += [HIDDEN_NOTE, ""]
    lines += [
        f"**Fit: {hidden_inside} of {len(hidden)} within 10 %** (largest gap {hidden_worst * 100:.1f} %).",
        "",
    ]
    lines += _figure_tables(hidden, links, sim)
    lines += ["## Predicted at other block sizes (simulator)", ""]
    lines += [
        "The fit sees 1 MiB and 4 MiB only; the model predicts the rest "
        "(smaller blocks pay the per-block latency more often, HCCS most: its blocks are shortest).",
        "",
    ]
    for topology, op in GROUPS:
        members = [r for r in sim_rows if r.topology == topology and r.op == op]
        cols = list(dict.fromkeys(r.column for r in members))
        sizes = sorted({r.block_bytes for r in members})
        by = {(r.column, r.block_bytes): r for r in members}
        lines += [f"### {topology.replace('_', ' ')}, {op} (GiB/s)", ""]
        lines.append("| block | " + " | ".join(cols) + " |")
        lines.append("|---:|" + "---:|" * len(cols))
        for s in sizes:
            lines.append(f"| {size_label(s)} | " + " | ".join(_hixl(by[(c, s)].GBps) for c in cols) + " |")
        lines.append("")
    un, me = copies["unmerged"], copies["merged"]
    un_rate = (un.bytes or 0) / 75825 / (un.seconds or math.inf)
    lines += [
        "## The PCIe host link of the Ascend 310 (ascend310 profile)",
        "",
        "Copies through AscendCL (aclrtMemcpyAsync from pinned memory, one stream) keep the study's "
        "figures (../shared/calibration/ascend310_seed.yaml; the gate in docs/calibration.md): "
        "the `engines.h2d` latency and bandwidth are that link's model.",
        "",
        "| copies of one 75,825-byte JPEG | study | probe | probe/study |",
        "|---|---:|---:|---:|",
        f"| unmerged (one copy per JPEG), copies/s | 2758 | {un_rate:.0f} | {un_rate / (800 / 0.29):.3f} |",
        f"| merged (the run's JPEGs as one copy), GB/s | 2.99 | {_num(me.GBps)} | {_ratio(me.GBps, 58.6 / 19.58)} |",
        "",
        "## Measuring a real device",
        "",
        "- AscendCL copies: `ascgen probe transfer --backend cann --links copy --host-memory "
        "pinned,pageable` builds the same probe against the toolkit (the CMake conventions of "
        "generated programs) and runs it on the device: GB/s per block size, host-to-device, "
        "device-to-host and on-device, merged or not (`--merged`).",
        "- Links: HCCS and RDMA transfers are HIXL's (a transfer engine, not AscendCL); on CANN the "
        "probe reports those columns as unsupported. Run HIXL's own benchmark (its `benchmarks/` "
        "folder) for each column, write the figures in the layout of "
        "ascgen/transfers/hixl_a3_published.yaml, and fit them: "
        "`ascgen.transfers.fit.fit(published.figures(path))` gives the `links:` section of a "
        "profile (the residuals say how well the model holds on that machine).",
        "- `ascgen calibrate` runs the AscendCL probes a profile's figures come from (the engine "
        "probe: the task scheduler's and the host's cost per task, JPEGD and VPC by channel count; "
        "the copies above; the model per batch) and writes a profile with each figure's provenance.",
        "",
    ]
    return "\n".join(lines)


def plot(
    figures: Sequence[published.Figure],
    sim_rows: Sequence[Row],
    path: Path,
    hidden: Sequence[published.Figure] = (),
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(13, 9), sharex=True)
    for ax, (topology, op) in zip(axes.flat, GROUPS, strict=True):
        members = [r for r in sim_rows if r.topology == topology and r.op == op and r.GBps is not None]
        cols = list(dict.fromkeys(r.column for r in members))
        cmap = plt.get_cmap("tab20")
        for i, col in enumerate(cols):
            pts = sorted((r.block_bytes, in_unit(r.GBps or 0.0, "GiB")) for r in members if r.column == col)
            color = cmap(i % 20)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=color, label=col, lw=1.2)
            pub = [(f.block_bytes, f.hixl) for f in figures if f.topology == topology and f.transfer.op == op
                   and f.transfer.column == col]  # fmt: skip
            ax.scatter([p[0] for p in pub], [p[1] for p in pub], color=color, marker="o", s=28, zorder=3)
            more = [(f.block_bytes, f.hixl) for f in hidden if f.topology == topology and f.transfer.op == op
                    and f.transfer.column == col]  # fmt: skip
            ax.scatter([p[0] for p in more], [p[1] for p in more], facecolors="none", edgecolors=[color],
                       marker="o", s=28, zorder=3)  # fmt: skip
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        sizes = sorted({r.block_bytes for r in members})
        ax.set_xticks(sizes, [size_label(s) for s in sizes])
        ax.set_title(f"{topology.replace('_', ' ')}, {op}", fontsize=10)
        ax.set_ylabel('GiB/s (HIXL\'s "GB/s")')
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, ncol=2)
    for ax in axes[1]:
        ax.set_xlabel("block size (lines: simulator; points: HIXL's figures, hollow: not fitted)")
    fig.suptitle("Transfers on Atlas A3: the atlas_a3 profile on the simulator against HIXL's benchmark", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
