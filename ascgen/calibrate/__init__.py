"""``ascgen calibrate``: measure a device (or a simulated one) with probes and write a profile
whose figures carry their provenance."""
