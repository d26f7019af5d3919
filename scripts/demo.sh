#!/usr/bin/env bash
# Installs everything, then runs the main job on the seed example: validate and plan it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
export PATH="$PWD/.venv/bin:$PATH"
spec=pipelines/resnet50_b16.yaml
ascgen validate "$spec"
ascgen plan "$spec"
