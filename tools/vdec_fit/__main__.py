"""Prints the VDEC model fitted on the documented 310 figures and its 720p prediction.

python -m tools.vdec_fit            # the fit for the profile's units and block, and a
                                    # sensitivity table over the block size
python -m tools.vdec_fit --units 4 --block 64
"""

from __future__ import annotations

import argparse
import sys

from tools.vdec_fit import FITTED, HD, MIB, fit, rounded


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.vdec_fit", description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, default=4, help="decoder cores (default 4)")
    parser.add_argument("--block", type=int, default=64, help="tile edge in pixels (default 64)")
    args = parser.parse_args(argv)
    f = rounded(fit(args.units, args.block))
    print(f"engines.vdec: units {f.units}, block {f.block}, frame_us {f.frame_us}, per_block_us {f.per_block_us},")
    print(f"              channel_fixed_bytes {f.channel_fixed_bytes}, channel_frames {f.channel_frames}")
    print("fitted on:")
    for p in FITTED:
        print(
            f"  {p.name:6} documented {p.fps:6.0f} fps {p.channel_mb:5.0f} MB;"
            f" model {f.capacity_fps(p.width, p.height):7.1f} fps {f.channel_bytes(p.width, p.height) / MIB:6.1f} MB"
        )
    fps = f.capacity_fps(HD.width, HD.height)
    mb = f.channel_bytes(HD.width, HD.height) / MIB
    print(
        f"predicted: {HD.name} documented {HD.fps:.0f} fps {HD.channel_mb:.0f} MB; model {fps:.1f} fps "
        f"({(fps / HD.fps - 1) * 100:+.1f} %), {mb:.1f} MB ({(mb / HD.channel_mb - 1) * 100:+.1f} %)"
    )
    print("sensitivity of the 720p prediction to the tile edge:")
    for block in (16, 32, 64):
        g = fit(args.units, block)
        hd = g.capacity_fps(HD.width, HD.height)
        print(f"  block {block:3}: frame_us {g.frame_us:8.1f}  720p {hd:7.1f} fps ({(hd / HD.fps - 1) * 100:+.1f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
