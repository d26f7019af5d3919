#!/usr/bin/env bash
# Formats all hand-written code, or with --check (what CI runs) fails when any would change:
# Python with ruff, C++ (the runtime and stage headers and the simulator) with the pinned clang-format
# and the one style file, .clang-format. generated/ is formatted by `ascgen generate` itself.
#   bash scripts/format.sh            # rewrite the files in place (make fmt)
#   bash scripts/format.sh --check    # change nothing; list what is off (scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${VENV:-.venv}/bin
version=23.1.3  # as pyproject.toml pins it and ascgen/codegen/render.py checks it

python_dirs=(.)  # every Python file of the repository; pyproject.toml excludes generated/ and build/
mapfile -t cpp < <(find templates/runtime templates/stages simulator -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.cpp' -o -name '*.cc' \) | sort)

if ! "$bin/clang-format" --version 2>/dev/null | grep -q " $version"; then
  echo "format.sh: needs clang-format $version in $bin: $bin/python -m pip install clang-format==$version" >&2
  exit 1
fi

if [ "${1:-}" = "--check" ]; then
  status=0
  "$bin/ruff" format --check "${python_dirs[@]}" || status=1
  "$bin/clang-format" --style=file:.clang-format --dry-run --Werror "${cpp[@]}" || status=1
  if [ "$status" -ne 0 ]; then
    echo "format.sh: files above are not formatted; run: make fmt" >&2
  fi
  exit "$status"
fi
"$bin/ruff" format "${python_dirs[@]}"
"$bin/clang-format" --style=file:.clang-format -i "${cpp[@]}"
echo "format.sh: formatted the repository's Python files and ${#cpp[@]} C++ files"
