#!/usr/bin/env bash
# Installs everything, then runs the main job on the seed example: validate and plan it,
# build its generated program on the simulator, and benchmark it over 1, 2 and 4 threads.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
export PATH="$PWD/.venv/bin:$PATH"
spec=pipelines/resnet50_b16.yaml
ascgen validate "$spec"
ascgen plan "$spec"
ascgen build "$spec"
ascgen bench "$spec" --sweep threads=1,2,4 --duration 5 --warmup 1 --repeat 1
