"""The variable-size section of docs/serving.md: the text-line service
(pipelines/serving/textline_batched.yaml: requests of their own width, merged under the padding
rule, run at the smallest of three width gears) against the same service with one gear, the
widest (written here to a temporary folder: every batch padded to 320, what a model compiled
without dynamic width runs), under closed loops of clients. Measured by tools/serving/run.py;
raw results in docs/serving/textlines.json."""

from __future__ import annotations

import tempfile
from pathlib import Path
from statistics import median
from typing import Any

from rich.progress import Progress

from ascgen.codegen.build import build_variant
from ascgen.plan.model import Plan
from ascgen.serving.predict import predict
from tools.serving.server import run_server, spec_variant

SPEC = Path("pipelines/serving/textline_batched.yaml")
INPUTS = Path("pipelines/data/text_lines")
CLIENTS = [1, 8, 32]
GEARS = "hw_gears: [[32, 80], [32, 160], [32, 320]]"
ONE_GEAR = "hw_gears: [[32, 320]]"
NAMES = {"textline_batched": "three width gears", "textline_one_gear": "one gear (32x320)"}


def one_gear_variant(folder: Path) -> Path:
    path = spec_variant(SPEC, folder, GEARS, ONE_GEAR, "textline_one_gear")
    # the requests where the planner finds them from the temporary folder too
    path.write_text(path.read_text().replace(f"inputs: ../data/{INPUTS.name}", f"inputs: {INPUTS.resolve()}"))
    return path


def prediction(plan: Plan, clients: int) -> dict[str, Any]:
    """The planner's prediction (ascgen/serving/predict.py) at ``clients``."""
    p = predict(plan, clients)
    assert plan.serving is not None
    gears = {f"{h}x{w}": share for (h, w), share in zip(plan.serving.hw_gears, p.gear_share, strict=True)}
    return {"qps": p.qps, "p50_ms": p.p50_ms, "p99_ms": p.p99_ms, "mean_batch": p.mean_batch,
            "model_ms": p.model_ms, "gears": gears, "requests": p.requests}  # fmt: skip


def run_once(binary: Path, clients: int, scale: float, duration: float, warmup: float) -> dict[str, Any]:
    doc = run_server(binary, INPUTS, clients, scale, duration, warmup)
    s = doc["serving"]
    padding = s["padding"]
    batches = max(s["batches"], 1)
    return {
        "qps": doc["qps"] * scale,  # model time
        "p50_ms": doc["latency_ms"]["p50"] / scale,
        "p99_ms": doc["latency_ms"]["p99"] / scale,
        "mean_batch": sum(size * n for size, n in s["batch_stats"]) / batches,
        "fill": s["average_fill"],
        "padding_waste": s["padding_waste"],
        # padding to the batch's widest and to the gear, without the model's empty batch slots
        "width_waste": 1 - padding["request_elements"] / padding_within_batch(padding, s),
        # of every batch the batcher formed (warm-up included, as its counters are)
        "shape_break": s["batch_reasons"]["shape_break"] / max(sum(s["batch_reasons"].values()), 1),
        "rule_breaks": padding["rule_breaks"],
        "gears": {f"{h}x{w}": n for h, w, n in sorted(padding["gears"])},
        "cpu_share": doc["process_cpu_s"] / max(doc["duration_s"] + warmup, 1e-9),
    }


def padding_within_batch(padding: dict[str, Any], s: dict[str, Any]) -> float:
    """The elements of the batches' requests at their gears (executed elements less the empty
    slots of the model's batch: the fill)."""
    return max(float(padding["executed_elements"]) * float(s["average_fill"]), 1.0)


def measure(duration: float, warmup: float, repeat: int, scale: float, build_root: Path) -> list[dict[str, Any]]:
    points: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp, Progress(transient=True) as bar:
        specs = [SPEC, one_gear_variant(Path(tmp))]
        task = bar.add_task("text lines", total=len(specs) * len(CLIENTS) * repeat)
        for spec_path in specs:
            bar.update(task, description=f"building {spec_path.stem}")
            built = build_variant(spec_path, build_root=build_root.resolve())
            binary = built.binary
            for clients in CLIENTS:
                bar.update(task, description=f"{spec_path.stem} at {clients} clients")
                runs = []
                for _ in range(repeat):
                    runs.append(run_once(binary, clients, scale, duration, warmup))
                    bar.advance(task)
                numbers = [k for k, v in runs[0].items() if isinstance(v, int | float)]
                points.append(
                    {
                        "name": spec_path.stem, "clients": clients, "time_scale": scale, "repeat": repeat,
                        "duration_s": duration, **{k: median(r[k] for r in runs) for k in numbers},
                        "rule_breaks": sum(r["rule_breaks"] for r in runs),
                        "gears": runs[len(runs) // 2]["gears"], "qps_runs": [r["qps"] for r in runs],
                        "plan": prediction(built.plan, clients),
                    }
                )  # fmt: skip
    return points


def render(points: list[dict[str, Any]]) -> list[str]:
    if not points:
        return []
    scale = points[0]["time_scale"]
    clock = (
        f"the simulated clock {scale:g}x slower (`ACL_SIM_TIME_SCALE`): the figures are model time."
        if scale != 1
        else "wall time."
    )
    lines = [
        "## Variable-size requests: text lines",
        "",
        "`pipelines/serving/textline_batched.yaml` serves text-line recognition (CRNN-like, a model with "
        "`latency_ms: {1: 1.2, 8: 4.8}` at its largest gear) to requests of their own width: 12 grey lines "
        "32 high, 24 to 320 wide (`pipelines/data/make_text_lines.py`), sent in turn by each client. The model "
        "has width gears 80, 160 and 320; a batch runs at the smallest that holds its widest request and takes "
        "that gear's share of the elements of the model's time. Beside it the same service with one gear, "
        "32x320 (a model compiled without dynamic width: every batch padded to 320). Closed loops, "
        f"{points[0]['repeat']} x {points[0]['duration_s']:g} s per point (median), "
        + clock
        + " *padding waste* is the share of the executed model input that was padding (to the batch's widest, "
        "to the gear, and the model's empty batch slots: the batch is 8, without batch gears); *width waste* "
        "leaves the empty slots out; *rule ends* is the share of batches the padding rule ended before they "
        "reached max_batch or the delay.",
        "",
        "| service | clients | QPS | p50 ms | p99 ms | mean batch | fill | padding waste | width waste "
        "| rule ends | batches per gear |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    ordered = sorted(points, key=lambda p: (p["name"], p["clients"]))
    for p in ordered:
        gears = ", ".join(f"{g}: {n}" for g, n in p["gears"].items())
        lines.append(
            f"| {NAMES.get(p['name'], p['name'])} | {p['clients']} | {p['qps']:,.1f} | {p['p50_ms']:.1f} "
            f"| {p['p99_ms']:.1f} | {p['mean_batch']:.1f} | {p['fill']:.2f} | {p['padding_waste']:.0%} "
            f"| {p['width_waste']:.0%} | {p['shape_break']:.0%} | {gears} |"
        )
    lines += predicted_table(ordered)
    breaks = sum(p["rule_breaks"] for p in points)
    top = max(CLIENTS)
    many = {p["name"]: p for p in points if p["clients"] == top}
    if len(many) == 2:
        three, one = many["textline_batched"], many["textline_one_gear"]
        lines += [
            "",
            f"At {top} clients the width gears give {three['qps'] / one['qps']:.2f}x the QPS of one gear "
            f"({three['qps']:,.0f} against {one['qps']:,.0f} requests/s): the same batches (the padding rule "
            "decides them, not the gears) run at a fraction of the widest gear's time. The padding rule keeps "
            "the widths within a batch close, so the width waste stays far below what one gear pads "
            f"({three['width_waste']:.0%} against {one['width_waste']:.0%}); what it costs is batch size: "
            f"{three['shape_break']:.0%} of the batches end at a request the rule keeps out (requests join in "
            "arrival order, as Paddle's do), so a batch holds "
            f"{three['mean_batch']:.1f} requests on average where 8 would fit.",
        ]
    lines += [
        "",
        f"Every run checks every batch again from its requests' own widths: {breaks} batch(es) merged requests "
        "the rule keeps apart, over all runs. `tests/programs/test_serving.py` asserts the same on a run with "
        "`--verify`.",
        "",
    ]
    return lines


def _shares(gears: dict[str, float]) -> str:
    total = sum(gears.values()) or 1
    by_width = sorted(gears.items(), key=lambda g: int(g[0].split("x")[1]))
    return ", ".join(f"{g}: {n / total:.0%}" for g, n in by_width)


def predicted_table(points: list[dict[str, Any]]) -> list[str]:
    """Each point's measurement beside the planner's prediction for it (`ascgen plan`)."""
    planned = [p for p in points if p.get("plan")]
    if not planned:
        return []
    lines = [
        "",
        "Beside the planner's prediction (`ascgen plan`, `ascgen/serving/predict.py` with "
        "`ascgen/serving/requests.py`): the same requests in the same order per client (input (c + k) mod 12 "
        "of the data folder), batched under the same rules, each batch at its gear, at least its bytes at the "
        "memory bandwidth (the 32x80 gear streams 64 MiB of weights: 1.40 ms, not 1.2), between its event tasks "
        "on its stream (`ascgen/serving/device_costs.py`); no fitted parameter. The "
        "clients of a completed batch send their next requests in an order the program leaves to the OS "
        "scheduler; the prediction draws it, the mean of six seeded orders (an arrangement of the requests lasts, "
        "so single runs scatter, the program's as the model's: at 32 clients, runs of 2/3 s measured 548 to 804 "
        "requests/s). What it leaves out is the host: its CPU time "
        "and how long a woken thread takes to run (late wake-ups interleave the requests more: smaller "
        "batches). Measured / predicted:",
        "",
        "| service | clients | QPS | predicted | ratio | p50 ms | predicted | p99 ms | predicted | mean batch "
        "| predicted | batches per gear | predicted |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for p in planned:
        q = p["plan"]
        lines.append(
            f"| {NAMES.get(p['name'], p['name'])} | {p['clients']} | {p['qps']:,.1f} | {q['qps']:,.1f} "
            f"| {p['qps'] / q['qps']:.2f} | {p['p50_ms']:.1f} | {q['p50_ms']:.1f} | {p['p99_ms']:.1f} "
            f"| {q['p99_ms']:.1f} | {p['mean_batch']:.1f} | {q['mean_batch']:.1f} | {_shares(p['gears'])} "
            f"| {_shares(q['gears'])} |"
        )
    worst = max(planned, key=lambda p: abs(p["qps"] / p["plan"]["qps"] - 1))
    lines += [
        "",
        f"The largest miss in QPS: {NAMES.get(worst['name'], worst['name'])} at {worst['clients']} "
        f"client{'s' if worst['clients'] != 1 else ''}, "
        f"measured {worst['qps'] / worst['plan']['qps']:.2f}x the prediction.",
    ]
    return lines
