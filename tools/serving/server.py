"""What the serving studies share: a variant of a committed spec, and one run of a server."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any


def spec_variant(spec: Path, folder: Path, old: str, new: str, name: str) -> Path:
    """``spec`` with ``old`` replaced by ``new``, named ``name``, written into ``folder``."""
    text = spec.read_text()
    if old not in text:
        raise RuntimeError(f"{spec} no longer has {old!r}; update tools/serving")
    original = next(line for line in text.splitlines() if line.startswith("name: "))
    path = folder / f"{name}.yaml"
    path.write_text(text.replace(old, new).replace(original, f"name: {name}"))
    return path


def run_server(
    binary: Path, inputs: Path, clients: int, scale: float, duration: float, warmup: float
) -> dict[str, Any]:
    """One closed-loop run of ``clients`` at simulated time scale ``scale``: its JSON report."""
    env = {**os.environ, "ACL_SIM_TIME_SCALE": f"{scale:g}"}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        cmd = [str(binary), "--clients", str(clients), "--duration", f"{duration:g}", "--warmup", f"{warmup:g}"]
        cmd += ["--input", str(inputs.resolve()), "--quiet", "--json", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False, timeout=600)
        if proc.returncode != 0:
            raise RuntimeError(f"{binary.name} at {clients} clients exited {proc.returncode}: {proc.stderr[-400:]}")
        doc: dict[str, Any] = json.loads(out.read_text())
    return doc
