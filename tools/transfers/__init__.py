"""docs/transfers.md: the link model fitted on HIXL's published figures, and the simulated
transfer tables beside the published ones (python -m tools.transfers)."""
