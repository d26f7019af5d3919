"""The stage kinds: one module each; registry.py lists them."""
