#!/usr/bin/env bash
# Installs everything ascgen needs on a fresh Debian 12 machine: the C++ toolchain,
# libjpeg-turbo for the simulator, and ascgen itself in a virtual environment (.venv).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(python3 python3-venv python3-pip g++ cmake ninja-build pkg-config libturbojpeg0-dev git)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "install.sh: installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'
echo "install.sh: ready ($(.venv/bin/ascgen --version))"
