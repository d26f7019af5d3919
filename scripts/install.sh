#!/usr/bin/env bash
# Installs what ascgen needs: a C++17 compiler, CMake >= 3.20, Ninja, pkg-config,
# libjpeg-turbo and FFmpeg's libavcodec (for the simulator), the ffmpeg command (test clips),
# git, Python >= 3.11 with venv, Chromium at /usr/bin/chromium (the tests open the HTML reports
# in it through Playwright, which downloads no browser of its own); then ascgen itself in a
# virtual environment (.venv, or $VENV).
#
# Re-runnable offline: when .venv already holds this ascgen (same pyproject.toml) it does
# nothing. On Debian and Ubuntu it installs missing system packages with apt-get (as root, or
# with sudo when sudo works without a password prompt); anywhere else, or without root, it
# lists what to install by hand and stops.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "install.sh: $*"; }
venv=${VENV:-.venv}
python=${PYTHON:-python3}
uid=${INSTALL_UID:-$(id -u)}  # INSTALL_UID: for tests of the non-root path

# --- 1. system tools ---------------------------------------------------------------------
# tool check | Debian package | what it is (for other systems)
checks=(
  "command -v $python|python3|Python 3.11 or newer"
  "$python -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))'|python3-venv|Python's venv and ensurepip modules"
  "command -v c++|g++|a C++17 compiler (g++ or clang++)"
  "command -v cmake|cmake|CMake 3.20 or newer"
  "command -v ninja|ninja-build|Ninja"
  "command -v pkg-config|pkg-config|pkg-config"
  "pkg-config --exists libturbojpeg|libturbojpeg0-dev|libjpeg-turbo's TurboJPEG library and headers"
  "pkg-config --exists libavcodec libavutil|libavcodec-dev|FFmpeg's libavcodec and libavutil (the simulator's video decoder)"
  "command -v ffmpeg|ffmpeg|the ffmpeg command (makes the test video clips)"
  "command -v git|git|git"
  "test -x /usr/bin/chromium|chromium|Chromium at /usr/bin/chromium (the tests open the HTML reports in it)"
)
say "checking system tools"
missing_pkgs=()
missing_what=()
for entry in "${checks[@]}"; do
  IFS='|' read -r check pkg what <<<"$entry"
  if ! bash -c "$check" >/dev/null 2>&1; then
    missing_pkgs+=("$pkg")
    missing_what+=("$what")
  fi
done

by_hand() {
  local joined
  joined=$(printf '%s; ' "${missing_what[@]}")
  say "missing: ${joined%; }"
  say "install them by hand, then run this script again:"
  echo "  Debian/Ubuntu: apt-get install ${missing_pkgs[*]}"
  echo "  Fedora/RHEL:   dnf install python3 gcc-c++ cmake ninja-build pkgconf-pkg-config turbojpeg-devel ffmpeg-free-devel ffmpeg-free git chromium"
  echo "  Arch:          pacman -S python gcc cmake ninja pkgconf libjpeg-turbo ffmpeg git chromium"
  echo "  macOS:         brew install python cmake ninja pkg-config jpeg-turbo ffmpeg git"
  exit 1
}

if ((${#missing_pkgs[@]})); then
  if ! command -v apt-get >/dev/null 2>&1; then
    say "this is not a Debian-like system (no apt-get)"
    by_hand
  fi
  if [ "$uid" -eq 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    say "not root, and sudo is unavailable or asks for a password"
    by_hand
  fi
  say "installing Debian packages: ${missing_pkgs[*]} (apt-get update, then install; this can take minutes)"
  if ! "${sudo[@]}" apt-get update -q || ! DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q "${missing_pkgs[@]}"; then
    say "apt-get failed (offline? see its message above)"
    by_hand
  fi
fi

# --- 2. ascgen in a virtual environment --------------------------------------------------
stamp="$venv/.ascgen-installed"
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ -x "$venv/bin/ascgen" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && "$venv/bin/ascgen" --version >/dev/null 2>&1; then
  say "already installed in $venv ($("$venv/bin/ascgen" --version)); nothing to do"
  exit 0
fi
if [ ! -x "$venv/bin/python" ]; then
  say "creating the virtual environment $venv"
  "$python" -m venv "$venv"
fi
say "installing ascgen and its Python dependencies into $venv (downloads on the first run)"
# uv (pinned, from the package index by pip) installs them in seconds where pip alone takes most of a
# minute on two cores (ray, matplotlib, playwright); uv reads no pip configuration, so pip's index and
# links settings from the environment are handed on. Where uv cannot be had, pip does it all.
uv_version=0.13.9
uv_args=()
if [ -n "${PIP_INDEX_URL:-}" ]; then uv_args+=(--index-url "$PIP_INDEX_URL"); fi
if [ -n "${PIP_EXTRA_INDEX_URL:-}" ]; then uv_args+=(--extra-index-url "$PIP_EXTRA_INDEX_URL"); fi
if [ -n "${PIP_FIND_LINKS:-}" ]; then uv_args+=(--find-links "$PIP_FIND_LINKS"); fi
if ! { "$venv/bin/python" -m pip install -q --disable-pip-version-check "uv==$uv_version" &&
  "$venv/bin/uv" pip install --python "$venv/bin/python" "${uv_args[@]}" -e '.[dev]'; }; then
  say "uv could not install them (see above); pip does it instead"
  "$venv/bin/python" -m pip install --disable-pip-version-check -e '.[dev]'
fi
echo "$want" >"$stamp"
say "ready ($("$venv/bin/ascgen" --version)); put $venv/bin on your PATH or run: source $venv/bin/activate"
