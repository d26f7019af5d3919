"""The seed workload's spec as text, the one copy that tests edit with ``str.replace`` (it is
pipelines/resnet50_b16.yaml without its comments and host line). A module constant rather
than a fixture: the test files derive module-level variants and parameters from it."""

SEED_SPEC = """\
name: resnet50_b16
device: {id: 0, profile: ascend310}
source: {kind: jpeg_files, path: data/images, max_bytes: 1MiB, typical_bytes: 75825}
threads: 4
streams: per_stage
buffers: {depth: 8}
batch: 16
stages:
  - {name: upload, kind: h2d}
  - {name: decode, kind: jpeg_decode, max: {width: 1024, height: 1536}}
  - {name: resize, kind: vpc_resize, out: {width: 224, height: 224}}
  - {name: infer, kind: model, path: models/resnet50_aipp.om, reference: resnet50}
  - {name: fetch, kind: d2h}
  - {name: top5, kind: topk, k: 5}
"""
