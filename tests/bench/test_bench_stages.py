"""`ascgen bench --stages`: each device stage alone, then the assembled pipeline, in one build."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from build_dirs import TEST_BUILD

from ascgen.bench.stages import study_spec
from ascgen.dsl.parse import parse_file

SEED = Path("pipelines/resnet50_b16.yaml")


def test_the_study_spec_is_per_thread_step_by_step_in_whole_batches() -> None:
    spec, _ = parse_file(SEED)
    study = study_spec(spec)
    assert (study.streams, study.submit, study.sync_every) == ("per_thread", "by_step", 64)
    odd = study_spec(spec.model_copy(update={"batch": 24}))
    assert odd.sync_every == 72  # whole batches per window


@pytest.mark.slow
def test_stages_alone_then_assembled(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "ascgen", "bench", str(SEED), "--stages", "--threads", "1", "--duration", "1",
           "--warmup", "0.2", "--build-dir", str(TEST_BUILD), "--out", str(tmp_path)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "alone fps" in proc.stdout and "of its slowest stage alone" in proc.stdout
    doc = json.loads((tmp_path / "stages.json").read_text())
    assert [r["name"] for r in doc["rows"]] == ["upload", "decode", "resize", "infer", "fetch"]
    alone = {r["name"]: r["alone_qps"] for r in doc["rows"]}
    # one thread, one stream: the assembled run is slower than any stage alone, and its slowest
    # stage alone is JPEGD (one unit busy per stream), then the AI Core
    assert doc["assembled_qps"] < min(alone.values())
    assert doc["limit"] == "decode" and alone["decode"] < alone["infer"] < alone["upload"]
    assert (tmp_path / "stages.md").read_text().startswith("| stage |")
