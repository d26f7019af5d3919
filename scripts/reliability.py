"""Regenerates docs/reliability.md: a soak run of the seed example, plus the reliability tests' figures.

    python scripts/reliability.py [--minutes 10] [--no-tests | --no-soak]

The soak builds pipelines/resnet50_b16.yaml on the simulator, runs it for --minutes, samples
its resident memory (RSS) and QPS every second, and reports RSS growth after the warm-up and
QPS drift. The test figures come from running the fault-injection, sanitizer and program tests
with a JUnit report (skip them with --no-tests to only refresh the soak; --no-soak reuses the
last soak's samples, kept in docs/reliability_soak.json).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from ascgen.codegen.build import build_variant

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from build_dirs import TEST_BUILD  # noqa: E402  (where the tests build, and so the hazard programs)

DOCS = REPO / "docs"
SPEC = REPO / "pipelines" / "resnet50_b16.yaml"
PROGRESS = re.compile(r"progress: t=([0-9.]+)s frames=(\d+) qps=([0-9.]+)")
WARMUP_S = 30
SOAK_JSON = DOCS / "reliability_soak.json"  # the last soak's samples, for --no-soak


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def soak(minutes: float) -> dict[str, object]:
    binary = build_variant(SPEC, build_root=REPO / "build").binary
    proc = subprocess.Popen(
        [str(binary), "--duration", str(minutes * 60), "--warmup", "2", "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    samples: list[tuple[float, int]] = []
    t0 = time.monotonic()
    while proc.poll() is None:
        try:
            samples.append((time.monotonic() - t0, rss_kib(proc.pid)))
        except (FileNotFoundError, ProcessLookupError):
            break
        time.sleep(1.0)
    _, err = proc.communicate()
    qps = [(float(m.group(1)), float(m.group(3))) for m in PROGRESS.finditer(err or "")]
    return {"returncode": proc.returncode, "rss": samples, "qps": qps, "minutes": minutes}


TEST_FILES = ["tests/programs/test_faults.py", "tests/programs/test_sanitizers.py", "tests/programs/test_programs.py",
              "tests/programs/test_mutants.py", "tests/simulator/test_ctest.py"]  # fmt: skip


def test_figures() -> dict[str, int]:
    """Runs the reliability tests with a JUnit report and counts what they tried and what passed."""
    report = TEST_BUILD / "reliability-junit.xml"
    files = [f for f in TEST_FILES if (REPO / f).exists()]
    # Every example, not the test suite's representative subset (tests/programs/program_harness.py).
    env = {**os.environ, "ASCGEN_ALL_SPECS": "1"}
    cmd = [sys.executable, "-m", "pytest", "-q", *files, f"--junitxml={report}"]
    subprocess.run(cmd, cwd=REPO, env=env, check=False)
    counts = dict.fromkeys(["fault_runs", "fault_runs_ok", "sanitizer_runs", "sanitizer_passed",
                            "mutants_needed", "mutants_caught", "mutants_as_races", "mutants_as_rules", "program_tests",
                            "program_tests_passed", "sim_suites", "sim_suites_passed"], 0)  # fmt: skip
    for case in ET.parse(report).getroot().iter("testcase"):
        if any(child.tag == "skipped" for child in case):
            continue
        ok = not any(child.tag in ("failure", "error") for child in case)
        recorded = {prop.get("name", "") for prop in case.iter("property")}
        for prop in case.iter("property"):
            if prop.get("name") in counts:
                counts[prop.get("name", "")] += int(prop.get("value", "0"))
        kind = case.get("classname", "").rsplit(".", 1)[-1]
        if kind == "test_faults" and "fault_runs" not in recorded:
            counts["fault_runs"] += 1  # the sweep died before counting (timeout, crash): unhandled
        key = {"test_sanitizers": "sanitizer", "test_programs": "program_tests", "test_ctest": "sim_suites"}.get(kind)
        if key == "sanitizer":
            counts["sanitizer_runs"] += 1
            counts["sanitizer_passed"] += ok
        elif key:
            counts[key] += 1
            counts[f"{key}_passed"] += ok
    counts.update(hazard_cases())
    return counts


def hazard_cases() -> dict[str, int]:
    """The simulator's hand-written hazard programs (ctest group sim.hazard, built by test_ctest)."""
    binary = TEST_BUILD / "sim-plain" / "tests" / "sim_unit"  # built by the tests above
    if not binary.exists():
        return {"hazard_cases": 0, "hazard_cases_passed": 0, "hazards_reported": 0}
    out = subprocess.run([str(binary), "hazard"], capture_output=True, text=True, check=False)
    text = out.stdout + out.stderr
    return {
        "hazard_cases": text.count("[ RUN  ]"),
        "hazard_cases_passed": text.count("[  OK  ]"),
        "hazards_reported": len(re.findall(r"\[acl_sim\] HAZARD (?!\d+ hazard)", text)),
    }


def plot(result: dict[str, object], path: Path) -> None:
    rss = result["rss"]
    qps = result["qps"]
    assert isinstance(rss, list) and isinstance(qps, list)
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    ax1.plot([t for t, _ in rss], [kib / 1024 for _, kib in rss], color="tab:blue")
    ax1.set_ylabel("resident memory (MiB)")
    ax1.axvline(WARMUP_S, color="grey", linestyle=":", label="end of warm-up")
    ax1.legend(loc="lower right")
    ax2.plot([t for t, _ in qps], [q for _, q in qps], color="tab:green")
    ax2.set_ylabel("frames/s (1 s windows)")
    ax2.set_xlabel("seconds since start")
    fig.suptitle(f"Soak: {SPEC.name} on the simulator for {result['minutes']} min")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_page(result: dict[str, object], tests: dict[str, int] | None) -> None:
    rss = [kib for t, kib in result["rss"] if t >= WARMUP_S]  # type: ignore[union-attr]
    qps = [q for _, q in result["qps"]]  # type: ignore[union-attr]
    growth = (rss[-1] - rss[0]) / 1024 if len(rss) > 1 else 0.0
    third = max(1, len(qps) // 3)
    first, last = statistics.median(qps[:third]), statistics.median(qps[-third:])
    plot(result, DOCS / "reliability_soak.png")
    lines = [
        "# Reliability",
        "",
        "<!-- Generated by `python scripts/reliability.py`; do not edit. -->",
        "",
        "## Soak",
        "",
        f"`{SPEC.relative_to(REPO)}` ran for {result['minutes']} minutes on the simulator "
        f"(exit code {result['returncode']}), its resident memory sampled every second.",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| RSS after warm-up ({WARMUP_S} s) | {rss[0] / 1024:.1f} MiB |" if rss else "| RSS | n/a |",
        f"| RSS growth after warm-up | {growth:+.1f} MiB |",
        f"| RSS peak | {max(rss) / 1024:.1f} MiB |" if rss else "| RSS peak | n/a |",
        f"| QPS, median of the first third | {first:.1f} |",
        f"| QPS, median of the last third | {last:.1f} |",
        f"| QPS drift | {100 * (last - first) / first:+.1f} % |",
        "",
        "![RSS and QPS over the soak](reliability_soak.png)",
        "",
    ]
    if tests:
        t = tests
        lines += [
            "## Tests",
            "",
            "Counted from one run of the reliability tests (JUnit report); every program run has the",
            "simulator's hazard detector on (`ACL_SIM_HAZARD=1`).",
            "",
            "| figure | value |",
            "|---|---:|",
            f"| injected faults (every AscendCL call of every example fails once at its first call, and once "
            f"in steady state for per-frame calls) | {t['fault_runs_ok']} of {t['fault_runs']} handled |",
            f"| hazards planted in generated code (one event wait removed per mutant, seed example; "
            f"{t['mutants_as_races']} reported as races, {t['mutants_as_rules']} as an event recorded again "
            f"before its wait and reset) | {t['mutants_caught']} of {t['mutants_needed']} caught |",
            f"| hand-written hazard programs (classic mistakes and their correct variants, `sim.hazard`) "
            f"| {t['hazard_cases_passed']} of {t['hazard_cases']} pass, {t['hazards_reported']} hazards reported |",
            f"| sanitizer runs (every example under ASan+UBSan and TSan, with --verify) "
            f"| {t['sanitizer_passed']} of {t['sanitizer_runs']} clean |",
            f"| simulator test suites (plain, ASan+UBSan, TSan builds, ctest) "
            f"| {t['sim_suites_passed']} of {t['sim_suites']} pass |",
            f"| program tests (every example built, run, verified; threads x depth settings) "
            f"| {t['program_tests_passed']} of {t['program_tests']} pass |",
            "",
            "A fault run passes when the program exits 3 with one line naming the stage, the call and the "
            "code, releases everything (the simulator's leak report) and never hangs; a mutant is caught when "
            "the program exits 86 naming the race or 87 naming the broken rule; a sanitizer run passes when "
            "the program verifies every output and the sanitizer reports nothing.",
            "",
        ]
    lines += bounds()
    lines += device_rules()
    lines += [
        "## Threat model",
        "",
        "Specs arrive in pull requests from anyone and are rendered into C++ that CI compiles and runs: "
        "see [threat_model.md](threat_model.md) for why no spec value reaches C++, CMake or a shell "
        "unescaped, and the tests that show it.",
        "",
    ]
    (DOCS / "reliability.md").write_text("\n".join(lines))


def bounds() -> list[str]:
    """What a generated program waits for, reads and leaves behind, whatever it is given (the
    hostile corpus, tests/hostile/test_hostile_programs.py, checks each): stated, not measured."""
    return [
        "## Bounds, signals and leftovers", "",
        "What a generated program waits for, reads and leaves behind, whatever it is given. The hostile "
        "corpus (`tests/hostile/`) runs each case under 1 GiB of address space, a CPU limit and a "
        "wall-clock limit; a program stops within 10 s (the grace) of its end or of a signal.", "",
        "| what | bound |",
        "|---|---|",
        "| a run | `--warmup` then `--duration` (or until `--frames`), then the drain; a device that completes "
        "no batch for 60 s fails the run (exit 3) |",
        "| a server's open loop | sleeps in slices of at most 100 ms on deadlines that saturate at the int64 "
        "limit (a far timestamp cannot wrap into a busy loop); a trace replayed to its end ends the run once "
        "its requests are served |",
        "| `--trace FILE` | a regular file (a FIFO or a device is refused before any read), at most 64 MiB, "
        "lines of at most 64 bytes, at most 8,388,608 timestamps spanning at most 90,000 s; refused at "
        "start-up (exit 2) when none of its requests falls after `--warmup` within `--duration`, or fewer "
        "than `--frames` do |",
        "| `--input` | regular files of at most the spec's `max_bytes`, at most 4,096 of them |",
        "| the host's NUMA layout (sysfs) | the first 4,096 bytes of each file, read once; nodes 0..1023, "
        "CPUs 0..1023 (`CPU_SETSIZE`); anything else is named in a warning and binds nothing |",
        "| `ACL_SIM_TIME_SCALE` | a finite number in 0.001..1000, else `aclInit` fails (`init.time_scale`) |",
        "| a value echoed in a message | its first 40 bytes (a path: 200), control and non-ASCII bytes as "
        "`\\xNN` |",
        "| a device's report sent to its `deploy: processes` parent | 64 MiB |", "",
        "| signal | what the program does | exit |",
        "|---|---|---|",
        "| SIGINT or SIGTERM | stops submitting (a server: sending), drains what is in flight, writes its "
        "JSON report marked `interrupted` | 130 or 143 |",
        "| a second SIGINT or SIGTERM | exits at once | 128 + the signal |",
        "| a signal to a `deploy: processes` parent | forwarded to every device's process; the merged "
        "report keeps each device's | 128 + the signal |",
        "| SIGKILL of a `deploy: processes` parent | each device's process gets SIGTERM "
        "(`PR_SET_PDEATHSIG`), drains and exits: no device runs on without its parent | - |", "",
        "Nothing is left behind. A program writes no temporary file: under `deploy: processes` each device "
        "sends its report and error line to the parent up a pipe, under `deploy: threads` they stay in "
        "memory. On the simulator the processes of one deployment share a simulated machine in shared "
        "memory (`/dev/shm/acl_sim_machine.ascgen-<parent pid>`), which the last of them to leave removes, "
        "and the parent once they ended; when a parent and its children are all killed, the next "
        "`deploy: processes` run removes every such segment whose parent no longer exists, naming it on "
        "stderr.", "",
        "A result never claims more than was done: a run in which no frame completed after the warm-up "
        "says so and exits 3 (its report still written); `verified` is true only when every compared "
        "output matched and no frame failed to decode (frames skipped with `--on-decode-error skip` "
        "excepted); a device that fails at exit (`aclFinalize`) is named with that reason and its report "
        "kept in the merged one.", "",
    ]  # fmt: skip


def device_rules() -> list[str]:
    """The device rules the simulator enforces, and those it cannot: from simulator/README.md,
    which is their one list (each with its source)."""
    text = (REPO / "simulator" / "README.md").read_text(encoding="utf-8").splitlines()
    start = text.index("| Rule id | What is reported | Source | Returned |")
    table = []
    for line in text[start:]:
        if not line.startswith("|"):
            break
        table.append(line)
    gaps_at = text.index("Not enforced, and why:")
    gaps = []
    for line in text[gaps_at + 1 :]:
        if line.startswith("- The corpus"):
            break
        gaps.append(line)
    return [
        "## Device rules the simulator enforces", "",
        "A program that breaks one exits 87 naming the call, the object and the rule's source "
        "(simulator/README.md, Device rules, has the whole story).", "",
        *table, "",
        "Not enforced, and why:", "",
        *gaps, "",
    ]  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--no-tests", action="store_true", help="only the soak")
    ap.add_argument("--no-soak", action="store_true", help=f"reuse the last soak ({SOAK_JSON.relative_to(REPO)})")
    args = ap.parse_args()
    DOCS.mkdir(exist_ok=True)
    tests = None if args.no_tests else test_figures()
    if args.no_soak:
        result = json.loads(SOAK_JSON.read_text())
    else:
        result = soak(args.minutes)
        SOAK_JSON.write_text(json.dumps(result) + "\n")
    write_page(result, tests)
    print(f"wrote {DOCS / 'reliability.md'}")


if __name__ == "__main__":
    main()
