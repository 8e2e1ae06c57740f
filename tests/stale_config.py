"""A user configuration module that a test kernel reads at trace time (see test_fingerprint.py)."""
SCALE = 2.0
TABLE = {"scale": [2.0]}
