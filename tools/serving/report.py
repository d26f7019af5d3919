"""docs/serving.md and its plot from the measured points (tools/serving/run.py): the text of
tools/serving/intro.md, then the experiment's table, the curve and what they show."""

from __future__ import annotations

from pathlib import Path
from typing import Any

INTRO = Path(__file__).with_name("intro.md")
TARGET = 1.5  # batched over unbatched QPS at 70 clients (issue 16's "done when")
# Paddle Serving's published experiment (ResNet-50, 70 clients, asynchronous mode's batching)
PADDLE_QPS_GAIN = 1.05
PADDLE_LATENCY_COST = 0.34


def by_spec(points: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for p in sorted(points, key=lambda p: (p["name"], p["clients"])):
        out.setdefault(p["name"], []).append(p)
    return out


def at(points: list[dict[str, Any]], name: str, clients: int) -> dict[str, Any]:
    return next(p for p in points if p["name"] == name and p["clients"] == clients)


def knee(pts: list[dict[str, Any]]) -> dict[str, Any]:
    """The lightest load whose QPS is within 1 % of the highest (ascgen.bench.report.best)."""
    top = max(p["qps"] for p in pts)
    return min((p for p in pts if p["qps"] >= 0.99 * top), key=lambda p: p["clients"])


def plot(points: list[dict[str, Any]], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), dpi=120)
    for i, (name, pts) in enumerate(by_spec(points).items()):
        color = f"C{i}"
        xs = [p["clients"] for p in pts]
        axes[0].plot(xs, [p["qps"] for p in pts], marker="o", color=color, label=f"{name}, measured")
        axes[0].plot(xs, [p["plan"]["qps"] for p in pts], linestyle="--", color=color, alpha=0.7,
                     label=f"{name}, predicted")  # fmt: skip
        q, l99 = [p["qps"] for p in pts], [p["p99_ms"] for p in pts]
        axes[1].plot(q, l99, marker="o", color=color, label=f"{name}, measured")
        axes[1].plot([p["plan"]["qps"] for p in pts], [p["plan"]["p99_ms"] for p in pts], linestyle="--",
                     color=color, alpha=0.7, label=f"{name}, predicted")  # fmt: skip
        for p in pts:
            axes[1].annotate(f"{p['clients']}", (p["qps"], p["p99_ms"]), textcoords="offset points", xytext=(4, 4),
                             fontsize=7, color=color)  # fmt: skip
        k = knee(pts)
        axes[1].plot([k["qps"]], [k["p99_ms"]], marker="*", ms=15, color="gold", markeredgecolor="black", zorder=5)
    axes[0].set_xlabel("clients (closed loop)")
    axes[0].set_ylabel("requests/s")
    axes[0].set_title("throughput against load")
    axes[1].set_xlabel("achieved requests/s")
    axes[1].set_ylabel("p99 latency (ms)")
    axes[1].set_title("latency against throughput (labels: clients; star: knee)")
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def table(points: list[dict[str, Any]]) -> list[str]:
    lines = [
        "| service | clients | QPS | runs | p50 ms | p99 ms | queue p50 ms | mean batch | predicted QPS "
        "| predicted p50 / p99 ms | QPS of prediction | host cores busy |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, pts in by_spec(points).items():
        for p in pts:
            plan = p["plan"]
            runs = ", ".join(f"{q:,.1f}" for q in p["qps_runs"])
            lines.append(
                f"| {name} | {p['clients']} | {p['qps']:,.1f} | {runs} | {p['p50_ms']:.1f} | {p['p99_ms']:.1f} "
                f"| {p['queue_p50_ms']:.2f} | {p['mean_batch']:.1f} | {plan['qps']:,.1f} "
                f"| {plan['p50_ms']:.1f} / {plan['p99_ms']:.1f} | {100 * p['qps'] / plan['qps']:.0f} % "
                f"| {p['cpu_share']:.2f} |"
            )
    return lines


def ratios(points: list[dict[str, Any]]) -> list[str]:
    lines = ["| clients | QPS batched / unbatched | p50 latency batched / unbatched | predicted QPS ratio |",
             "|---:|---:|---:|---:|"]  # fmt: skip
    for clients in sorted({p["clients"] for p in points}):
        b, u = at(points, "resnet50_batched", clients), at(points, "resnet50_unbatched", clients)
        lines.append(
            f"| {clients} | {b['qps'] / u['qps']:.2f}x | {b['p50_ms'] / u['p50_ms']:.2f}x "
            f"| {b['plan']['qps'] / u['plan']['qps']:.2f}x |"
        )
    return lines


def render(points: list[dict[str, Any]], plot_path: str) -> str:
    first = points[0]
    scale = first["time_scale"]
    b70, u70 = at(points, "resnet50_batched", 70), at(points, "resnet50_unbatched", 70)
    gain = b70["qps"] / u70["qps"]
    b1, u1 = at(points, "resnet50_batched", 1), at(points, "resnet50_unbatched", 1)
    b8, u8 = at(points, "resnet50_batched", 8), at(points, "resnet50_unbatched", 8)
    b32 = at(points, "resnet50_batched", 32)
    pb, pu = b70["plan"], u70["plan"]
    busiest = max(p["cpu_share"] for p in points)
    clock = (
        "wall time is model time (no `ACL_SIM_TIME_SCALE`)"
        if scale == 1
        else f"the simulated clock runs {scale:g}x slower (`ACL_SIM_TIME_SCALE={scale:g}`); the figures are model time"
    )
    out = [
        INTRO.read_text().rstrip(),
        "",
        "## Batched against unbatched: the seed's experiment",
        "",
        "Paddle Serving's asynchronous mode published the experiment (ResNet-50, 70 clients: "
        f"{PADDLE_QPS_GAIN:+.0%} QPS,",
        f"{PADDLE_LATENCY_COST:+.0%} latency; no gain with 1-10 clients). Here it is on the simulated Ascend 310, "
        "with the",
        f"seed's pipeline (1024x1536 JPEG -> JPEGD -> VPC 224x224 -> ResNet-50 -> top-5), {pb['threads']} host",
        "threads, one model instance: `pipelines/serving/resnet50_unbatched.yaml` (model batch 1, one",
        f"request per execution) and `pipelines/serving/resnet50_batched.yaml` (batches of up to {pb['max_batch']},",
        f"a {pb['delay_ms']:g} ms queue delay, padded to the model's batch of {pb['batch']}), closed loops of 1 to 70",
        f"clients, {first['repeat']} x {first['duration_s']:g} s per point (median), {clock}. The",
        f"program's busiest point kept {busiest:.2f} of the host's two cores busy, so its own CPU",
        '(70 client threads and the simulator) did not limit the figures. "predicted" is',
        "`ascgen plan`'s prediction (`ascgen/serving_predict.py`: the batcher's rule over the plan's",
        "engines and streams, no fitted parameter).",
        "",
        *table(points),
        "",
        *ratios(points),
        "",
        f"At 70 clients batching gives **{gain:.2f}x** the unbatched QPS ({b70['qps']:,.1f} against "
        f"{u70['qps']:,.1f} requests/s; the issue asks for at least {TARGET:g}x), and its p50 latency is "
        f"{b70['p50_ms']:.1f} ms against {u70['p50_ms']:.1f} ms.",
        "",
        f"![throughput against clients, and p99 latency against achieved throughput]({plot_path})",
        "",
        "## Where the simulator's shape differs from Paddle's",
        "",
        f"- **The gain under load is bounded by the model**: {gain - 1:+.0%} here against Paddle's "
        f"{PADDLE_QPS_GAIN:+.0%}. The simulated 310 (the profile's figures) runs ResNet-50 at batch 1 in "
        f"{pu['model_ms']:g} ms ({pu['model_qps']:,.0f} images/s) and at batch {pb['batch']} in {pb['model_ms']:g} ms "
        f"({pb['model_qps']:,.0f} images/s); the plan's bottleneck at both is {pb['bottleneck']} "
        f"(JPEGD sustains {pb['decode_qps']:,.0f} images/s): batching can multiply throughput by "
        f"{pb['model_qps'] / pu['model_qps']:.2f} at most, and the predicted ratio at 70 clients is "
        f"{b70['plan']['qps'] / u70['plan']['qps']:.2f}. Paddle's {PADDLE_QPS_GAIN:+.0%} needs a model whose batched "
        "throughput is more than twice its single-request throughput.",
        f"- **Latency falls under load instead of rising**: at 70 clients the batched p50 is "
        f"{b70['p50_ms'] / u70['p50_ms'] - 1:+.0%} against the unbatched one (Paddle: {PADDLE_LATENCY_COST:+.0%}). "
        "In a closed loop with no think time, latency is clients over throughput (Little's law: the",
        f"  unbatched service is saturated at {u70['qps']:,.0f} requests/s, so 70 requests take "
        f"{70 / u70['qps'] * 1e3:.0f} ms; the batched one serves them {gain:.2f}x as fast). A latency cost at 70",
        "  clients, as Paddle's, means its unbatched service was not yet saturated there; the published",
        "  figures do not say what limited it.",
        f"- **Light load costs more than nothing**: at 1 client batched runs {b1['qps'] / u1['qps']:.2f}x the "
        f"unbatched QPS ({b1['p50_ms']:.1f} ms against {u1['p50_ms']:.1f} ms), and at 8 clients "
        f"{b8['qps'] / u8['qps']:.2f}x. Paddle saw neither gain nor loss there. Two causes, both in the plan: a lone "
        f"request waits the {pb['delay_ms']:g} ms queue delay for company, then runs padded to {pb['batch']} (the "
        f"model has no dynamic batch gears, so a batch of 1 costs the {pb['model_ms']:g} ms of {pb['batch']}: "
        f"{1 - 1 / pb['batch']:.0%} of its work is padding). A model compiled with batch gears would run a lone",
        "  request at batch 1; the simulator refuses `aclmdlSetDynamicBatchSize` on a static model, as the",
        "  device does, and its models have no gears yet.",
        f"- **A batch's decodes run one after another on its thread's stream**: a batch of {pb['batch']} spends "
        f"{pb['batch'] * pb['decode_ms']:.0f} ms in JPEGD before the model sees it. With {pb['threads']} threads "
        f"the decoders keep up with the model, but a batch waits for its thread's previous one: the",
        f"  batches fill only when more requests wait than the {pb['slots']} slots hold in flight "
        f"({pb['slots']} x {pb['max_batch']} = {pb['slots'] * pb['max_batch']}); at 32 clients they hold "
        f"{b32['mean_batch']:.1f} requests on average (predicted {b32['plan']['mean_batch']:.1f}), the",
        f"  prediction's largest miss ({100 * b32['qps'] / b32['plan']['qps']:.0f} % of its QPS).",
        "",
    ]
    return "\n".join(out)
