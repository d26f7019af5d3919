"""Transfers between hosts and devices: the link model, HIXL's published figures, the fit of
the model's parameters, and the probe programs that measure transfers (docs/transfers.md)."""
