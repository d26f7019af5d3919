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
# the longest units first (tests/conftest.py), so that the short ones fill the end. Then, alone on
# the machine, the tests marked timing, which a busy other worker would decide (the Ray tune: a
# cold local cluster starts while the points are measured); the others measure on a slowed
# simulated clock, where a busy neighbour decides far less.
set +e
pytest -q -n "${ASCGEN_TEST_WORKERS:-3}" --dist loadfile --no-loadscope-reorder -m "not timing" "$@"
parallel=$?
echo "== pytest, timing tests alone"
# Without arguments, only the files that mark a test so are collected (collecting the whole suite
# to deselect all but these took 13 s); none left is the same as none collected.
if [ "$#" -gt 0 ]; then
  pytest -q -m timing "$@"
  alone=$?
else
  mapfile -t timing_files < <(grep -rl --include='test_*.py' 'pytest.mark.timing' tests | sort)
  alone=5
  if [ "${#timing_files[@]}" -gt 0 ]; then
    pytest -q -m timing "${timing_files[@]}"
    alone=$?
  fi
fi
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
