"""Writes the simulator's rule header and README tables from the rule table.

    python -m tools.sim_rules           # rewrite simulator/src/rules/rule_table.h and the README tables
    python -m tools.sim_rules --check   # change nothing; exit 1 naming what is out of date

Edit simulator/src/rules/rule_table.yaml (one entry per rule id), then run this.
"""

from __future__ import annotations

import argparse
import sys

from tools.sim_rules import render
from tools.sim_rules.table import SIMULATOR, SRC, TableError, load

HEADER = SRC / "rules" / render.HEADER_NAME
README = SIMULATOR / "README.md"


def expected() -> dict[str, str]:
    """Path (relative to the repository) -> the text the table gives it."""
    entries = load()
    return {
        "simulator/src/rules/rule_table.h": render.header(entries),
        "simulator/README.md": render.readme(README.read_text(encoding="utf-8"), entries),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.sim_rules", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file is out of date")
    args = parser.parse_args(argv)
    try:
        files = expected()
    except (TableError, ValueError) as e:
        print(f"tools.sim_rules: {e}", file=sys.stderr)
        return 2
    stale = [name for name, text in files.items() if (SIMULATOR.parent / name).read_text(encoding="utf-8") != text]
    if args.check:
        for name in stale:
            print(f"{name} is out of date: run python -m tools.sim_rules", file=sys.stderr)
        return 1 if stale else 0
    for name in stale:
        (SIMULATOR.parent / name).write_text(files[name], encoding="utf-8")
        print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
