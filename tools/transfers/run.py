"""Regenerates docs/transfers.md and docs/transfers.png.

    python -m tools.transfers                 # fit, probe on the simulator, write the page
    python -m tools.transfers --total 32M     # shorter probe runs

1. Checks ascgen/transfers/hixl_a3_published.yaml against the seed (../shared/calibration/) when
   the seed is there.
2. Fits the link model's parameters on the published figures (ascgen/transfers/fit.py) and
   stops if the atlas_a3 profile does not carry exactly the fitted values.
3. Builds the transfer probe and runs it on the simulator (atlas_a3: every published column at
   64 KiB..16 MiB, the hidden 2 and 8 MiB included; ascend310: the study's merged and unmerged host-to-device copies).
4. Writes the page: the model, its parameters, every figure beside the fit and the simulator.
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

import yaml

from ascgen.dsl import profile
from ascgen.transfers import fit, probe, published
from ascgen.transfers.direction import Direction
from ascgen.transfers.probe import Options, Row
from tools.transfers import report

REPO = Path(__file__).resolve().parents[2]
SEED = REPO.parent / "shared" / "calibration" / "hixl_a3_transfer.yaml"
OUT = REPO / "docs" / "transfers.md"
SIZES = (64 << 10, 256 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20)
STUDY_JPEG = 75825


def check_seed() -> str:
    if not SEED.is_file():
        return f"the seed ({SEED}) is not here: the copy was not checked"
    ours = yaml.safe_load(published.DATA.read_text(encoding="utf-8"))
    theirs = yaml.safe_load(SEED.read_text(encoding="utf-8"))
    if ours != theirs:
        raise SystemExit(f"{published.DATA} differs from the seed {SEED}: copy it again")
    return "the copy equals the seed"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--total", default="128M", help="bytes per probe run (HIXL: 128 MiB)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--time-scale", type=float, default=20.0)
    ap.add_argument("--build", type=Path, default=REPO / "build")
    args = ap.parse_args(argv)
    total = probe.parse_size(args.total)

    seed_note = check_seed()
    figures = published.figures()
    result = fit.fit(figures, progress=lambda i, n: print(f"\rfit: iteration {i}", end="", flush=True))
    print()
    values = fit.rounded(result.values)
    links = profile.load("atlas_a3").links
    if links is None or fit.links_of(values) != links:
        print("the atlas_a3 profile's links differ from the fit; put these in ascgen/profiles/atlas_a3.yaml:")
        for k, v in values.items():
            print(f"  {k}: {v}")
        return 1

    def progress(what: str) -> None:
        print(f"\r{what:<60}", end="", flush=True)

    a3 = Options(profile="atlas_a3", links=("hccs", "rdma"), sizes=SIZES, total_bytes=total, repeat=args.repeat)
    n = len(probe.cases(a3))
    done: list[Row] = []
    binary = probe.build(a3, args.build.resolve(), progress=lambda w, d, t: progress(f"build: {w} {d}/{t}"))

    def on_row(r: Row) -> None:
        done.append(r)
        progress(f"atlas_a3: {len(done)}/{n} {r.column} {r.block_bytes}")

    sim_rows = probe.run(binary, a3, time_scale=args.time_scale, on_row=on_row)
    copies: dict[str, Row] = {}
    for merged in (False, True):
        o = Options(
            profile="ascend310",
            links=("copy",),
            directions=(Direction.H2D,),
            sizes=(STUDY_JPEG,),
            total_bytes=min(total, 64 << 20),
            repeat=args.repeat,
            merged=merged,
        )
        (row,) = probe.run(probe.build(o, args.build.resolve()), o, time_scale=10.0)
        copies["merged" if merged else "unmerged"] = row
        progress(f"ascend310: {'merged' if merged else 'unmerged'} copies")
    print()
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    page = report.page(
        figures=figures,
        hidden=published.figures(published.HIDDEN),
        fitted=result,
        values=values,
        sim_rows=sim_rows,
        copies=copies,
        seed_note=seed_note,
        total=total,
        repeat=args.repeat,
        time_scale=args.time_scale,
        commit=commit.stdout.strip() or "?",
    )
    report.plot(figures, sim_rows, OUT.with_suffix(".png"), hidden=published.figures(published.HIDDEN))
    OUT.write_text(page, encoding="utf-8")
    print(f"wrote {OUT.relative_to(REPO)} and {OUT.with_suffix('.png').relative_to(REPO)}")
    return 0
