"""``summary.md``: the results as Markdown, fit to paste into a pull request."""

from __future__ import annotations

from ascgen.bench import breakdown, report
from ascgen.bench.markdown_table import table_lines
from ascgen.bench.schema import BenchResults
from ascgen.bench.video import capacity_line

SERVING_NOTE = (
    "A server: achieved r/s is requests completed per second (median over repeats), offered r/s those "
    "submitted; rejected and timed out are summed over the repeats; queue p50/p99 is a request's wait for "
    "its batch; gears, each gear's share of the batches (HxW a height x width gear, bN the dynamic batch "
    "gear N a batch ran at); predicted, the plan's prediction for the point's load (requests/s, p99 ms, "
    "mean batch, the share rejected; ascgen/serving/predict.py). With a time_scale the figures are the "
    "simulated device's time. A point that rejected requests or missed the SLO is never best."
)


def render(results: BenchResults, plots: list[str] | None = None) -> str:
    c = results.context
    lines = [f"### ascgen bench: `{c.spec}`", "", report.context_line(results) + f"; started {c.started_at}.", ""]
    lines += table_lines(report.columns(results.summary), report.rows(results.summary))
    lines += ["", "QPS: median over repeats (frames/s); CV: across repeats; roofline: the planner's predicted "
              "ceiling; CPU s/1k fr: host CPU seconds of the program's threads per 1000 frames."]  # fmt: skip
    if any(s.serving is not None for s in results.summary):
        lines += ["", SERVING_NOTE]
    merged = [s.latency_merged for s in results.summary]
    if merged:
        how = "all frames of every repeat" if all(merged) else "the median of the repeats' own percentiles"
        lines += ["", f"Latency (p50/p99): {how}."]
    if len(results.summary) > 1:
        lines += ["", report.best_line(results).replace("best: ", "Best: ", 1) + "."]
    capacity = capacity_line(results.summary)
    if capacity is not None:
        lines += ["", capacity[0].upper() + capacity[1:] + "."]
    if results.slo:
        gates = ", ".join(f"{k} {v:g}" for k, v in results.slo.items())
        if results.slo_misses:
            lines += ["", f"**SLO missed** ({gates}):"]
            lines += [f"- {m.config}: {m.what}" for m in results.slo_misses]
        else:
            lines += ["", f"SLO met by every configuration ({gates})."]
    if results.warnings:
        lines += ["", "**Warnings** (treat these numbers with care):"]
        lines += [f"- {w}" for w in results.warnings]
    lines += breakdown.markdown_lines(results)
    if plots:
        lines += ["", "Plots: " + ", ".join(f"`{p}`" for p in plots)]
    return "\n".join(lines) + "\n"
