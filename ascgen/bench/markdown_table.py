"""A Markdown table's lines: what summary.md, the tune report and the comparison print tables with."""

from __future__ import annotations


def table_lines(header: list[str], body: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(cells) + " |" for cells in body]
