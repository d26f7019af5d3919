"""Hostile input to the commands beyond validate/generate: profiles in ASCGEN_PROFILE_PATH,
calibrate's output name, init's path, tune's --space, probe sizes and bench's sweeps and flags.
Each case is one `ascgen` command under limits; none may build anything before refusing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harness import ROOT, Case, run_and_check

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

CASES = [*PROFILES]


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_hostile_command(c: Case, tmp_path: Path) -> None:
    run_and_check(c, tmp_path)
