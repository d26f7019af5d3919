"""docs/calibration.md: the simulator's ascend310 profile against the published study.

Run ``python -m tools.calibration`` from the repository's root (see tools/calibration/run.py)."""
