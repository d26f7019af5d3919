"""A copy-bound deployment on one card, where the card's PCIe link stops the scaling: a detector
whose 4 MiB of outputs per batch of 8 go back to the host over a slow D2H engine (0.3 GB/s), on
the four chips of an Atlas 300I whose link carries 0.75 GB/s each way (two and a half chips'
worth of those copies). The profile is the shipped ascend310 with those two figures changed,
written beside the spec (found through $ASCGEN_PROFILE_PATH). Used by docs/deployment.md's study
(tools/deployment/run.py) and by tests/programs/test_host_link.py."""

from __future__ import annotations

from pathlib import Path

import yaml

from ascgen.dsl import profile as profiles

PROFILE = "slowlink310"
SPEC = f"""\
name: link_bound
device: {{ids: all, profile: {PROFILE}, deploy: DEPLOY}}
source: {{kind: jpeg_files, path: data/images, max_bytes: 1MiB, typical_bytes: 75825}}
threads: 2
buffers: {{depth: 4}}
batch: 8
stages:
  - {{name: upload, kind: h2d}}
  - {{name: decode, kind: jpeg_decode, max: {{width: 1024, height: 1536}}}}
  - {{name: resize, kind: vpc_resize, out: {{width: 240, height: 232}}}}
  - {{name: detect, kind: model, path: models/detector_240x232.om, latency_ms: {{1: 1.6, 8: 9.2}},
     output_bytes: 4194304}}
  - {{name: fetch, kind: d2h}}
"""
REPO = Path(__file__).resolve().parents[2]


def profile_folder(folder: Path) -> Path:
    """Where write() puts the profile: add it to $ASCGEN_PROFILE_PATH."""
    return folder / "profiles"


def write(folder: Path, deploy: str = "threads") -> Path:
    """The profile, the spec (its devices driven by ``deploy``: threads or processes) and its
    images (a link to pipelines/data) into ``folder``; returns the spec's path."""
    base = profiles.load("ascend310")
    d2h = base.engines.d2h.model_copy(update={"bandwidth_GBps": 0.3, "latency_us": 30.0})
    slow = base.model_copy(
        update={
            "name": PROFILE,
            "engines": base.engines.model_copy(update={"d2h": d2h}),
            "topology": base.topology.model_copy(update={"host_link_GBps": 0.75}),
        }
    )
    profile_folder(folder).mkdir(parents=True, exist_ok=True)
    data = slow.model_dump(mode="json", exclude_none=True)
    (profile_folder(folder) / f"{PROFILE}.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    spec = folder / "link_bound.yaml"
    spec.write_text(SPEC.replace("DEPLOY", deploy), encoding="utf-8")
    images = folder / "data"
    if not images.exists():
        images.symlink_to(REPO / "pipelines/data")
    return spec
