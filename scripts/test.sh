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
# The tests start hundreds of short Python processes (ascgen's commands): their bytecode, and
# pytest's rewritten test modules, are written once into the tests' build folder (not beside
# the sources) even where the environment says to write none (PYTHONDONTWRITEBYTECODE), so that
# no process compiles every module again (a quarter of the CPU time of tests/hostile).
export PYTHONPYCACHEPREFIX="${ASCGEN_TEST_BUILD:-$PWD/build-tests}/pycache"
unset PYTHONDONTWRITEBYTECODE
# Three workers on the CI's two cores (ASCGEN_TEST_WORKERS; a fresh clone took 765 s with three, 806
# with two: two left a quarter of the cores' time idle while tests wait on a slowed simulated
# clock or on another worker's build), each test file on one of them (--dist loadfile): the C++
# builds the files share are built once, under a lock per build folder (ascgen.codegen.cache.locked);
# the files that build C++ first (tests/conftest.py), so that the short ones fill the end. Then,
# alone on the machine, the tests that compare what two runs measured, or a rate that holds the
# host's CPU with the plan's prediction (marked timing): a busy
# other worker would decide their winners.
set +e
pytest -q -n "${ASCGEN_TEST_WORKERS:-3}" --dist loadfile --no-loadscope-reorder -m "not timing" "$@"
parallel=$?
echo "== pytest, timing tests alone"
pytest -q -m timing "$@"
alone=$?
set -e
if [ "$parallel" -eq 5 ] && [ "$alone" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here" >&2
  exit 1
fi
for status in "$parallel" "$alone"; do
  if [ "$status" -ne 0 ] && [ "$status" -ne 5 ]; then
    exit "$status"
  fi
done
exit 0
