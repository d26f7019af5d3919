"""Hostile input to the commands beyond validate/generate: profiles in ASCGEN_PROFILE_PATH,
calibrate's output name, init's path, tune's --space, probe sizes and bench's sweeps and flags.
Each case is one `ascgen` command under limits; none may build anything before refusing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harness import ROOT, Case, run_and_check, with_processes

SEED = "{root}/pipelines/decode_only.yaml"
SERVER = "{root}/pipelines/serving/textline_batched.yaml"
SHIPPED_310 = (ROOT / "ascgen/profiles/ascend310.yaml").read_text(encoding="utf-8")
MINE = (
    "name: x\ndevice: {profile: mine}\nsource: {kind: tensor, path: in.bin, bytes: 4096}\n"
    "stages: [{name: up, kind: h2d}]\n"
)


def mine(profile_text: str | bytes) -> dict[str, str | bytes]:
    """A spec of profile 'mine' and that profile in the folder 'p' (ASCGEN_PROFILE_PATH)."""
    return {"s.yaml": MINE, "in.bin": b"\0" * 4096, "p/mine.yaml": profile_text}


PROFILE_PATH = {"ASCGEN_PROFILE_PATH": "{tmp}/p"}
BROKEN_PROFILES: dict[str, tuple[str | bytes, str]] = {
    "broken-yaml": ("a: [\n", "invalid YAML"),
    "scalar": ("hello\n", "not an ascgen profile"),
    "list": ("- 1\n- 2\n", "not an ascgen profile"),
    "empty": ("", "is empty"),
    "spec-not-profile": (MINE, "not an ascgen profile"),
    "bad-value": (SHIPPED_310.replace("name: ascend310", "name: mine").replace("units: 2", "units: -1", 1), "units"),
    "unknown-key": (SHIPPED_310.replace("name: ascend310", "name: mine\ncolour: red"), "colour"),
    "non-utf8": (b"name: \xff\xfe\n", "not UTF-8"),
    "alias-bomb": (
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 8)}]\n" for i in range(9)),
        "more than 20000 nodes",
    ),
    "too-large": ("#" * 1_100_000 + "\n", "larger than"),
}


def fifo_profile(tmp: Path) -> None:
    (tmp / "p").mkdir(exist_ok=True)
    (tmp / "p" / "mine.yaml").unlink(missing_ok=True)
    os.mkfifo(tmp / "p" / "mine.yaml")


PROFILES = [
    *(
        Case(f"{cmd}-profile-{k}", args, 2, says, files=mine(text), env=PROFILE_PATH)
        for k, (text, says) in BROKEN_PROFILES.items()
        for cmd, args in (("validate", ("validate", "s.yaml")), ("profile", ("profile", "mine")))
    ),
    Case("profile-flat-broken", ("profile", "mine", "--flat"), 2, "invalid YAML", files=mine("a: ["), env=PROFILE_PATH),
    Case("profile-fifo", ("profile", "mine"), 2, "a FIFO", files=mine("x"), setup=fifo_profile, env=PROFILE_PATH),
    Case(
        "validate-profile-fifo",
        ("validate", "s.yaml"),
        2,
        "a FIFO",
        files=mine("x"),
        setup=fifo_profile,
        env=PROFILE_PATH,
    ),
    Case(
        "profile-folder",
        ("profile", "mine"),
        2,
        "a folder",
        setup=lambda tmp: (tmp / "p" / "mine.yaml").mkdir(parents=True),
        env=PROFILE_PATH,
    ),
    Case("calibrate-out-shipped-name", ("calibrate", "--out", "d/ascend310.yaml"), 2, "ascgen ships a profile"),
    Case("calibrate-out-shipped-910b", ("calibrate", "--out", "ascend910b.yaml"), 2, "ascend910b_calibrated.yaml"),
    Case(
        "calibrate-out-shadowed",
        ("calibrate", "--out", "d/mine.yaml"),
        2,
        "finds it first",
        files=mine(SHIPPED_310.replace("name: ascend310", "name: mine")),
        env=PROFILE_PATH,
    ),
    Case(
        "calibrate-base-broken",
        ("calibrate", "--profile", "mine", "--out", "d/my.yaml"),
        2,
        "invalid YAML",
        files=mine("a: ["),
        env=PROFILE_PATH,
    ),
]

DIGITS = "9" * 5000
LONG_NAME = "a" * 300 + ".yaml"
TUNE = ("tune", SEED, "--out", "o", "--build-dir", "b", "--write-spec", "t.yaml")


def tune(id: str, *args: str, says: str) -> Case:
    return Case(f"tune-{id}", (*TUNE, *args), 2, says)


def space(id: str, text: str, says: str) -> Case:
    return tune(f"space-{id}", "--space", text, says=says)


TUNES = [
    space("million-points", "threads=1..100000000:1", "threads=100000000: must be 1..64"),
    space("10-to-the-24", "threads=1..1000000000000000000000000:1", "more than 9 digits"),
    space("5000-digits", f"threads={DIGITS}", "more than 9 digits"),
    space("5000-digit-range", f"threads=1..{DIGITS}", "threads is at most 64"),
    space("5000-digit-step", f"threads=1..8:{DIGITS}", "more than 9 digits"),
    space("too-many-values", "depth=1..256:2", "128 values; at most 64"),
    space("above-limit-doubling", "depth=1..4096", "depth=4096: must be 1..256"),
    space("fullwidth-digit", "threads=\uff11", "expected a whole number"),
    space("step-zero", "threads=1..8:0", "STEP must be at least 1"),
    space("lo-zero", "threads=0..8", "1 <= LO <= HI"),
    space("long-streams", "streams=" + "x" * 3000, "use per_stage or per_thread"),
    space("escape-codes", "threads=\x1b[2J\x07", "threads="),
    space("long-key", "k" * 3000 + "=1", "cannot be tuned"),
    space("empty", ",", "--space"),
    tune("ray-empty", "--ray", "", says="give the cluster's address"),
    tune("ray-blank", "--ray", "   ", says="give the cluster's address"),
    tune("ray-newline", "--ray", "a\nb", says="give the cluster's address"),
    tune("min-gain-nan", "--min-gain", "nan", says="not a finite number"),
    tune("budget-5000-digits", "--budget", DIGITS, says="--budget"),
    tune("slo-5000-digits", "--slo", f"p99_ms={DIGITS}", says="--slo"),
    tune("slo-nan", "--slo", "min_qps=nan", says="a positive number"),
    tune("pin-garbage", "--pin", "abc", says="--pin"),
    tune("out-name-too-long", "--out", LONG_NAME, says="File name too long"),
    tune("spec-name-too-long", "--write-spec", LONG_NAME, says="File name too long"),
]


def sweep(id: str, text: str, says: str, spec: str = SERVER) -> Case:
    return Case(f"bench-sweep-{id}", ("bench", spec, "--sweep", text, "--out", "o", "--build-dir", "b"), 2, says)


def bench(id: str, *args: str, says: str) -> Case:
    return Case(f"bench-{id}", ("bench", SEED, "--out", "o", "--build-dir", "b", *args), 2, says)


BENCHES = [
    sweep("rate-below-program-limit", "rate=0.0001", "must be 0.001..1e+07"),
    sweep("rate-above-program-limit", "rate=20000000", "must be 0.001..1e+07"),
    sweep("rate-nan", "rate=nan", "must be 0.001"),
    sweep("rate-inf", "rate=inf", "must be 0.001"),
    sweep("rate-5000-digits", f"rate={DIGITS}", "rate="),
    sweep("clients-5000-digits", f"clients={DIGITS}", "clients="),
    sweep("clients-zero", "clients=0", "must be 1..4096"),
    sweep("clients-fraction", "clients=1.5", "not a whole number"),
    sweep("rate-twice", "rate=5,5.0", "listed twice"),
    sweep("threads-5000-digits", f"threads={DIGITS}", "more than 24 digits", SEED),
    sweep("threads-fullwidth", "threads=\uff12", "not a whole number", SEED),
    sweep("devices-5000-digits", f"devices={DIGITS}", "more than 24 digits", SEED),
    sweep("deploy-long", "deploy=" + "p" * 3000, "use processes or threads", SEED),
    sweep("key-5000", DIGITS + "=1", "cannot be swept", SEED),
    sweep("escape-codes", "threads=\x1b]0;pwned\x07", "not a whole number", SEED),
    bench("time-scale-nan", "--time-scale", "nan", says="not a finite number"),
    bench("time-scale-inf", "--time-scale", "inf", says="--time-scale"),
    sweep("time-scale-nan", "time_scale=nan", "time_scale=nan", SEED),
    bench("pin-garbage", "--pin", "abc", says="--pin"),
    bench("pin-range", "--pin", "0-2147483647", says="--pin"),
    bench("pin-empty", "--pin=", says="--pin"),
    bench("pin-huge-cpu", "--pin", "1" + "0" * 30, says="--pin"),
    bench("duration-5000-digits", "--duration", DIGITS, says="--duration"),
    bench("json-name-too-long", "--json", LONG_NAME, says="File name too long"),
    bench("out-name-too-long", "--threads", "1", "--out", LONG_NAME, says="File name too long"),
]

SMALL_DEVICE = SHIPPED_310.replace("name: ascend310", "name: mine").replace(
    "device_bytes: 8589934592", "device_bytes: 1073741824"
)
PROBES = [
    Case("probe-size-20-digits", ("probe", "transfer", "--sizes", "9" * 20, "--out", "o"), 2, "at most 1G"),
    Case("probe-size-2g", ("probe", "transfer", "--sizes", "2G", "--out", "o"), 2, "at most 1G"),
    Case("probe-size-5000-digits", ("probe", "transfer", "--sizes", DIGITS, "--out", "o"), 2, "at most 1G"),
    Case("probe-size-fullwidth", ("probe", "transfer", "--sizes", "\uff14K", "--out", "o"), 2, "not a size"),
    Case("probe-size-zero", ("probe", "transfer", "--sizes", "0K", "--out", "o"), 2, "not a size"),
    Case("probe-total-20-digits", ("probe", "transfer", "--total", "9" * 20, "--out", "o"), 2, "at most 1G"),
    Case("probe-time-scale-inf", ("probe", "transfer", "--time-scale", "inf", "--out", "o"), 2, "--time-scale"),
    Case("probe-time-scale-nan", ("probe", "transfer", "--time-scale", "nan", "--out", "o"), 2, "--time-scale"),
    Case("probe-out-name-too-long", ("probe", "transfer", "--out", LONG_NAME), 2, "File name too long"),
    Case(
        "probe-total-beyond-device",
        ("probe", "transfer", "--profile", "mine", "--total", "1G", "--sizes", "1M", "--out", "o", "--build-dir", "b"),
        2,
        "more than the",
        files=mine(SMALL_DEVICE),
        env=PROFILE_PATH,
    ),
    Case("calibrate-size-20-digits", ("calibrate", "--sizes", "1M," + "9" * 20, "--out", "c.yaml"), 2, "at most 1G"),
    Case("calibrate-total-20-digits", ("calibrate", "--total", "9" * 20, "--out", "c.yaml"), 2, "at most 1G"),
    Case("calibrate-time-scale-nan", ("calibrate", "--time-scale", "nan", "--out", "c.yaml"), 2, "--time-scale"),
    Case("calibrate-out-5000", ("calibrate", "--out", "a" * 5000 + ".yaml"), 2, "--out"),
    Case(
        "calibrate-total-beyond-device",
        ("calibrate", "--profile", "mine", "--total", "1G", "--out", "c.yaml", "--build-dir", "b"),
        2,
        "more than the",
        files=mine(SMALL_DEVICE),
        env=PROFILE_PATH,
    ),
]

PATHS = [
    Case("init-name-too-long", ("init", LONG_NAME), 2, "File name too long"),
    Case("init-folder-too-long", ("init", "a" * 300 + "/p.yaml"), 2, "File name too long"),
    Case("validate-name-too-long", ("validate", LONG_NAME), 2, "File name too long"),
    Case("plan-name-too-long", ("plan", LONG_NAME), 2, "longer than the 255 bytes"),
    Case("generate-out-too-long", ("generate", SEED, "--out", LONG_NAME), 2, "File name too long"),
    Case("schema-name-too-long", ("schema", "-o", LONG_NAME), 2, "File name too long"),
    Case("compare-name-too-long", ("compare", LONG_NAME, LONG_NAME), 2, "File name too long"),
    Case("validate-escape-codes", ("validate", "a\x1b[31mred\x07.yaml"), 2, "U+001B"),
    Case("profile-5000", ("profile", DIGITS), 2, "not a profile name"),
    Case("unknown-command-5000", ("x" * 5000,), 2, "No such command"),
]

CASES = with_processes(
    [*PROFILES, *TUNES, *BENCHES, *PROBES, *PATHS],
    {
        "validate-profile-alias-bomb",
        "profile-fifo",
        "tune-space-million-points",
        "bench-sweep-rate-nan",
        "probe-size-2g",
        "calibrate-out-shipped-name",
        "unknown-command-5000",
    },
)
MAX_LINE = 600  # characters of one message line: what was echoed is cut (a 300-character file name stays whole)


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_hostile_command(c: Case, tmp_path: Path) -> None:
    proc = run_and_check(c, tmp_path)
    for line in proc.stderr.splitlines():
        assert len(line) <= MAX_LINE, f"{c.id}: a message line of {len(line)} characters: {line[:200]}..."
        assert not any(ch < " " and ch != "\t" for ch in line), f"{c.id}: a control character echoed: {line!r}"
