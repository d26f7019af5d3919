"""Calibrates the simulator's ascend310 profile against the published study.

    python simulator/bench/calibrate.py            # build, run every probe, write docs/calibration.{md,png}
    python simulator/bench/calibrate.py --check    # also exit 1 if a gated ratio is outside 0.85..1.15

Builds the probes (simulator/bench/calib_probe.cpp) with CMake + Ninja at -j2 in
build/calib, runs each published experiment of the seed file
(../shared/calibration/ascend310_seed.yaml: `components` and `model_batch_sweep`,
plus `pipeline_single_batch` for the simulator's CPU per frame) on the profile
exported from ascgen/profiles/ascend310.yaml, and writes a side-by-side table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import calibration_plot

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build" / "calib"
SEED = REPO.parent / "shared" / "calibration" / "ascend310_seed.yaml"
OUT = REPO / "docs" / "calibration.md"
PLOT = OUT.with_suffix(".png")
LOW, HIGH = 0.85, 1.15

# The published figures (copied from the seed file, which is checked against
# them when present): experiment -> (what is timed, seconds, frames or copies).
COMPONENTS = {
    "model_sync": ("aclmdlExecute x801, batch 1, whole process (load included)", 3.143, 801),
    "model_async": ("aclmdlExecuteAsync x801 on one stream, one sync", 2.006, 801),
    "h2d_merged": ("800 aclrtMemcpyAsync of 73.25 MB (58.6 GB)", 19.58, 800),
    "h2d_unmerged": ("800 aclrtMemcpyAsync of 75,825 bytes", 0.29, 800),
    "jpegd_async_one_stream": ("acldvppJpegDecodeAsync x801 (1024x1536), one stream", 2.223, 801),
}
BATCH_SWEEP = {14: 3.425, 16: 2.788, 18: 4.350, 20: 4.830, 24: 6.000, 28: 7.009, 32: 6.577, 64: 16.216}
BATCH_OUTLIER = {8: 16.231}  # "treat it as an outlier" (seed file)
PIPELINE_QPS = {1: 166, 2: 307, 4: 332, 6: 371, 8: 335}
# Not gated: only the outlier (BATCH_OUTLIER). model_sync is timed from aclInit, so
# the device open (engines.host.device_open_ms) and the model load count, as in the study.
UNGATED: set[str] = set()
# Probes whose per-task pixel or copy work is large run in real time; the others at 1/4.
SCALE = {"h2d_merged": 1.0, "h2d_unmerged": 1.0, "jpegd_async_one_stream": 1.0, "pipeline": 1.0, "model_sync": 1.0}


@dataclass
class Row:
    name: str
    what: str
    published: float
    simulated: float
    gated: bool = True
    unit: str = "s"

    @property
    def ratio(self) -> float:
        return self.simulated / self.published

    @property
    def ok(self) -> bool:
        return not self.gated or LOW <= self.ratio <= HIGH


def run(cmd: list[str], env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        sys.exit(f"calibrate: {' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc.stdout


def build() -> tuple[Path, Path]:
    BUILD.mkdir(parents=True, exist_ok=True)
    flat = BUILD / "ascend310.flat"
    flat.write_text(run([sys.executable, "-m", "ascgen", "profile", "ascend310", "--flat"]))
    run(["cmake", "-G", "Ninja", "-S", str(REPO / "simulator"), "-B", str(BUILD), "-DCMAKE_BUILD_TYPE=Release"])
    run(["cmake", "--build", str(BUILD), "-j2", "--target", "acl_sim_calib", "acl_sim_imaging_tool"])
    return BUILD / "bench" / "acl_sim_calib", flat


def pixel_costs(binary: Path) -> dict:
    """Thread CPU of the pixel kernels and caches on the study JPEG (imaging tool bench)."""
    jpeg = BUILD / "study.jpg"
    run([str(binary), "write_jpeg", str(jpeg)])
    out = run([str(BUILD / "imaging" / "acl_sim_imaging_tool"), "bench", str(jpeg), "--iters", "5"])
    return json.loads(out.strip().splitlines()[-1])


def probe(binary: Path, flat: Path, *args: str, scale: float = 0.25) -> dict:
    env = dict(os.environ, ACL_SIM_PROFILE=str(flat), ACL_SIM_TIME_SCALE=str(scale), ACL_SIM_LOG="none")
    out = run([str(binary), *args], env=env)
    return json.loads(out.strip().splitlines()[-1])


def check_seed() -> str:
    """Cross-checks the embedded figures against the seed file when it is present.

    The seed is read as text (its notes are not strict YAML): each component's
    `wall_s:`/`loop_s:` line after its key, and the `<batch>: <seconds>` lines of
    model_batch_sweep."""
    if not SEED.exists():
        return f"embedded copy of the seed figures ({SEED} not found)"
    text = SEED.read_text().splitlines()
    found: dict[str, float] = {}
    current = None
    section = None
    for line in text:
        body = line.split("#", 1)[0].rstrip()
        m = re.match(r"^(\w+):", body)
        if m:
            section = m.group(1)
            continue
        m = re.match(r"^  (\w+):", body)
        if m and section == "components":
            current = m.group(1)
        m = re.match(r"^\s+(wall_s|loop_s):\s*([0-9.]+)", body)
        if m and section == "components" and current in COMPONENTS:
            found[current] = float(m.group(2))
        m = re.match(r"^  (\d+):\s*([0-9.]+)", body)
        if m and section == "model_batch_sweep":
            found[f"batch {m.group(1)}"] = float(m.group(2))
    want = {k: v[1] for k, v in COMPONENTS.items()} | {f"batch {b}": s for b, s in BATCH_SWEEP.items()}
    bad = [k for k, v in want.items() if found.get(k) is None or abs(found[k] - v) > 1e-9]
    if bad:
        sys.exit(f"calibrate: embedded figures differ from {SEED}: {bad}")
    return f"the seed file ({SEED.name}), cross-checked"


def measure(binary: Path, flat: Path) -> tuple[list[Row], list[Row], list[dict], dict[str, dict]]:
    raw: dict[str, dict] = {}
    rows = []
    for name, (what, published, _) in COMPONENTS.items():
        r = probe(binary, flat, name, scale=SCALE.get(name, 0.25))
        raw[name] = r
        rows.append(Row(name, what, published, r["model_s"], gated=name not in UNGATED))
    for batch, published in sorted({**BATCH_SWEEP, **BATCH_OUTLIER}.items()):
        r = probe(binary, flat, "model_batch", str(batch))
        raw[f"model_batch_{batch}"] = r
        what = f"128 x aclmdlExecuteAsync at batch {batch}" + (" (outlier)" if batch in BATCH_OUTLIER else "")
        rows.append(Row(f"batch {batch}", what, published, r["model_s"], gated=batch not in BATCH_OUTLIER))
    pipes = []
    qps_rows = []
    for threads, qps in PIPELINE_QPS.items():
        r = probe(binary, flat, "pipeline", str(threads), "--frames", "256", scale=SCALE["pipeline"])
        r["threads"] = threads
        pipes.append(r)
        sim_qps = r["frames"] / r["model_s"]
        qps_rows.append(Row(f"{threads} thread(s)", "QPS", qps, sim_qps, unit="QPS"))
    return rows, qps_rows, pipes, raw


def flat_value(flat: Path, key: str) -> str:
    for line in flat.read_text().splitlines():
        if line.startswith(key + "="):
            return line.split("=", 1)[1]
    return "?"


def engine_rows(f: Callable[[str], str]) -> list[str]:
    """The engine table's rows, figures from the flat profile."""
    h2d, d2d = "engines.h2d.", "engines.d2d."
    jpegd, vpc = "engines.jpegd.", "engines.vpc."
    return [
        f"| H2D / D2H copy | {f(h2d + 'units')} / {f('engines.d2h.units')} | "
        f"latency_us ({f(h2d + 'latency_us')}) + bytes / bandwidth ({f(h2d + 'bandwidth_GBps')} GB/s) |",
        f"| D2D copy | {f(d2d + 'units')} | {f(d2d + 'latency_us')} us + bytes / {f(d2d + 'bandwidth_GBps')} GB/s |",
        f"| JPEGD | {f(jpegd + 'units')} | "
        f"base_us ({f(jpegd + 'base_us')}) + per_mpixel_us ({f(jpegd + 'per_mpixel_us')}) x source megapixels |",
        f"| VPC | {f(vpc + 'units')} | "
        f"base_us ({f(vpc + 'base_us')}) + per_mpixel_us ({f(vpc + 'per_mpixel_us')}) x output megapixels |",
        f"| AI Core | {f('engines.aicore.units')} | "
        "the model's latency_ms at its batch (interpolated between listed batches), plus "
        f"switch_us ({f('engines.aicore.switch_us')}) when the unit's previous task came from another stream |",
    ]


def report(
    rows: list[Row], qps_rows: list[Row], pipes: list[dict], raw: dict[str, dict], flat: Path, seed_note: str, px: dict
) -> str:
    def f(key: str) -> str:
        return flat_value(flat, key)

    jd = raw["jpegd_async_one_stream"]
    decode_us = float(f("engines.jpegd.base_us")) + float(f("engines.jpegd.per_mpixel_us")) * 1.572864
    lines = [
        "# Simulator calibration: ascend310 against the published study",
        "",
        "<!-- Generated by `python simulator/bench/calibrate.py`; do not edit. -->",
        "",
        "Each published experiment (`components` and `model_batch_sweep` of the study's seed file) is",
        "repeated by a probe program (`simulator/bench/calib_probe.cpp`) on the simulator with the",
        "profile exported from `ascgen/profiles/ascend310.yaml`. Simulated times are model time",
        f"(the device timeline's clock). A ratio is simulated / published; gated rows must lie in {LOW}..{HIGH}.",
        f"Published figures: {seed_note}.",
        "",
        f"![every row's ratio, and the batch-1 pipeline by threads]({PLOT.name})",
        "",
        "| experiment | what is timed | published | simulated | ratio | |",
        "|---|---|---:|---:|---:|---|",
    ]
    for r in rows:
        mark = "ok" if r.gated and r.ok else ("OUT OF RANGE" if r.gated else "not gated")
        lines.append(f"| {r.name} | {r.what} | {r.published:.3f} s | {r.simulated:.3f} s | {r.ratio:.3f} | {mark} |")
    lines += [
        "",
        "Not gated: **batch 8** (the study calls its 16.231 s an outlier; the profile interpolates",
        "between batch 1 and 14). **model_sync** is timed like the study, over the whole process:",
        "from `aclInit`, so it includes opening the device (`engines.host.device_open_ms` ="
        f" {f('engines.host.device_open_ms')} ms, paid by the first `aclrtSetDevice`), the model load",
        "(the weights' upload over H2D, ~40 ms for 115 MB) and 801 synchronous executions. The",
        "device-open figure is fitted to this row alone (3.143 s against 2.006 s of asynchronous",
        "executions); no other published figure constrains it.",
        "",
        "## Pipeline (copy -> JPEGD -> VPC -> ResNet-50 at batch 1, one stream per thread, 64 frames per sync)",
        "",
        "A calibration target (gated like the rows above): `pipeline_single_batch.threads_to_qps`.",
        "256 frames per thread, real time (ACL_SIM_TIME_SCALE=1). One profile explains every point:",
        "up to 2 threads the lanes' serial chain limits (one frame ~6.2 ms per stream); from 4",
        "threads the AI Core, whose executions then alternate between the lanes' streams and each",
        f"pay `engines.aicore.switch_us` = {f('engines.aicore.switch_us')} us (see below). The generated program of",
        "`pipelines/ascend310/study_b1_per_thread.yaml` reproduces the same points under",
        "`ascgen bench` (docs/performance.md).",
        "",
        "| threads | published QPS | simulated QPS | ratio | | process CPU per frame | device thread CPU per frame |",
        "|---:|---:|---:|---:|---|---:|---:|",
    ]
    for q, p in zip(qps_rows, pipes, strict=True):
        lines.append(
            f"| {p['threads']} | {q.published:.0f} | {q.simulated:.0f} | {q.ratio:.2f} | "
            f"{'ok' if q.ok else 'OUT OF RANGE'} | "
            f"{p['process_cpu_s'] / p['frames'] * 1e3:.3f} ms | "
            f"{p['device_thread_cpu_s'] / p['frames'] * 1e3:.3f} ms |"
        )
    lines += [
        "",
        "## The model of the engines",
        "",
        "Every device task passes the single task scheduler (`engines.scheduler.per_task_us` ="
        f" {f('engines.scheduler.per_task_us')} us, serial across all streams), then occupies one unit of",
        "its engine for its service time; tasks of one stream run in order, events gate across",
        f"streams, and each async call costs the host `engines.host.submit_us` = {f('engines.host.submit_us')} us.",
        "",
        "| engine | units | service time of one task |",
        "|---|---:|---|",
        *engine_rows(f),
        "",
        f"So one 1024x1536 decode takes {decode_us:.0f} us on a JPEGD unit; with {f('engines.jpegd.units')} units",
        f"JPEGD sustains {float(f('engines.jpegd.units')) * 1e6 / decode_us:.0f} decodes/s",
        "(the study's decode front end reached ~760 fps with 8 lanes). These are the formulas of",
        "ascgen's planner (`ascgen/throughput.py`), so a plan's predicted bottleneck and the",
        "simulated one agree.",
        "",
        "**Why a stream switch on the AI Core.** With one stream the model alone runs at ~400 QPS",
        "(2.504 ms per execution, `model_async`), yet the study's batch-1 pipeline levels off at",
        "332-371 QPS from 4 threads with the AI Core 87-93 % busy: AI Core time goes to something",
        "other than the model once several streams feed it. The study blames the device task",
        "scheduler; the profile models it as a per-execution cost paid when consecutive AI Core",
        "tasks come from different streams (switching the stream's model context), fitted to the",
        "middle of the 4-8 thread plateau: 1 / (2.504 + 0.350 ms) = 350 QPS. Before it, 4 and 8",
        "threads simulated ~387 QPS (ratio 1.16; the generated program, measured at its steady",
        "completion rate, 1.19). It costs 1.6 % at batch 16 (21.78 ms per execution), and nothing",
        "to the batch sweep and the model-alone probes (one stream). Not modelled: the further drop",
        "at 8 threads (335 QPS; a scheduler cost growing with the number of busy streams would fit",
        "it but would also penalise per_stage layouts, which the study did not measure at batch 1)",
        "at batch 64 with 800 executions per sync (host submit thread pegged).",
        "",
        "## The simulator's own CPU",
        "",
        f"- JPEGD, one stream, 801 decodes of the same {jd['jpeg_bytes']:,}-byte JPEG: device thread"
        f" {jd['device_thread_cpu_s'] / jd['frames'] * 1e3:.3f} ms CPU per decode, everything included (the",
        "  timeline's own cost per task, one real libjpeg-turbo decode, then per frame the ash64 of the",
        "  JPEG, a decode-cache lookup and, as the output slot still holds that frame (content tag and",
        "  ~1 KiB fingerprint match), no copy; a slot holding other content gets the cached frame copied).",
        f"- Pixel kernels on that JPEG ({px['width']}x{px['height']}, thread CPU, `acl_sim_imaging_tool bench`):"
        f" real decode {px['decode_ms']:.2f} ms, ash64 of the JPEG {px['hash_jpeg_us']:.1f} us,"
        f" decode-cache hit with hashing {px['decode_cache_hit_us']:.1f} us,"
        f" resize to 224x224 {px['resize_224_ms']:.3f} ms,"
        f" resize-cache hit + paste {px['resize_cache_hit_paste_us']:.1f} us.",
        "- VPC reuses the resize cache when its source was written by JPEGD (content tag), else it",
        "  resamples directly (cheaper than hashing an unknown source).",
        "- Pipeline (the seed workload at batch 1): see the CPU columns above; the process figure",
        "  includes the probe's own host threads.",
        "",
        f"Host: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}.",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 if a gated ratio is out of range")
    args = parser.parse_args()
    seed_note = check_seed()
    binary, flat = build()
    rows, qps_rows, pipes, raw = measure(binary, flat)
    px = pixel_costs(binary)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(report(rows, qps_rows, pipes, raw, flat, seed_note, px))
    calibration_plot.write(rows, qps_rows, [p["threads"] for p in pipes], (LOW, HIGH), PLOT)
    for r in [*rows, *qps_rows]:
        print(
            f"{r.name:24s} published {r.published:8.3f}  simulated {r.simulated:8.3f}  ratio {r.ratio:.3f}"
            f"{'' if r.ok else '  OUT OF RANGE'}"
        )
    print(f"wrote {OUT.relative_to(REPO)}")
    bad = [r.name for r in [*rows, *qps_rows] if not r.ok]
    return 1 if bad and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
