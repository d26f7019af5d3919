"""``runs.csv``: one row per run, flat columns, for spreadsheets and pandas."""

from __future__ import annotations

import csv
import io

from ascgen.bench.schema import BenchResults

FIELDS = [
    "streams", "batch", "sync_every", "threads", "depth", "clients", "rate", "devices", "deploy", "repeat", "qps",
    "frames", "duration_s",
    "p50_ms", "p90_ms", "p99_ms", "max_ms", "host_cpu_s_per_1000_frames", "process_cpu_s_per_1000_frames",
    "device_memory_bytes", "roofline_qps", "efficiency", "bottleneck", "window_cv", "arrival", "time_scale",
    # a server's (ascgen.bench.schema.Serving); empty for frames
    "offered_rps", "achieved_rps", "submitted", "rejected", "timed_out", "queue_p50_ms", "queue_p99_ms",
    "mean_batch", "gear_shares", "predicted_rps", "predicted_p99_ms", "predicted_mean_batch",
    "predicted_rejected",
    # a video program's (ascgen.bench.schema.Video); empty for others
    "fps_target", "streams_held", "min_fps", "late", "dropped", "held", "predicted_capacity",
]  # fmt: skip


def _cell(value: object) -> object:
    return "" if value is None else value


def render(results: BenchResults) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    for r in results.runs:
        flat = r.model_dump(
            exclude={"latency_ms", "stages", "windows_qps", "windows_latency_ms", "raw", "serving", "video"}
        )
        flat.update({f"{k}_ms": v for k, v in r.latency_ms.model_dump().items()})
        if r.serving is not None:
            flat.update(r.serving.model_dump())
            flat["gear_shares"] = " ".join(f"{name}:{share:.4f}" for name, share in r.serving.gear_shares)
        if r.video is not None:
            flat.update(r.video.model_dump(exclude={"streams"}))  # streams: the layout's column
        writer.writerow({k: _cell(flat.get(k)) for k in FIELDS})
    return buf.getvalue()
