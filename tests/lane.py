"""Which lane this pytest run is: `make test` (everything, at full size: what CI runs) or the fast lane
(`make test-fast`, a `-m` that leaves out the tests marked slow in conftest.py's tables). The fast lane
keeps every hypothesis test it runs but draws a few examples (`examples(n)`), so each property is still
exercised on every edit and `make test` still searches with the full count. conftest.py sets `FAST`
before the test modules are imported (their decorators read it)."""
from __future__ import annotations

FAST = False


def examples(n: int, fast: int = 2) -> int:
    """hypothesis max_examples: `n` in the full suite, at most `fast` in the fast lane."""
    return min(n, fast) if FAST else n
