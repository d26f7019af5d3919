#!/usr/bin/env bash
# Installs everything, then runs the whole test suite: lint, formatting (Python and C++), type
# check, Python and C++ tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
export PATH="$PWD/.venv/bin:$PATH"

echo "== ruff"; ruff check .
echo "== format"; bash scripts/format.sh --check
echo "== mypy"; mypy
echo "== pytest"
# Two workers (ASCGEN_TEST_WORKERS), each test file on one of them (--dist loadfile): the C++
# builds the files share are built once, under a lock per build folder (ascgen.codegen.cache.locked);
# the files that build C++ first (tests/conftest.py), so that the short ones fill the end.
set +e
pytest -q -n "${ASCGEN_TEST_WORKERS:-2}" --dist loadfile --no-loadscope-reorder "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here" >&2
  exit 1
fi
exit "$status"
