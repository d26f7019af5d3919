"""The probe's report reads at any width: the terminal table never cuts a column name (wrapped
at underscores, or short labels with a legend), and the plot is one figure with a colour per
column, the same in every group."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ascgen.transfers import report
from ascgen.transfers.probe import Row

COLUMNS = ("hccs_d2d", "hccs_h2d_pool", "rdma_h2h_pool", "rdma_d2h", "hccs_d2h_pool_merged")
GROUPS = (("one_host", "write"), ("one_host", "read"), ("two_hosts", "write"))


def rows() -> list[Row]:
    out = []
    for topology, op in GROUPS:
        for i, column in enumerate(COLUMNS):
            for size in (65536, 1 << 20, 16 << 20):
                out.append(Row(column, op, topology, size, "ok", GBps=(i + 1) * size / (size + 65536)))
    return out


def _printed(header: list[str], body: list[list[str]], width: int) -> str:
    shown, legend = report.fitted_header(header, body, width)
    table = Table()
    for h in shown:
        table.add_column(h, justify="right", no_wrap=True)
    for line in body:
        table.add_row(*line)
    sink = io.StringIO()
    console = Console(file=sink, width=width)
    console.print(table)
    console.print("  ".join(legend))
    return sink.getvalue()


def test_full_names_when_they_fit_wrapped_or_a_legend_when_not() -> None:
    (_, header, body), *_ = report.table(rows())
    assert report.fitted_header(header, body, 200) == (header, [])
    wrapped, legend = report.fitted_header(header, body, 75)
    assert legend == [] and [h.replace("\n", "") for h in wrapped] == header and "hccs_\nd2h_\npool_\nmerged" in wrapped
    short, legend = report.fitted_header(header, body, 49)  # one column short of the wrapped names
    assert short == ["block", "A", "B", "C", "D", "E"]
    assert legend == [f"{s}: {h}" for s, h in zip("ABCDE", COLUMNS, strict=True)]
    for width in (200, 75, 49):
        text = _printed(header, body, width)
        assert "…" not in text and max(len(line) for line in text.splitlines()) <= width
        for name in COLUMNS:  # every letter of every name is printed: whole, in pieces, or in the legend
            assert all(part in text for part in name.replace("_", "_\n").split("\n")), (width, name, text)


def test_the_plot_is_one_figure_with_a_colour_per_column(tmp_path: Path) -> None:
    fig = report.figure(rows(), "probe", "GiB")
    assert fig is not None
    (ax,) = fig.axes
    colours: dict[str, set[str]] = {}
    styles: dict[str, set[str]] = {}
    for line in ax.get_lines():
        column, group = line.get_label().lstrip("_").split("|")
        colours.setdefault(column, set()).add(str(line.get_color()))
        styles.setdefault(group, set()).add(str(line.get_linestyle()) + str(line.get_marker()))
    assert sorted(colours) == sorted(COLUMNS) and all(len(c) == 1 for c in colours.values())
    assert len({c.pop() for c in colours.values()}) == len(COLUMNS)  # distinct
    assert len(styles) == len(GROUPS) and len({s.pop() for s in styles.values()}) == len(GROUPS)
    report.plot(rows(), tmp_path / "transfers.png", "probe")
    assert (tmp_path / "transfers.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
