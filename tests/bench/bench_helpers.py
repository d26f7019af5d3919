"""Shared by the bench tests: fixture paths and a fake builder around fake_program.py."""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ascgen.dsl.spec import Spec
from ascgen.plan.model import Plan

FIXTURES = Path(__file__).parent.parent / "fixtures" / "bench"
FAKE_PROGRAM = FIXTURES / "fake_program.py"
SPEC = FIXTURES / "spec.yaml"
COMPARE = FIXTURES / "compare"


@dataclass(frozen=True)
class FakeBuilt:
    binary: Path
    cached: bool


@dataclass
class FakeBuilder:
    """Writes one shell wrapper per variant around fake_program.py, with the variant baked in
    (as a real build bakes batch, streams and sync_every) and the test's knobs after it.
    ``calls`` records what each build bakes in, ``plans`` the plan it was handed."""

    root: Path
    knobs: list[str] = field(default_factory=list)
    calls: list[dict[str, object]] = field(default_factory=list)
    plans: list[Plan] = field(default_factory=list)
    options: dict[str, object] = field(default_factory=dict)  # progress, backend, build_root of the last call

    def __call__(self, spec_path: Path, spec: Spec, plan: Plan, **build_options: object) -> FakeBuilt:
        self.calls.append({"batch": spec.batch, "streams": spec.streams, "sync_every": spec.sync_every})
        self.plans.append(plan)
        self.options = build_options
        args = [sys.executable, "-S", str(FAKE_PROGRAM), "--name", spec_path.stem]
        args += ["--batch", str(spec.batch), "--streams", spec.streams]
        if spec.sync_every is not None:
            args += ["--sync-every", str(spec.sync_every)]
        binary = self.root / f"variant{len(self.calls)}"
        binary.write_text("#!/bin/sh\nexec " + shlex.join(args + self.knobs) + ' "$@"\n', encoding="utf-8")
        binary.chmod(0o755)
        return FakeBuilt(binary, cached=False)
