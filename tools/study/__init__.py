"""docs/performance.md: the published Ascend 310 study reproduced with ``ascgen bench``.

Run ``python -m tools.study`` from the repository's root (see tools/study/run.py)."""
