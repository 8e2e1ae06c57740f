"""asc_trace's version, in one place: the package (`asc_trace.__version__`), the wheel (pyproject's
dynamic version), the compile-cache keys and the emitted source's header read it from here."""
__version__ = "0.1.0"
