"""`python -m asc_trace` and the `asc-trace` console script (see main.py for the exit codes)."""
from .main import main

__all__ = ["main"]
