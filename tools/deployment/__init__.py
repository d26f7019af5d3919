"""docs/deployment.md: the seed workload over several devices, one process per device.

Run ``python -m tools.deployment`` from the repository's root (see tools/deployment/run.py)."""
